/** GET /openapi.json — the OpenAPI 3.1 document, generated from the same schemas that validate. */
import { documentOpenApi } from '../core/contrat/openapi/document';
import { reponseJson, routePublique } from './adaptateur';

export const creer = () => {
  const document = documentOpenApi();
  return routePublique(async () => reponseJson(200, document, { 'Cache-Control': 'public, max-age=300' }));
};
export const handler = creer();
