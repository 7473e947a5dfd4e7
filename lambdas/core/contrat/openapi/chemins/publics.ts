/**
 * The paths a client reads before it has a key, or to know its balance: GET /outils, GET /openapi.json
 * (both public) and GET /solde. Small enough to share a module.
 */
import { CATALOGUE, OUTILS } from '../../../modele/outils';
import { json, limite, nonAutorise } from '../commun';

export const cheminOutils = () => ({
  get: {
    operationId: 'listerOutils',
    security: [],
    summary: 'The tools',
    responses: {
      200: json('Outils', 'The tool catalogue, and whether this stage runs the preview engine.', {
        catalogue: { value: { outils: OUTILS.map((id) => CATALOGUE[id]), apercu: false } },
      }),
      429: limite,
    },
  },
});

export const cheminSolde = () => ({
  get: {
    operationId: 'lireSolde',
    summary: 'Credit balance',
    responses: { 200: json('Solde', 'Balance', { solde: { value: { credits: 100 } } }), 401: nonAutorise, 429: limite },
  },
});

export const cheminOpenApi = () => ({
  get: {
    operationId: 'lireOpenApi',
    security: [],
    summary: 'This document',
    responses: {
      200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
      429: limite,
    },
  },
});
