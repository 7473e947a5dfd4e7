/**
 * What every path of the OpenAPI document is written with: the components made from the valibot
 * schemas, and the answers many operations share (a JSON body by reference, the error answers, the
 * rate limit), so that a status means the same thing, in the same words, on every path.
 */
import { toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ErreurApi } from '../../modele/erreurs';
import { EXEMPLES_ERREUR, exempleErreur } from './exemples';
import type { Json } from './schemas';

/**
 * Named components, each `$ref`ing the others it holds (a schema of `definitions` used inside another).
 * `references`: components made elsewhere that these may hold too (a `$ref`, not a copy); not returned.
 */
export const composants = (definitions: Record<string, v.GenericSchema>, references: Record<string, v.GenericSchema> = {}): Json => {
  const tous = toJsonSchemaDefs(
    { ...references, ...definitions },
    {
      target: 'draft-2020-12',
      errorMode: 'ignore',
      overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
    },
  ) as Json;
  return Object.fromEntries(Object.keys(definitions).map((nom) => [nom, tous[nom]]));
};

/**
 * Moves each `default` into its description: a request member left out stays optional (see `requete`).
 * Only a word or a flag is worth a sentence; an empty `valeurs: {}` says nothing a reader needs.
 */
const sansDefauts = (noeud: unknown): void => {
  if (Array.isArray(noeud)) return noeud.forEach(sansDefauts);
  if (!noeud || typeof noeud !== 'object') return;
  const objet = noeud as Json;
  if ('default' in objet) {
    const defaut = objet.default;
    delete objet.default;
    if (typeof defaut === 'string' || typeof defaut === 'boolean') {
      const description = typeof objet.description === 'string' ? `${objet.description} ` : '';
      objet.description = `${description}Default: ${JSON.stringify(defaut)}.`;
    }
  }
  Object.values(objet).forEach(sansDefauts);
};

/**
 * A request schema for generators. `default` says what the service applies to a member left out, but
 * openapi-typescript (option defaultNonNullable, on by default) reads a member with a `default` in a
 * component schema as always present and makes it required: `{"outil":"ciel","images":[…]}` would not
 * compile for want of `valeurs`. So defaults are moved into the description, where a reader still
 * finds them (and `GET /outils` gives them as `defaut`); the member stays optional, as it is.
 */
export const requete = (s: v.GenericSchema): Json => {
  const { $schema: _ignore, ...reste } = toJsonSchema(s, { target: 'draft-2020-12', errorMode: 'ignore' }) as Json;
  sansDefauts(reste);
  return reste;
};

export const corpsJson = (ref: string, exemples?: Record<string, unknown>) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${ref}` }, ...(exemples ? { examples: exemples } : {}) },
});
export const erreur = (description: string, exemples?: Record<string, unknown>) => ({ description, content: corpsJson('Erreur', exemples) });
export const json = (ref: string, description: string, exemples?: Record<string, unknown>) => ({ description, content: corpsJson(ref, exemples) });
export const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } };
export const limite = {
  description: 'Rate limited (120 requests per minute per key) or too many pending jobs (50 per account).',
  headers: retryAfter,
  content: corpsJson('Erreur', EXEMPLES_ERREUR[429]),
};
export const nonAutorise = {
  description: 'Missing or invalid API key.',
  headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer, as RFC 6750 asks.' } },
  content: corpsJson('Erreur', EXEMPLES_ERREUR[401]),
};
export const idChemin = (quoi: string) => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `Id of the ${quoi}.`,
  schema: { type: 'string', format: 'uuid' },
});

// ——— The web site's own routes (/compte…): a session, never a key ———

/** What the operations of the web site's routes require instead of the document's default, an API key. */
export const SECURITE_SESSION = [{ session: [] }];
export const nonAutoriseSession = {
  description:
    'Missing, invalid or expired session; on every route but GET /compte, also a user who has not opened the account page yet (GET /compte creates the account).',
  headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer, as RFC 6750 asks.' } },
  content: corpsJson('Erreur', { session: exempleErreur(new ErreurApi('unauthorized', 'Invalid or expired session: sign in to the web site again.')) }),
};
export const interditAUneCle = erreur('An API key (forbidden): these routes take a web session only, so a leaked key cannot make more keys.', {
  cle: exempleErreur(new ErreurApi('forbidden', "This route is the web site's: sign in there. An API key cannot manage keys or see the account's movements.")),
});
export const limiteSession = {
  description: 'Rate limited (120 requests per minute per signed-in user).',
  headers: retryAfter,
  content: corpsJson('Erreur', EXEMPLES_ERREUR[429]),
};
