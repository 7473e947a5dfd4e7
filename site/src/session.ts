/**
 * The signed-in user, with Amazon Cognito's own API (utilisateurs.ts).
 *
 * Where the tokens live, and why (OWASP's advice for browser apps):
 * - the ID token, which the API takes, only in this module's memory, not even in the store's public
 *   state: nothing writes it to disk, and a script of another origin cannot read it;
 * - the refresh token in sessionStorage: reloading the tab keeps the user signed in, closing the tab
 *   ends the session; never in localStorage (it would outlive the tab and be shared by every tab),
 *   never in a cookie (sent with every request) and never in a URL (kept in history, logs, Referer).
 * What keeps either out of a foreign script's reach is the strict Content Security Policy (no inline
 * or third-party script). Signing out also revokes the refresh token at Cognito.
 * Neither token is ever logged.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { authentifier, operationsCompte, rafraichirJetons, revoquer } from './utilisateurs';

const CLE_RAFRAICHISSEMENT = 'retouche.session';
/** Refreshed this long before it expires, so that no call goes out with a token about to die. */
const MARGE_MS = 60_000;

/** An error's name: the SDK names Cognito's refusals after their exception (NotAuthorizedException…). */
export const nomErreur = (erreur: unknown): string => (erreur as { name?: unknown } | null)?.name?.toString() ?? '';

/** The claims the site uses, read from the ID token (the API verifies it; the site only reads it). */
const lireJeton = (jeton: string): { email: string | null; dureeMs: number } => {
  const charge = (jeton.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
  const octets = Uint8Array.from(atob(charge), (c) => c.charCodeAt(0));
  const valeurs = JSON.parse(new TextDecoder().decode(octets)) as { email?: string; exp: number; iat: number };
  // Its lifetime, not its end: the end is then counted on this computer's clock, which may be off by
  // an hour (a wrong time zone) and would otherwise see every token as expired, and refresh in a loop.
  const dureeMs = (valeurs.exp - valeurs.iat) * 1000;
  return { email: valeurs.email ?? null, dureeMs: Number.isFinite(dureeMs) && dureeMs > 0 ? dureeMs : MARGE_MS * 5 };
};
/** Never sooner than this between two refreshes, whatever a token says. */
const INTERVALLE_MIN_MS = 10_000;

/**
 * The ID token, in this module's memory only, with its end counted on this computer's clock from the token's
 * lifetime (lireJeton); and the refresh it calls for a minute ahead of that end, so that a tab left open stays
 * signed in, and no call waits for a refresh.
 */
const memoireJeton = (rafraichir: () => void) => {
  let jeton: string | null = null;
  let expiration = 0;
  let minuterie: ReturnType<typeof setTimeout> | undefined;
  return {
    garder: (valeur: string, dureeMs: number) => {
      jeton = valeur;
      expiration = Date.now() + dureeMs;
      clearTimeout(minuterie);
      minuterie = setTimeout(rafraichir, Math.max(INTERVALLE_MIN_MS, dureeMs - MARGE_MS));
    },
    oublier: () => {
      clearTimeout(minuterie);
      jeton = null;
      expiration = 0;
    },
    /** The token while it has more than `marge` ms to live; null otherwise. */
    lire: (marge = 0): string | null => (jeton && Date.now() < expiration - marge ? jeton : null),
    present: () => jeton !== null,
  };
};

/** `faire`, one at a time: whoever calls while it runs gets the same promise. */
const uneALaFois = <T>(faire: () => Promise<T>): (() => Promise<T>) => {
  let enCours: Promise<T> | undefined;
  return () =>
    (enCours ??= faire().finally(() => {
      enCours = undefined;
    }));
};

export const useSession = defineStore('session', () => {
  // Private to the store (not returned): the token is no part of the state any component or tool sees.
  const jeton = memoireJeton(() => void rafraichir());
  /** Bumped at each sign-out: a refresh answered after it must not sign the user back in. */
  let generation = 0;

  const connecte = ref(false);
  const email = ref<string | null>(null);
  /** The session ended without the user asking (Cognito or the API refused it): the sign-in page says so. */
  const interrompue = ref(false);

  const retenir = (idToken: string, refreshToken?: string) => {
    const claims = lireJeton(idToken);
    jeton.garder(idToken, claims.dureeMs);
    connecte.value = true;
    email.value = claims.email;
    interrompue.value = false;
    if (refreshToken) sessionStorage.setItem(CLE_RAFRAICHISSEMENT, refreshToken);
  };

  const oublier = (interrompre: boolean) => {
    generation += 1;
    jeton.oublier();
    connecte.value = false;
    email.value = null;
    interrompue.value = interrompre;
    sessionStorage.removeItem(CLE_RAFRAICHISSEMENT);
  };

  /** A new ID token from the tab's refresh token; false when there is none, or it failed. One at a time. */
  const rafraichir = uneALaFois(async (): Promise<boolean> => {
    const refreshToken = sessionStorage.getItem(CLE_RAFRAICHISSEMENT);
    if (!refreshToken) return false;
    const avant = generation;
    try {
      const jetons = await rafraichirJetons(refreshToken);
      if (avant !== generation || !jetons) return false;
      // A pool that rotates refresh tokens sends a new one; otherwise the tab's stays.
      retenir(jetons.IdToken, jetons.RefreshToken);
      return true;
    } catch (erreur) {
      // Only Cognito's refusal ends the session: a request cut short (the page left, the network
      // down a moment) must not forget a refresh token the tab still needs.
      if (nomErreur(erreur) === 'NotAuthorizedException' && avant === generation) oublier(true);
      return false;
    }
  });

  /** The ID token to send, refreshed when it is about to expire; null when there is no valid one. */
  const jetonValide = async (): Promise<string | null> => {
    const frais = jeton.lire(MARGE_MS);
    if (frais) return frais;
    await rafraichir();
    return jeton.lire();
  };

  /** After a reload: signed in again from the tab's refresh token, if it has one. */
  const reprendre = async (): Promise<void> => {
    if (!jeton.present() && sessionStorage.getItem(CLE_RAFRAICHISSEMENT)) await rafraichir();
  };

  const connecter = async (adresse: string, motDePasse: string): Promise<void> => {
    const jetons = await authentifier(adresse, motDePasse);
    retenir(jetons.IdToken, jetons.RefreshToken);
  };

  /** `interrompre`: the API refused the session, rather than the user leaving; the sign-in page says so. */
  const deconnecter = async (interrompre = false): Promise<void> => {
    const refreshToken = sessionStorage.getItem(CLE_RAFRAICHISSEMENT);
    oublier(interrompre);
    if (refreshToken) await revoquer(refreshToken);
  };

  return { connecte, email, interrompue, connecter, rafraichir, jetonValide, reprendre, deconnecter, ...operationsCompte };
});
