/** The body of `POST /webhooks`: `{"url": "https://…", "evenements": ["travail.fini", "lot.fini"]}`. */
import * as v from 'valibot';
import { EVENEMENTS, type Evenement } from '../modele/webhooks';
import { lireCorpsValide } from './json';

export const LONGUEUR_MAX_URL_WEBHOOK = 2048;

export const RequeteWebhook = v.object(
  {
    url: v.pipe(
      v.string('url is required: the https URL that receives the deliveries'),
      v.trim(),
      v.minLength(1, 'url must not be empty'),
      v.maxLength(LONGUEUR_MAX_URL_WEBHOOK, `url is at most ${LONGUEUR_MAX_URL_WEBHOOK} characters`),
    ),
    evenements: v.pipe(
      v.array(v.picklist(EVENEMENTS, `each event is one of: ${EVENEMENTS.join(', ')}`), `evenements is a list of events, from: ${EVENEMENTS.join(', ')}`),
      v.minLength(1, `evenements must name at least one event, from: ${EVENEMENTS.join(', ')}`),
    ),
  },
  `the body is {"url": "https://…", "evenements": [${EVENEMENTS.map((e) => `"${e}"`).join(', ')}]}`,
);

export const lireNouveauWebhook = (contentType: string | undefined, corps: Buffer): { url: string; evenements: Evenement[] } =>
  lireCorpsValide(RequeteWebhook, contentType, corps);
