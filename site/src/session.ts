/**
 * The signed-in user, with Amazon Cognito's own API (the AWS SDK, loaded only when a page needs it).
 *
 * Where the tokens live, as OWASP's guidance for browser apps advises: the ID token, which the API
 * takes, only in this store's memory (no script of another origin can read it, and nothing writes it
 * to disk); the refresh token in sessionStorage, so that reloading the tab keeps the user signed in,
 * while closing it ends the session; neither ever in localStorage, a cookie or a URL. The strict CSP
 * (no inline or foreign script) is what keeps either out of another script's reach. Signing out
 * revokes the refresh token at Cognito.
 */
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { lireConfiguration } from './config';

const CLE_RAFRAICHISSEMENT = 'retouche.session';
/** Refreshed this long before it expires, so that no call goes out with a token about to die. */
const MARGE_MS = 60_000;

let client: Promise<{ sdk: typeof import('@aws-sdk/client-cognito-identity-provider'); client: CognitoIdentityProviderClient; id: string }> | undefined;
const cognito = () =>
  (client ??= (async () => {
    const [sdk, config] = await Promise.all([import('@aws-sdk/client-cognito-identity-provider'), lireConfiguration()]);
    const { region, endpoint, client: id } = config.cognito;
    return {
      sdk,
      id,
      // The local emulator wants some credentials on its requests; Cognito's public operations need none.
      client: new sdk.CognitoIdentityProviderClient({
        region,
        ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
      }),
    };
  })());

/** The claims the pages show, read from the ID token (verified by the API, not here). */
const lireJeton = (jeton: string): { email: string; exp: number } => {
  const charge = jeton.split('.')[1] ?? '';
  const json = atob(charge.replace(/-/g, '+').replace(/_/g, '/'));
  const valeurs = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as { email: string; exp: number };
  return { email: valeurs.email, exp: valeurs.exp };
};

export const useSession = defineStore('session', () => {
  const jeton = ref<string | null>(null);
  const expiration = ref(0);
  const email = ref<string | null>(null);
  const connecte = computed(() => jeton.value !== null);

  const retenir = (idToken: string, rafraichissement?: string) => {
    const claims = lireJeton(idToken);
    jeton.value = idToken;
    expiration.value = claims.exp * 1000;
    email.value = claims.email;
    if (rafraichissement) sessionStorage.setItem(CLE_RAFRAICHISSEMENT, JSON.stringify({ email: claims.email, jeton: rafraichissement }));
  };

  const oublier = () => {
    jeton.value = null;
    expiration.value = 0;
    email.value = null;
    sessionStorage.removeItem(CLE_RAFRAICHISSEMENT);
  };

  const connecter = async (adresse: string, motDePasse: string): Promise<void> => {
    const { sdk, client: c, id } = await cognito();
    const r = await c.send(
      new sdk.InitiateAuthCommand({ ClientId: id, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: adresse, PASSWORD: motDePasse } }),
    );
    const resultat = r.AuthenticationResult;
    if (!resultat?.IdToken) throw Object.assign(new Error('challenge'), { name: r.ChallengeName ?? 'NotAuthorizedException' });
    retenir(resultat.IdToken, resultat.RefreshToken);
  };

  /** A new ID token from the refresh token; false when there is none, or it no longer works. */
  const rafraichir = async (): Promise<boolean> => {
    const garde = sessionStorage.getItem(CLE_RAFRAICHISSEMENT);
    if (!garde) return false;
    try {
      const { jeton: rafraichissement } = JSON.parse(garde) as { email: string; jeton: string };
      const { sdk, client: c, id } = await cognito();
      const r = await c.send(
        new sdk.InitiateAuthCommand({ ClientId: id, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: rafraichissement } }),
      );
      if (!r.AuthenticationResult?.IdToken) return false;
      retenir(r.AuthenticationResult.IdToken);
      return true;
    } catch (erreur) {
      // Only Cognito's refusal ends the session: a request cut short (the page left, the network down)
      // must not forget a refresh token that the next page of this tab still needs.
      if ((erreur as { name?: string }).name === 'NotAuthorizedException') oublier();
      return false;
    }
  };

  /** The ID token to send, refreshed when it is about to expire; null when signed out. */
  const jetonValide = async (): Promise<string | null> => {
    if (jeton.value && Date.now() < expiration.value - MARGE_MS) return jeton.value;
    if (await rafraichir()) return jeton.value;
    if (jeton.value) oublier();
    return null;
  };

  /** After a reload: signed in again from the tab's refresh token, if it has one. */
  const reprendre = async (): Promise<void> => {
    if (!jeton.value && sessionStorage.getItem(CLE_RAFRAICHISSEMENT)) await rafraichir();
  };

  const deconnecter = async (): Promise<void> => {
    const garde = sessionStorage.getItem(CLE_RAFRAICHISSEMENT);
    oublier();
    if (!garde) return;
    try {
      const { sdk, client: c, id } = await cognito();
      await c.send(new sdk.RevokeTokenCommand({ ClientId: id, Token: (JSON.parse(garde) as { jeton: string }).jeton }));
    } catch {
      // Revocation is a courtesy: the token is already forgotten here.
    }
  };

  const inscrire = async (adresse: string, motDePasse: string): Promise<void> => {
    const { sdk, client: c, id } = await cognito();
    await c.send(new sdk.SignUpCommand({ ClientId: id, Username: adresse, Password: motDePasse, UserAttributes: [{ Name: 'email', Value: adresse }] }));
  };

  const confirmer = async (adresse: string, code: string): Promise<void> => {
    const { sdk, client: c, id } = await cognito();
    await c.send(new sdk.ConfirmSignUpCommand({ ClientId: id, Username: adresse, ConfirmationCode: code.trim() }));
  };

  const renvoyerCode = async (adresse: string): Promise<void> => {
    const { sdk, client: c, id } = await cognito();
    await c.send(new sdk.ResendConfirmationCodeCommand({ ClientId: id, Username: adresse }));
  };

  const oubliMotDePasse = async (adresse: string): Promise<void> => {
    const { sdk, client: c, id } = await cognito();
    await c.send(new sdk.ForgotPasswordCommand({ ClientId: id, Username: adresse }));
  };

  const nouveauMotDePasse = async (adresse: string, code: string, motDePasse: string): Promise<void> => {
    const { sdk, client: c, id } = await cognito();
    await c.send(new sdk.ConfirmForgotPasswordCommand({ ClientId: id, Username: adresse, ConfirmationCode: code.trim(), Password: motDePasse }));
  };

  return { email, connecte, connecter, rafraichir, jetonValide, reprendre, deconnecter, inscrire, confirmer, renvoyerCode, oubliMotDePasse, nouveauMotDePasse };
});

/** Cognito's error names, as the pages word them (i18n keys under `erreurs.`). */
export const cleErreur = (erreur: unknown): string => {
  const nom = (erreur as { name?: string } | undefined)?.name ?? '';
  const connues = [
    'UsernameExistsException',
    'CodeMismatchException',
    'ExpiredCodeException',
    'NotAuthorizedException',
    'UserNotConfirmedException',
    'InvalidPasswordException',
    'LimitExceededException',
    'TooManyRequestsException',
    'UserNotFoundException',
    'InvalidParameterException',
  ];
  return connues.includes(nom) ? `erreurs.${nom}` : 'erreurs.inconnue';
};
