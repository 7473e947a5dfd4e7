/**
 * An account's endpoints, as the API (lambdas/http/webhooks.ts), the web site's API page and the
 * admin CLI manage them: add one (its secret answered this once), list them (never a secret),
 * remove one, rotate its secret, send it a test event, read its delivery log, resend a failed
 * delivery. Another account's endpoint is answered as one that does not exist, and so is an endpoint
 * of the other kind (a test key's endpoint to a live caller, a live one to a test key): each kind
 * manages and receives only its own work (modele/webhooks.ts, Portee).
 */
import { randomBytes } from 'node:crypto';
import type { AvecCleWebhooks, AvecFileWebhooks, AvecTable, Dependances, Reglages } from '../../infra/dependances';
import { conseilBoucleLocale, raisonRefusUrl } from '../../infra/envoi-webhook';
import * as webhooks from '../../depots/webhooks';
import { ErreurApi } from '../../modele/erreurs';
import { memeMonde } from '../../modele/enregistrements';
import {
  EVENEMENT_TEST,
  LIMITE_JOURNAL,
  MAX_WEBHOOKS,
  MAX_WEBHOOKS_TEST,
  TESTS_PAR_MINUTE,
  versLivraison,
  versWebhook,
  type EnregistrementWebhook,
  type Evenement,
  type Livraison,
  type Portee,
  type Webhook,
} from '../../modele/webhooks';
import { limiteDeLaMinute } from '../cadence';
import { idAleatoire, livrerA } from './annonces';
import { parPaquets } from '../../infra/paquets';
import { chiffrer, nouveauSecret } from './secrets';

/** Adding an endpoint: its secret encrypted, its URL checked as the stage allows (loopback for a local stack's tests). */
export type DepsCreation = AvecTable & AvecCleWebhooks & Pick<Reglages, 'webhooksBoucleLocale' | 'pileLocale'>;
/** Every route of an endpoint: its secret made (add, rotate) or a delivery queued (test, resend). */
export type DepsPoints = DepsCreation & AvecFileWebhooks;

/** After a rotation the old secret signs too for this long, so receivers can switch without losing a delivery. */
export const CHEVAUCHEMENT_ROTATION_MS = 24 * 3600 * 1000;

/** `wh_` and 24 hex characters. */
const idWebhook = (): string => `wh_${randomBytes(12).toString('hex')}`;
const ID_WEBHOOK = /^wh_[0-9a-f]{24}$/;
const ID_LIVRAISON = /^msg_[a-z2-7]{26}$/;

export const webhookDuCompte = async (d: Pick<Dependances, 'ddb' | 'table'>, qui: Portee, id: string): Promise<EnregistrementWebhook> => {
  const w = ID_WEBHOOK.test(id) ? await webhooks.lire(d, id) : undefined;
  if (!w || w.compte !== qui.compte || !memeMonde(w, qui.test)) throw new ErreurApi('not_found', `No webhook ${id}.`);
  return w;
};

export const creerWebhook = async (d: DepsCreation, qui: Portee, demande: { url: string; evenements: Evenement[] }): Promise<Webhook> => {
  const raison = raisonRefusUrl(demande.url, d.webhooksBoucleLocale);
  // A local stack started without the loopback allowance says how to allow a receiver on this machine.
  const conseil = raison && d.pileLocale && !d.webhooksBoucleLocale ? conseilBoucleLocale(demande.url) : null;
  const refus = conseil ? `${raison} ${conseil}` : raison;
  if (refus) throw new ErreurApi('invalid_body', refus, { details: [{ chemin: 'url', message: refus }] });
  const secret = nouveauSecret();
  const w: EnregistrementWebhook = {
    id: idWebhook(),
    compte: qui.compte,
    url: demande.url,
    evenements: [...new Set(demande.evenements)],
    etat: 'actif',
    cree_le: d.horloge().toISOString(),
    secret_chiffre: chiffrer(d.cleWebhooks, secret),
    ...(qui.test ? { test: true as const } : {}),
  };
  const max = qui.test ? MAX_WEBHOOKS_TEST : MAX_WEBHOOKS;
  if ((await webhooks.creer(d, w, max)) === 'plein')
    throw new ErreurApi(
      'too_many_webhooks',
      `An account has at most ${max} ${qui.test ? 'test webhooks (made with a test key)' : 'webhooks'}: remove one first (DELETE /webhooks/{id}).`,
    );
  return versWebhook(w, secret);
};

export const listerWebhooks = async (d: Pick<Dependances, 'ddb' | 'table'>, qui: Portee): Promise<Webhook[]> =>
  (await webhooks.lister(d, qui.compte)).filter((w) => memeMonde(w, qui.test)).map((w) => versWebhook(w));

export const supprimerWebhook = async (d: Pick<Dependances, 'ddb' | 'table'>, qui: Portee, id: string): Promise<void> => {
  const w = await webhookDuCompte(d, qui, id);
  // Removed meanwhile by another call: the same outcome.
  await webhooks.supprimer(d, w);
  await supprimerLivraisons(d, w.id);
};

/**
 * An endpoint's deliveries go with it (its log names the account's jobs and batches). One that a job's
 * end creates after this, or that a call cut short here leaves, is dropped by the delivery function
 * (its endpoint is gone) or by the account's erasure, which finds every delivery by account.
 */
export const supprimerLivraisons = async (d: Pick<Dependances, 'ddb' | 'table'>, webhook: string): Promise<number> => {
  const livraisons = await webhooks.toutesLesLivraisons(d, webhook);
  await parPaquets(livraisons, 8, (l) => webhooks.supprimerLivraison(d, l).then(() => undefined));
  return livraisons.length;
};

/** A new secret (answered this once); the previous one keeps signing for CHEVAUCHEMENT_ROTATION_MS. */
export const tournerSecret = async (d: AvecTable & AvecCleWebhooks, qui: Portee, id: string): Promise<Webhook> => {
  const w = await webhookDuCompte(d, qui, id);
  const secret = nouveauSecret();
  const expire = new Date(d.horloge().getTime() + CHEVAUCHEMENT_ROTATION_MS).toISOString();
  if (!(await webhooks.tournerSecret(d, id, chiffrer(d.cleWebhooks, secret), w.secret_chiffre, expire))) throw new ErreurApi('not_found', `No webhook ${id}.`);
  return versWebhook(w, secret);
};

/** A `webhook.test` event to this endpoint only, delivered like any other (signed, retried, logged). */
export const envoyerTest = async (d: AvecTable & AvecFileWebhooks, qui: Portee, id: string): Promise<Livraison> => {
  const w = await webhookDuCompte(d, qui, id);
  // Free to ask, and each a delivery: bounded per endpoint, so that tests cannot flood the shared queue.
  const maintenant = d.horloge();
  const minute = Math.floor(maintenant.getTime() / 60_000);
  if (!(await webhooks.compterTest(d, w.id, minute, TESTS_PAR_MINUTE)))
    throw limiteDeLaMinute(maintenant, (attente) => `At most ${TESTS_PAR_MINUTE} test events per minute to a webhook: retry in ${attente} s.`);
  const [livraison] = await livrerA(d, [w], {
    id: idAleatoire(),
    compte: qui.compte,
    type: EVENEMENT_TEST,
    sujet: null,
    evenement_le: d.horloge().toISOString(),
  });
  return versLivraison(livraison!);
};

/** The endpoint's newest deliveries (the log), newest first. */
export const journalLivraisons = async (d: Pick<Dependances, 'ddb' | 'table'>, qui: Portee, id: string): Promise<Livraison[]> => {
  await webhookDuCompte(d, qui, id);
  return (await webhooks.listerLivraisons(d, id, LIMITE_JOURNAL)).map(versLivraison);
};

/** A delivery that used all its attempts, due again now with the same `webhook-id` (its attempts start over). */
export const renvoyer = async (d: AvecTable & AvecFileWebhooks, qui: Portee, id: string, livraisonId: string): Promise<Livraison> => {
  await webhookDuCompte(d, qui, id);
  const l = ID_LIVRAISON.test(livraisonId) ? await webhooks.lireLivraison(d, id, livraisonId) : undefined;
  if (!l) throw new ErreurApi('not_found', `No delivery ${livraisonId} for webhook ${id}.`);
  if (l.statut !== 'en_echec')
    throw new ErreurApi(
      'delivery_not_failed',
      l.statut === 'reussie'
        ? 'This delivery was answered 2xx: it is not sent again.'
        : 'This delivery is still being attempted; resend it once it has failed.',
    );
  const echeance = d.horloge().toISOString();
  if (!(await webhooks.reprendre(d, l, echeance))) throw new ErreurApi('delivery_not_failed', 'This delivery is already being sent again.');
  await d.fileWebhooks.envoyer([{ webhook: id, id: l.id, echeance }]);
  return versLivraison({ ...l, statut: 'en_attente', tentatives: 0, prochaine_tentative: echeance });
};
