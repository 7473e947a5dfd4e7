/** GET /outils — the tool catalogue of this stage (all tools, unless the stage withdrew some), public. */
import { CATALOGUE, outilsOfferts } from '../core/modele/outils';
import { reponseJson, routePublique } from './adaptateur';

export const creer = (env: NodeJS.ProcessEnv = process.env) => {
  const corps = { outils: outilsOfferts(env).map((id) => CATALOGUE[id]) };
  return routePublique(async () => reponseJson(200, corps, { 'Cache-Control': 'public, max-age=300' }));
};
export const handler = creer();
