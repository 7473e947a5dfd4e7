/**
 * The user pool's operations the site calls, on Amazon Cognito's own API: all public ones (the SDK signs none of
 * them, which is also why the emulator, locally, needs no credentials). The SDK is loaded on first need
 * (./cognito.ts): pages that never touch an account never download it. The tokens these return are session.ts's
 * to keep; nothing here stores or logs one.
 */
import { lireConfiguration } from './config';

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
    const client = new sdk.CognitoIdentityProviderClient({ region, ...(endpoint ? { endpoint } : {}) });
    return { sdk, client, id };
  })().catch((erreur: unknown) => {
    chargement = undefined;
    throw erreur;
  }));

export interface Jetons {
  IdToken: string;
  /** Only when a pool rotates it, on a refresh; always on a sign-in. */
  RefreshToken?: string;
}

export const authentifier = async (adresse: string, motDePasse: string): Promise<Jetons> => {
  const { sdk, client, id } = await cognito();
  const r = await client.send(
    new sdk.InitiateAuthCommand({ ClientId: id, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: adresse, PASSWORD: motDePasse } }),
  );
  const resultat = r.AuthenticationResult;
  // A challenge (an authenticator app's code, a new password) is not something this site asks for yet.
  if (!resultat?.IdToken) throw Object.assign(new Error(r.ChallengeName ?? 'challenge'), { name: 'ChallengeNonGere' });
  return { IdToken: resultat.IdToken, RefreshToken: resultat.RefreshToken };
};

/** A new ID token for a refresh token; null when Cognito answered without one. */
export const rafraichirJetons = async (refreshToken: string): Promise<Jetons | null> => {
  const { sdk, client, id } = await cognito();
  const r = await client.send(new sdk.InitiateAuthCommand({ ClientId: id, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } }));
  const resultat = r.AuthenticationResult;
  return resultat?.IdToken ? { IdToken: resultat.IdToken, RefreshToken: resultat.RefreshToken } : null;
};

export const revoquer = async (refreshToken: string): Promise<void> => {
  try {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.RevokeTokenCommand({ ClientId: id, Token: refreshToken }));
  } catch {
    // Revocation is a courtesy to the user: the token is already forgotten by the session.
  }
};

/** An account's own steps, which change no session: sign-up, its code, a forgotten password. */
export const operationsCompte = {
  /** True when the pool confirmed the user at once (no code to enter). */
  inscrire: async (adresse: string, motDePasse: string): Promise<boolean> => {
    const { sdk, client, id } = await cognito();
    const r = await client.send(
      new sdk.SignUpCommand({ ClientId: id, Username: adresse, Password: motDePasse, UserAttributes: [{ Name: 'email', Value: adresse }] }),
    );
    return r.UserConfirmed === true;
  },
  confirmer: async (adresse: string, code: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ConfirmSignUpCommand({ ClientId: id, Username: adresse, ConfirmationCode: code }));
  },
  renvoyerCode: async (adresse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ResendConfirmationCodeCommand({ ClientId: id, Username: adresse }));
  },
  oubliMotDePasse: async (adresse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ForgotPasswordCommand({ ClientId: id, Username: adresse }));
  },
  nouveauMotDePasse: async (adresse: string, code: string, motDePasse: string): Promise<void> => {
    const { sdk, client, id } = await cognito();
    await client.send(new sdk.ConfirmForgotPasswordCommand({ ClientId: id, Username: adresse, ConfirmationCode: code, Password: motDePasse }));
  },
};
