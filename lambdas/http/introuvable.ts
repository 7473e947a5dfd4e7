/**
 * Unknown routes and methods. On AWS it sits behind `ANY /{proxy+}` and `ANY` on each resource
 * (explicit methods win), so the gateway never answers its own 403 "Missing Authentication Token".
 */
import { ErreurApi } from '../core/modele/erreurs';
import { routePublique } from './adaptateur';
import { BASE_CHEMIN, ROUTES } from './routes';

const motif = (chemin: string) => new RegExp(`^${chemin.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
const MOTIFS = ROUTES.map((route) => ({ route, motif: motif(route.chemin) }));

export const creer = () =>
  routePublique(async (event) => {
    const chemin = event.path.startsWith(BASE_CHEMIN) ? event.path.slice(BASE_CHEMIN.length) : event.path;
    const methodes = [...new Set(MOTIFS.filter((m) => m.motif.test(chemin)).map((m) => m.route.methode))];
    if (methodes.length > 0) {
      throw new ErreurApi('method_not_allowed', `${event.httpMethod} is not allowed on ${event.path}.`, { allow: methodes }, { Allow: methodes.join(', ') });
    }
    throw new ErreurApi('not_found', `No route ${event.httpMethod} ${event.path}.`);
  });
export const handler = creer();
