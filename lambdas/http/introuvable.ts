/**
 * Unknown routes and methods. On AWS it sits behind `ANY /{proxy+}` and `ANY` on each resource
 * (explicit methods win), so the gateway never answers its own 403 "Missing Authentication Token".
 *
 * Every answer says where to go instead: a route's path without the base path, or with a trailing
 * slash, names the route; `/` and the base path itself point to the tools and the OpenAPI document
 * (until the web site is there). A 405 only ever lists methods other than the one used: a method the
 * path accepts never reaches this handler but through a spelling the router does not take.
 */
import { ErreurApi } from '../core/modele/erreurs';
import { routePublique } from './adaptateur';
import { BASE_CHEMIN, motifChemin, ROUTES } from './routes';

const MOTIFS = ROUTES.map((route) => ({ route, motif: motifChemin(route.chemin, true) }));

/** The methods of the routes whose path (relative to the base path) is `chemin`, trailing slash or not. */
const methodesDe = (chemin: string) => [...new Set(MOTIFS.filter((m) => m.motif.test(chemin)).map((m) => m.route.methode))];

const SOMMAIRE = `GET ${BASE_CHEMIN}/outils lists the tools, GET ${BASE_CHEMIN}/openapi.json describes every route`;

export const creer = () =>
  routePublique(async (event) => {
    const { httpMethod: methode, path: chemin } = event;
    const sansBarre = chemin.replace(/\/+$/, '');
    if (sansBarre === '' || sansBarre === BASE_CHEMIN)
      throw new ErreurApi('not_found', `Nothing is served at ${chemin}: the API's routes are under ${BASE_CHEMIN} (${SOMMAIRE}).`);
    if (!chemin.startsWith(`${BASE_CHEMIN}/`)) {
      const indice = methodesDe(chemin).length ? `: the API's routes are under ${BASE_CHEMIN}, as in ${methode} ${BASE_CHEMIN}${sansBarre}` : ` (${SOMMAIRE})`;
      throw new ErreurApi('not_found', `No route ${methode} ${chemin}${indice}.`);
    }
    const methodes = methodesDe(chemin.slice(BASE_CHEMIN.length));
    if ((methodes as string[]).includes(methode))
      throw new ErreurApi('not_found', `No route ${methode} ${chemin}: without the trailing slash, ${methode} ${sansBarre}.`);
    if (methodes.length > 0)
      throw new ErreurApi('method_not_allowed', `${methode} is not allowed on ${chemin}.`, { allow: methodes }, { Allow: methodes.join(', ') });
    throw new ErreurApi('not_found', `No route ${methode} ${chemin} (${SOMMAIRE}).`);
  });
export const handler = creer();
