/**
 * Web sessions: the ID token Amazon Cognito gives a signed-in user of the web site, verified with
 * aws-jwt-verify (signature against the pool's JWKS, issuer, audience = the site's app client,
 * expiry) by every function a session may call; on AWS the API's Cognito authorizer checks the
 * /compte routes once more before they run.
 *
 * One code path for AWS and the local stack: on AWS the issuer is the user pool's https address and
 * the library fetches and caches its JWKS itself; the local Cognito emulator (local/cognito.ts) serves
 * its JWKS over http on 127.0.0.1, which the library will not fetch, so it is read here once and handed
 * to the verifier. Any other http issuer is refused. The local stack goes further and hands over the
 * keys themselves (`jwks`: its data folder's, local/cognito.ts), so that what the emulator serves is
 * never what decides.
 */
import { JwtVerifier } from 'aws-jwt-verify';
import { FetchError } from 'aws-jwt-verify/error';
import type { Jwks } from 'aws-jwt-verify/jwk';

export interface Session {
  /** The user's stable id in the pool (`sub`): what an account is linked to (core/depots/utilisateurs.ts). */
  utilisateur: string;
  email: string;
}

/** The session a token proves, or undefined for any token that is not a valid, current ID token of the site. */
export type VerifierSession = (jeton: string) => Promise<Session | undefined>;

export interface ConfigurationSessions {
  /** The pool's issuer: `https://cognito-idp.<region>.amazonaws.com/<pool id>` (locally the emulator's). */
  emetteur: string;
  /** The web site's app client id: the ID token's audience. */
  client: string;
  /** The only keys to verify with, given rather than fetched from the issuer (the local stack). */
  jwks?: Jwks;
}

const estBoucleLocale = (url: URL) => url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost');

export const verificateurSessions = (config: ConfigurationSessions): VerifierSession => {
  const emetteur = new URL(config.emetteur);
  if (emetteur.protocol !== 'https:' && !estBoucleLocale(emetteur)) throw new Error(`session issuer must be https (or the local emulator): ${config.emetteur}`);
  const jwksUri = `${config.emetteur}/.well-known/jwks.json`;
  const verificateur = JwtVerifier.create({
    issuer: config.emetteur,
    audience: config.client,
    jwksUri,
    // Only the ID token (an access token has no audience nor email). Cognito gives tokens to confirmed
    // users only, whose address was verified by the code; the account hangs on `sub`, not on the address.
    customJwtCheck: ({ payload }) => {
      if (payload.token_use !== 'id') throw new Error('not an ID token');
    },
  });
  if (config.jwks) verificateur.cacheJwks(config.jwks);
  let jwksLocal: Promise<void> | undefined;
  const chargerJwksLocal = () =>
    (jwksLocal ??= fetch(jwksUri)
      .then(async (r) => verificateur.cacheJwks((await r.json()) as Jwks))
      .catch((erreur: unknown) => {
        jwksLocal = undefined;
        throw erreur;
      }));

  return async (jeton) => {
    if (!config.jwks && estBoucleLocale(emetteur)) await chargerJwksLocal();
    try {
      // Given keys are all there is: a token of another key is refused, never a reason to fetch.
      const charge = config.jwks ? verificateur.verifySync(jeton) : await verificateur.verify(jeton);
      if (typeof charge.sub !== 'string' || typeof charge.email !== 'string') return undefined;
      return { utilisateur: charge.sub, email: charge.email };
    } catch (erreur) {
      // The pool's keys out of reach is our failure (500), not the caller's token.
      if (erreur instanceof FetchError) throw erreur;
      return undefined;
    }
  };
};

/** The verifier the environment configures (RETOUCHE_SESSION_EMETTEUR, RETOUCHE_SESSION_CLIENT), if any. */
export const sessionsDepuisEnv = (env: NodeJS.ProcessEnv): VerifierSession | undefined =>
  env.RETOUCHE_SESSION_EMETTEUR && env.RETOUCHE_SESSION_CLIENT
    ? verificateurSessions({ emetteur: env.RETOUCHE_SESSION_EMETTEUR, client: env.RETOUCHE_SESSION_CLIENT })
    : undefined;
