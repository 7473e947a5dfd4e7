/**
 * One attempt of a delivery, as the queue's consumer (pipeline/livreur.ts) makes it: the body is
 * built now (the job or batch as GET would answer it now, with fresh links), signed with the
 * endpoint's secret(s), POSTed with the SSRF guard (infra/envoi-webhook.ts). A 2xx ends it; anything
 * else is tried again on Standard Webhooks' schedule with the same `webhook-id`, then the delivery is
 * `en_echec` and its endpoint marked failing.
 *
 * A message is acted on only if it is for the attempt the record says is due (`echeance`): a message
 * received twice, or one the sweeper sent again, finds the attempt claimed or done and is dropped.
 * An attempt due more than 15 minutes ahead (SQS's longest delay) travels as a chain of messages.
 *
 * An attempt holds a place of its endpoint and one of its account while it runs (depots/creneaux.ts):
 * one that finds none waits in the queue instead of in a worker, so a tenant whose receiver never
 * answers holds at most EN_VOL_PAR_COMPTE of the queue's workers, and the others' deliveries go on.
 */
import type { AvecCleWebhooks, AvecEnvoiWebhooks, AvecFileWebhooks, AvecSigner, AvecTable, Dependances } from '../../infra/dependances';
import { DELAI_MAX_SQS_SECONDES, type MessageLivraison } from '../../infra/file-webhooks';
import { journal } from '../../infra/journal';
import * as creneaux from '../../depots/creneaux';
import * as webhooks from '../../depots/webhooks';
import * as lots from '../../depots/lots';
import * as travaux from '../../depots/travaux';
import { memeMonde, versLot, versTravail } from '../../modele/enregistrements';
import {
  ATTENTE_PLACE_MAX_S,
  CALENDRIER_REESSAIS_SECONDES,
  DELAI_REPONSE_MS,
  EN_VOL_PAR_COMPTE,
  EN_VOL_PAR_WEBHOOK,
  EVENEMENT_TEST,
  type EnregistrementLivraison,
  type EnregistrementWebhook,
} from '../../modele/webhooks';
import { dechiffrer, signer } from './secrets';

/**
 * What an attempt needs: the body's links signed, the endpoint's secrets read, the next attempt
 * queued, the POST sent.
 */
export type DepsLivraison = AvecTable & AvecSigner & AvecCleWebhooks & AvecFileWebhooks & AvecEnvoiWebhooks;

/** How long an attempt holds its delivery: the receiver's time to answer, and a margin. */
export const BAIL_MS = DELAI_REPONSE_MS + 45_000;

/** What happened to one message. */
export type IssueMessage = 'perime' | 'reporte' | 'sans_place' | 'reussie' | 'reessai' | 'en_echec' | 'abandonnee';

/**
 * The body's `data`: what GET /travaux/{id} or GET /lots/{id} would answer now (its `test` says which
 * kind of work it is); undefined once it was erased, or if it is not of the endpoint's kind (announced
 * only to its own kind: annonces.ts; checked again here, since a live receiver must never see test work).
 */
const donnees = async (d: DepsLivraison, l: EnregistrementLivraison, point: EnregistrementWebhook): Promise<unknown> => {
  if (l.type === EVENEMENT_TEST)
    return { webhook: l.webhook, test: point.test === true, message: 'A test event from Retouche: this endpoint receives and verifies deliveries.' };
  if (l.sujet && 'travail' in l.sujet) {
    const travail = await travaux.lire(d, l.sujet.travail);
    return travail && travail.compte === l.compte && memeMonde(travail, point.test) ? versTravail(travail, d.signer) : undefined;
  }
  if (l.sujet && 'lot' in l.sujet) {
    const lot = await lots.lire(d, l.sujet.lot);
    if (!lot || lot.compte !== l.compte || !memeMonde(lot, point.test)) return undefined;
    return versLot(lot, await travaux.lirePlusieurs(d, lot.travaux), d.signer);
  }
  return undefined;
};

/** The secrets that sign now: the current one, and the previous one until its rotation's end. */
const secretsActifs = (d: AvecCleWebhooks, w: EnregistrementWebhook, maintenant: Date): string[] => {
  const secrets = [dechiffrer(d.cleWebhooks, w.secret_chiffre)];
  if (w.ancien_secret_chiffre && w.ancien_expire_le && Date.parse(w.ancien_expire_le) > maintenant.getTime())
    secrets.push(dechiffrer(d.cleWebhooks, w.ancien_secret_chiffre));
  return secrets;
};

export const traiterMessage = async (d: DepsLivraison, message: MessageLivraison): Promise<IssueMessage> => {
  const l = await webhooks.lireLivraison(d, message.webhook, message.id);
  if (!l || l.statut !== 'en_attente' || l.prochaine_tentative !== message.echeance) return 'perime';
  const maintenant = d.horloge();
  const attente = Date.parse(message.echeance) - maintenant.getTime();
  if (attente > 1000) {
    await d.fileWebhooks.envoyer([message], Math.min(DELAI_MAX_SQS_SECONDES, attente / 1000));
    return 'reporte';
  }
  const point = await webhooks.lire(d, l.webhook);
  if (!point) {
    // The endpoint was removed: its deliveries go with it.
    await webhooks.supprimerLivraison(d, l);
    return 'abandonnee';
  }
  const bail = new Date(maintenant.getTime() + BAIL_MS).toISOString();
  const creneau = await creneaux.prendre(d, { compte: l.compte, webhook: l.webhook, livraison: l.id, jusqua: bail }, PLACES);
  if (!creneau) return attendrePlace(d, l, message.echeance);
  try {
    return await tenter(d, l, point, message.echeance, bail);
  } finally {
    await creneaux.rendre(d, creneau);
  }
};

const PLACES = { parPoint: EN_VOL_PAR_WEBHOOK, parCompte: EN_VOL_PAR_COMPTE };

/**
 * No place in flight: the attempt is put off, 1 s, then 2, 4… up to ATTENTE_PLACE_MAX_S (with some
 * jitter, so that the waiting ones do not all come back together), by a message that holds no worker.
 */
const attendrePlace = async (d: DepsLivraison, l: EnregistrementLivraison, echeance: string): Promise<IssueMessage> => {
  const pause = Math.min(ATTENTE_PLACE_MAX_S, 2 ** (l.attentes_place ?? 0)) * (0.75 + Math.random() / 2);
  const plusTard = new Date(d.horloge().getTime() + pause * 1000).toISOString();
  if (!(await webhooks.differer(d, l, echeance, plusTard))) return 'perime';
  await d.fileWebhooks.envoyer([{ webhook: l.webhook, id: l.id, echeance: plusTard }], pause);
  return 'sans_place';
};

/** One attempt, its places held: claimed, sent, its outcome recorded and the next one queued. */
const tenter = async (d: DepsLivraison, l: EnregistrementLivraison, point: EnregistrementWebhook, echeance: string, bail: string): Promise<IssueMessage> => {
  const maintenant = d.horloge();
  if (!(await webhooks.reclamer(d, l, echeance, bail))) return 'perime';

  const data = await donnees(d, l, point);
  if (data === undefined) {
    // Erased before it could be delivered: nothing left to say, and not the receiver's failure.
    await webhooks.consigner(d, l, bail, {
      statut: 'en_echec',
      prochaine: null,
      tentative: { le: maintenant.toISOString(), statut_http: null, erreur: `the ${l.type === 'lot.fini' ? 'batch' : 'job'} was erased before delivery` },
    });
    return 'abandonnee';
  }
  const corps = JSON.stringify({ type: l.type, timestamp: l.evenement_le, data });
  const moment = d.horloge();
  const issue = await d.posterWebhook(point.url, corps, {
    'webhook-id': l.id,
    'webhook-timestamp': String(Math.floor(moment.getTime() / 1000)),
    'webhook-signature': signer(secretsActifs(d, point, moment), l.id, moment, corps),
  });
  const reussie = issue.statut !== null && issue.statut >= 200 && issue.statut < 300;
  const calendrier = d.calendrierWebhooks ?? CALENDRIER_REESSAIS_SECONDES;
  const pause = reussie ? undefined : calendrier[l.tentatives];
  const apres = d.horloge();
  const prochaine = pause === undefined ? null : new Date(apres.getTime() + pause * 1000).toISOString();
  const statut = reussie ? 'reussie' : prochaine ? 'en_attente' : 'en_echec';
  const consignee = await webhooks.consigner(d, l, bail, {
    statut,
    prochaine,
    tentative: { le: moment.toISOString(), statut_http: issue.statut, erreur: issue.erreur },
  });
  if (!consignee) return 'perime';
  if (prochaine) await d.fileWebhooks.envoyer([{ webhook: l.webhook, id: l.id, echeance: prochaine }], Math.min(DELAI_MAX_SQS_SECONDES, pause!));
  if (reussie && point.etat === 'en_echec') await webhooks.marquer(d, point.id, 'actif');
  if (statut === 'en_echec') {
    journal.warn('webhook delivery failed after its last attempt; endpoint marked failing', { webhook: point.id, livraison: l.id, compte: l.compte });
    await webhooks.marquer(d, point.id, 'en_echec');
  }
  return reussie ? 'reussie' : prochaine ? 'reessai' : 'en_echec';
};

/** The sweeper's part: deliveries due for a while with no attempt made (a lost message, a worker that died), sent again. */
export const relancerLivraisons = async (d: Pick<Dependances, 'ddb' | 'table'> & AvecFileWebhooks, avant: Date, max: number): Promise<number> => {
  const enRetard = await webhooks.livraisonsEnRetard(d, avant, max);
  if (enRetard.length === 0) return 0;
  await d.fileWebhooks.envoyer(enRetard);
  return enRetard.length;
};
