/** GET /outils — the tool catalogue, public. */
import { CATALOGUE, OUTILS } from '../core/outils';
import { reponseJson, routePublique } from './adaptateur';

const corps = { outils: OUTILS.map((id) => CATALOGUE[id]) };

export const creer = () => routePublique(async () => reponseJson(200, corps, { 'Cache-Control': 'public, max-age=300' }));
export const handler = creer();
