/**
 * The web site's account page in the OpenAPI document: GET /compte and GET /compte/mouvements. They take
 * the signed-in user's session, never an API key, and are described so that the site's types are
 * generated from the document (clients/sdk/src/schema.ts) rather than written again by hand.
 */
import type * as v from 'valibot';
import { ErreurApi } from '../../../modele/erreurs';
import { erreur, interditAUneCle, json, limiteSession, nonAutoriseSession, SECURITE_SESSION } from '../commun';
import { exempleErreur, ID_LOT, ID_TRAVAIL } from '../exemples';
import type { SchemaCompte, SchemaListeMouvements } from '../schemas-compte';

const ID_COMPTE = '0e9d8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b';
const EMAIL = 'agent@example.com';

const compteAvecPacks: v.InferOutput<typeof SchemaCompte> = {
  id: ID_COMPTE,
  email: EMAIL,
  credits: 108,
  travaux_ouverts: 1,
  cles: { actives: 2, max: 5 },
  cree_le: '2026-01-01T09:00:00.000Z',
  achats: {
    packs: [
      {
        id: 'plink_1QaBcDeFgHiJ',
        credits: 100,
        prix: '49 €',
        url: `https://buy.stripe.com/aEU5kD0pQ?client_reference_id=${ID_COMPTE}&prefilled_email=agent%40example.com`,
      },
    ],
  },
  contact_credits: null,
};
const compteSansPacks: v.InferOutput<typeof SchemaCompte> = { ...compteAvecPacks, achats: null, contact_credits: { lien: 'mailto:sales@example.com' } };

const mouvements: v.InferOutput<typeof SchemaListeMouvements> = {
  credits: 108,
  mouvements: [
    { date: '2026-01-01T10:00:07.950Z', type: 'remboursement', credits: 2, travail: ID_TRAVAIL, lot: null, outil: 'ciel', efface: false },
    { date: '2026-01-01T10:00:00.000Z', type: 'debit', credits: -2, travail: ID_TRAVAIL, lot: null, outil: 'ciel', efface: false },
    { date: '2026-01-01T09:50:00.000Z', type: 'debit', credits: -10, travail: null, lot: null, outil: 'staging', efface: true },
    {
      date: '2026-01-01T09:40:00.000Z',
      type: 'debit',
      credits: -5,
      travail: '7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e80',
      lot: ID_LOT,
      outil: 'staging',
      efface: false,
    },
    { date: '2026-01-01T09:05:00.000Z', type: 'achat', credits: 100, travail: null, lot: null, outil: null, efface: false },
  ],
};

export const cheminCompte = () => ({
  get: {
    operationId: 'lireCompte',
    security: SECURITE_SESSION,
    summary: "The signed-in user's account (web site)",
    description:
      "The web site's account page: the balance, jobs not yet ended, keys against their limit, and how to get credits (the stage's packs, or its operator's contact). A user's first call creates their account, with the stage's sign-up credits; until then the other routes answer them 401.",
    responses: {
      200: json('Compte', 'The account.', {
        packs: { summary: 'A stage that sells packs of credits', value: compteAvecPacks },
        contact: { summary: 'A stage that sells none: ask its operator', value: compteSansPacks },
      }),
      401: nonAutoriseSession,
      403: interditAUneCle,
      429: limiteSession,
    },
  },
});

export const cheminMouvements = () => ({
  get: {
    operationId: 'listerMouvements',
    security: SECURITE_SESSION,
    summary: "The balance's movements (web site)",
    description:
      "Newest first: each job's debit, and its refund when it failed (dated by the job's end); the credits added (a purchase, the sign-up's, an operator's) and taken back (a purchase refunded or disputed, an operator's removal). A job's movements go with the job after its retention; when it is erased they stay, anonymous (efface), so the movements still add up to the balance.",
    parameters: [
      { name: 'limite', in: 'query', description: 'How many movements, at most.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    ],
    responses: {
      200: json('ListeMouvements', 'The balance and its movements.', { mouvements: { value: mouvements } }),
      400: erreur('Invalid query parameter.', {
        limite: exempleErreur(new ErreurApi('invalid_parameter', 'limite must be a whole number from 1 to 100.', { parametre: 'limite' })),
      }),
      401: nonAutoriseSession,
      403: interditAUneCle,
      429: limiteSession,
    },
  },
});
