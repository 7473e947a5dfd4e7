/**
 * The web site's API page in the OpenAPI document: the account's API keys, listed, made and revoked
 * with a session only, so that a leaked key cannot make more keys.
 */
import type * as v from 'valibot';
import { lireNouvelleCle } from '../../compte';
import { ErreurApi } from '../../../modele/erreurs';
import { erreur, interditAUneCle, json, limiteSession, nonAutoriseSession, SECURITE_SESSION } from '../commun';
import { exempleErreur } from '../exemples';
import type { SchemaCle, SchemaCleCreee } from '../schemas-compte';

const CLE_EXEMPLE = 'rtch_AbCd9Qm3vXw2Lk8pRt5yZn1bHs7eUf4gJc6iOa0dTqV';
const cleLive: v.InferOutput<typeof SchemaCle> = {
  id: '5b1e0f2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f',
  nom: 'CRM export',
  apercu: CLE_EXEMPLE.slice(0, 9),
  cree_le: '2026-01-01T09:10:00.000Z',
  utilisee_le: '2026-01-02T08:41:00.000Z',
  test: false,
};
const cleTest: v.InferOutput<typeof SchemaCle> = {
  id: 'c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3',
  nom: 'Staging',
  apercu: 'rtch_test_Xy9Z',
  cree_le: '2026-01-01T09:20:00.000Z',
  utilisee_le: null,
  test: true,
};
const cleCreee: v.InferOutput<typeof SchemaCleCreee> = { ...cleLive, utilisee_le: null, cle: CLE_EXEMPLE };

/** The 400 is the one `lireNouvelleCle` throws for that body, so its message and `details` are the service's own. */
const nomVide = (): Record<string, unknown> => {
  try {
    lireNouvelleCle('application/json', Buffer.from('{"nom":" "}'));
  } catch (e) {
    if (e instanceof ErreurApi) return { summary: 'An empty name', ...exempleErreur(e) };
  }
  throw new Error('the 400 example body was accepted');
};

export const cheminCles = () => ({
  get: {
    operationId: 'listerCles',
    security: SECURITE_SESSION,
    summary: "The account's API keys (web site)",
    description: 'Active keys, newest first, never the keys themselves.',
    responses: {
      200: json('ListeCles', 'The keys.', { cles: { value: { cles: [cleTest, cleLive] } } }),
      401: nonAutoriseSession,
      403: interditAUneCle,
      429: limiteSession,
    },
  },
  post: {
    operationId: 'creerCle',
    security: SECURITE_SESSION,
    summary: 'A new API key, shown once (web site)',
    description:
      'A named key, live, or with "test": true a test key (rtch_test_…: free jobs on the preview engine, kept apart from live ones). The key itself is in this answer and never again. At most 5 active keys per account.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/RequeteCle' },
          examples: { live: { value: { nom: 'CRM export' } }, test: { value: { nom: 'Staging', test: true } } },
        },
      },
    },
    responses: {
      201: json('CleCreee', 'Made: the key is in this answer and nowhere else.', { cle: { value: cleCreee } }),
      400: erreur('A bad name: error.details says why.', { nom: nomVide() }),
      401: nonAutoriseSession,
      403: interditAUneCle,
      409: erreur('The account has 5 active keys already (too_many_keys): revoke one first.', {
        plein: exempleErreur(
          new ErreurApi('too_many_keys', 'An account has at most 5 API keys, and this one has 5: revoke one you no longer use, then create this one.', {
            max: 5,
          }),
        ),
      }),
      415: erreur('Content-Type is not application/json.'),
      429: limiteSession,
    },
  },
});

export const cheminCle = () => ({
  delete: {
    operationId: 'revoquerCle',
    security: SECURITE_SESSION,
    summary: 'Revoke an API key (web site)',
    description: 'At once: its next request is a 401.',
    parameters: [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Id of the key (its SHA-256, as GET /compte/cles gives it).',
        schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
    ],
    responses: {
      204: { description: 'Revoked.' },
      401: nonAutoriseSession,
      403: interditAUneCle,
      404: erreur('Not an active key of this account.', {
        introuvable: exempleErreur(new ErreurApi('not_found', `No active API key ${cleLive.id} in this account.`)),
      }),
      429: limiteSession,
    },
  },
});
