/**
 * Events announced by the pipeline: a job ended (cycle.ts, from its step or the sweeper), a batch
 * ended (lots.ts). Each endpoint of the account that subscribes to the event gets one delivery,
 * created once however often the step that announces it is retried (its key is the endpoint and the
 * event's id), and one message on the delivery queue. The request that started the job never
 * delivers anything: by then nothing has happened. A test key's work is announced to the test
 * endpoints only, live work to the live ones only (modele/webhooks.ts, Portee).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AvecFileWebhooks, AvecTable } from '../../infra/dependances';
import type { MessageLivraison } from '../../infra/file-webhooks';
import * as webhooks from '../../depots/webhooks';
import { memeMonde } from '../../modele/enregistrements';
import type { EnregistrementLivraison, EnregistrementWebhook, TypeLivraison } from '../../modele/webhooks';

export type DepsAnnonce = AvecTable & AvecFileWebhooks;

/** `msg_` and 26 base32 characters: an event's `webhook-id`, derived from what it is about so it is the same on every retry. */
export const idEvenement = (type: TypeLivraison, sujet: string): string =>
  `msg_${base32(createHash('sha256').update(`${type}\n${sujet}`).digest()).slice(0, 26)}`;
export const idAleatoire = (): string => `msg_${base32(randomBytes(20)).slice(0, 26)}`;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const base32 = (octets: Buffer): string => {
  let bits = 0;
  let valeur = 0;
  let sortie = '';
  for (const octet of octets) {
    valeur = (valeur << 8) | octet;
    bits += 8;
    while (bits >= 5) {
      sortie += ALPHABET[(valeur >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return sortie;
};

/**
 * Creates the delivery of event `id` to each endpoint, and sends the queue a message for each one
 * created now — or found still waiting for its first attempt (the call before this one died between
 * the two writes).
 */
export const livrerA = async (
  d: DepsAnnonce,
  points: readonly EnregistrementWebhook[],
  evenement: Pick<EnregistrementLivraison, 'id' | 'compte' | 'type' | 'sujet' | 'evenement_le'>,
): Promise<EnregistrementLivraison[]> => {
  if (points.length === 0) return [];
  const maintenant = d.horloge().toISOString();
  const messages: MessageLivraison[] = [];
  const livraisons: EnregistrementLivraison[] = [];
  for (const point of points) {
    const nouvelle: EnregistrementLivraison = {
      ...evenement,
      webhook: point.id,
      statut: 'en_attente',
      tentatives: 0,
      prochaine_tentative: maintenant,
      derniere_tentative: null,
      cree_le: maintenant,
    };
    const livraison = (await webhooks.creerLivraison(d, nouvelle)) ? nouvelle : await webhooks.lireLivraison(d, point.id, evenement.id);
    if (!livraison) continue;
    livraisons.push(livraison);
    if (livraison.statut === 'en_attente' && livraison.tentatives === 0 && livraison.prochaine_tentative)
      messages.push({ webhook: point.id, id: livraison.id, echeance: livraison.prochaine_tentative });
  }
  await d.fileWebhooks.envoyer(messages);
  return livraisons;
};

/** What an event is about: a job or a batch, its account, and whether it is test work. */
interface Fini {
  id: string;
  compte: string;
  termine_le: string | null;
  test?: true;
}

const annoncer = async (d: DepsAnnonce, fini: Fini, type: 'travail.fini' | 'lot.fini', sujet: EnregistrementLivraison['sujet'] & object) => {
  const { compte } = fini;
  const le = fini.termine_le ?? d.horloge().toISOString();
  const points = (await webhooks.lister(d, compte)).filter((w) => w.evenements.includes(type) && memeMonde(w, fini.test));
  const cle = 'travail' in sujet ? sujet.travail : sujet.lot;
  await livrerA(d, points, { id: idEvenement(type, cle), compte, type, sujet, evenement_le: le });
};

/** `travail.fini`: the job is `termine` or `echec` (called again on every retry: it delivers once). */
export const annoncerFinTravail = (d: DepsAnnonce, travail: Fini) => annoncer(d, travail, 'travail.fini', { travail: travail.id });

/** `lot.fini`: the batch left `en_cours` (its ZIP written). */
export const annoncerFinLot = (d: DepsAnnonce, lot: Fini) => annoncer(d, lot, 'lot.fini', { lot: lot.id });
