/**
 * GET /outils — the tool catalogue of this stage (all tools, unless the stage withdrew some, at its prices), public, and
 * whether its live jobs run the preview engine (the studio says so before anyone pays for a job).
 */
import { apercuDeLaPile, catalogueDeLaPile } from '../core/modele/outils';
import { reponseJson, routePublique } from './adaptateur';

export const creer = (env: NodeJS.ProcessEnv = process.env) => {
  const corps = { outils: catalogueDeLaPile(env), apercu: apercuDeLaPile(env) };
  return routePublique(async () => reponseJson(200, corps, { 'Cache-Control': 'public, max-age=300' }));
};
export const handler = creer();
