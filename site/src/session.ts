/**
 * The signed-in user, with Amazon Cognito's own API (the AWS SDK, loaded on first need: ./cognito.ts).
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
import { lireConfiguration } from './config';

const CLE_RAFRAICHISSEMENT = 'retouche.session';
/** Refreshed this long before it expires, so that no call goes out with a token about to die. */
const MARGE_MS = 60_000;

type Sdk = typeof import('./cognito');
interface Cognito {
  sdk: Sdk;
  client: InstanceType<Sdk['CognitoIdentityProviderClient']>;
  id: string;
}

let chargement: Promise<Cognito> | undefined;
const cognito = (): Promise<Cognito> =>
  (chargement ??= (async () => {
    const [sdk, config] = await Promise.all([import('./cognito'), lireConfiguration()]);
    const { region, endpoint, client: id } = config.cognito;
    const client = new sdk.CognitoIdentityProviderClient({
      region,
      // No credentials: the operations used here are public ones (the SDK signs none of them), which is
      // also why the emulator, locally, needs none.
      ...(endpoint ? { endpoint } : {}),
    });
    return { sdk, client, id };
  })().catch((erreur: unknown) => {
    chargement = undefined;
    throw erreur;
  }));

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

export const useSession = defineStore('session', () => {
  // Private to the store (not returned): the token is no part of the state any component or tool sees.
  let jeton: string | null = null;
  let expiration = 0;
  let minuterie: ReturnType<typeof setTimeout> | undefined;
  let rafraichissement: Promise<boolean> | undefined;
  /** Bumped at each sign-out: a refresh answered after it must not sign the user back in. */
  let generation = 0;

  const connecte = ref(false);
  const email = ref<string | null>(null);
  /** The session ended without the user asking (Cognito or the API refused it): the sign-in page says so. */
  const interrompue = ref(false);

  const retenir = (idToken: string, refreshToken?: string) => {
    const claims = lireJeton(idToken);
    jeton = idToken;
    expiration = Date.now() + claims.dureeMs;
    connecte.value = true;
    email.value = claims.email;
    interrompue.value = false;
    if (refreshToken) sessionStorage.setItem(CLE_RAFRAICHISSEMENT, refreshToken);
    clearTimeout(minuterie);
    // A minute ahead, so that a tab left open stays signed in, and no call waits for a refresh.
    minuterie = setTimeout(() => void rafraichir(), Math.max(INTERVALLE_MIN_MS, claims.dureeMs - MARGE_MS));
  };

  const oublier = (interrompre: boolean) => {
    generation += 1;
    clearTimeout(minuterie);
    jeton = null;
    expiration = 0;
    connecte.value = false;
    email.value = null;
    interrompue.value = interrompre;
    sessionStorage.removeItem(CLE_RAFRAICHISSEMENT);
  };

  /** A new ID token from the tab's refresh token; false when there is none, or it failed. One at a time. */
  const rafraichir = (): Promise<boolean> =>
    (rafraichissement ??= (async () => {
      const refreshToken = sessionStorage.getItem(CLE_RAFRAICHISSEMENT);
      if (!refreshToken) return false;
      const avant = generation;
      try {
        const { sdk, client, id } = await cognito();
        const r = await client.send(
          new sdk.InitiateAuthCommand({ ClientId: id, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } }),
        );
        if (avant !== generation || !r.AuthenticationResult?.IdToken) return false;
        // A pool that rotates refresh tokens sends a new one; otherwise the tab's stays.
        retenir(r.AuthenticationResult.IdToken, r.AuthenticationResult.RefreshToken);
        return true;
      } catch (erreur) {
        // Only Cognito's refusal ends the session: a request cut short (the page left, the network
        // down a moment) must not forget a refresh token the tab still needs.
        if (nomErreur(erreur) === 'NotAuthorizedException' && avant === generation) oublier(true);
        return false;
      }
    })().finally(() => {
      rafraichissement = undefined;
    }));

  /** The ID token to send, refreshed when it is about to expire; null when there is no valid one. */
  const jetonValide = async (): Promise<string | null> => {
    if (jeton && Date.now() < expiration - MARGE_MS) return jeton;
    await rafraichir();
    return jeton && Date.now() < expiration ? jeton : null;
  };

  /** After a reload: signed in again from the tab's refresh token, if it has one. */
  const reprendre = async (): Promise<void> => {
    if (!jeton && sessionStorage.getItem(CLE_RAFRAICHISSEMENT)) await rafraichir();
  };

  const connecter = async (adresse: string, motDePasse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    const r = await client.send(
      new sdk.InitiateAuthCommand({ ClientId: id, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: adresse, PASSWORD: motDePasse } }),
    );
    const resultat = r.AuthenticationResult;
    // A challenge (an authenticator app's code, a new password) is not something this site asks for yet.
    if (!resultat?.IdToken) throw Object.assign(new Error(r.ChallengeName ?? 'challenge'), { name: 'ChallengeNonGere' });
    retenir(resultat.IdToken, resultat.RefreshToken);
  };

  /** `interrompre`: the API refused the session, rather than the user leaving; the sign-in page says so. */
  const deconnecter = async (interrompre = false): Promise<void> => {
    const refreshToken = sessionStorage.getItem(CLE_RAFRAICHISSEMENT);
    oublier(interrompre);
    if (!refreshToken) return;
    try {
      const { sdk, client, id } = await cognito();
      await client.send(new sdk.RevokeTokenCommand({ ClientId: id, Token: refreshToken }));
    } catch {
      // Revocation is a courtesy to the user: the token is already forgotten here.
    }
  };

  /** True when the pool confirmed the user at once (no code to enter). */
  const inscrire = async (adresse: string, motDePasse: string): Promise<boolean> => {
    const { sdk, client, id } = await cognito();
    const r = await client.send(
      new sdk.SignUpCommand({ ClientId: id, Username: adresse, Password: motDePasse, UserAttributes: [{ Name: 'email', Value: adresse }] }),
    );
    return r.UserConfirmed === true;
  };

  const confirmer = async (adresse: string, code: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ConfirmSignUpCommand({ ClientId: id, Username: adresse, ConfirmationCode: code }));
  };

  const renvoyerCode = async (adresse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ResendConfirmationCodeCommand({ ClientId: id, Username: adresse }));
  };

  const oubliMotDePasse = async (adresse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ForgotPasswordCommand({ ClientId: id, Username: adresse }));
  };

  const nouveauMotDePasse = async (adresse: string, code: string, motDePasse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ConfirmForgotPasswordCommand({ ClientId: id, Username: adresse, ConfirmationCode: code, Password: motDePasse }));
  };

  return {
    connecte,
    email,
    interrompue,
    connecter,
    rafraichir,
    jetonValide,
    reprendre,
    deconnecter,
    inscrire,
    confirmer,
    renvoyerCode,
    oubliMotDePasse,
    nouveauMotDePasse,
  };
});
