/**
 * Webhook endpoints (WEBHOOK#<id>, listed under their account in gsi1, counted on the account as
 * `nb_webhooks` in the same transaction) and their deliveries (LIVRAISON#<webhook>#<msg id>, listed
 * under their endpoint in gsi1, in the sparse `ouverts` index while an attempt is due). A delivery's
 * key is made of its endpoint and its event's id, so the pipeline's step that announces an event can
 * be retried any number of times: the delivery is created once. Its rules: core/domaine/webhooks/.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AvecTable, Dependances } from '../infra/dependances';
import type { EnregistrementLivraison, EnregistrementWebhook } from '../modele/webhooks';
import { RETENTION_LIVRAISONS_JOURS } from '../modele/webhooks';
import { cleItem as cleCompte } from './comptes';
import { ATTRIBUT_TTL, INDEX, JOURS, OUVERTS, PREFIXES_TABLE, toutInterroger, ttlDans, type DepsTable } from './table';
import { ecrire, ecritSi, raisonsAnnulation } from './transactions';

type DepsEcriture = AvecTable;

const cleWebhook = (id: string) => ({ pk: `${PREFIXES_TABLE.webhook}${id}`, sk: 'WEBHOOK' });
const cleLivraison = (webhook: string, id: string) => ({ pk: `${PREFIXES_TABLE.livraison}${webhook}#${id}`, sk: 'LIVRAISON' });

const sansCles = <T>(item: Record<string, unknown>): T => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _s1, gsi2pk: _g2, gsi2sk: _s2, gsi3pk: _g3, gsi3sk: _s3, genre: _g, [ATTRIBUT_TTL]: _e, ...reste } = item;
  return reste as T;
};

/** The account's counter of its live endpoints, or of its test ones: each kind has its own cap. */
const compteur = (webhook: Pick<EnregistrementWebhook, 'test'>) => (webhook.test ? 'nb_webhooks_test' : 'nb_webhooks');

/** A new endpoint, counted on its account while it has fewer than `max` of its kind: `plein` when it has `max` already. */
export const creer = async (d: DepsEcriture, webhook: EnregistrementWebhook, max: number): Promise<'cree' | 'plein'> => {
  try {
    await ecrire(d, [
      {
        Update: {
          TableName: d.table,
          Key: cleCompte(webhook.compte),
          UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :un',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#n) OR #n < :max)',
          ExpressionAttributeNames: { '#n': compteur(webhook) },
          ExpressionAttributeValues: { ':zero': 0, ':un': 1, ':max': max },
        },
      },
      {
        Put: {
          TableName: d.table,
          Item: {
            ...cleWebhook(webhook.id),
            gsi1pk: `${PREFIXES_TABLE.compte}${webhook.compte}`,
            gsi1sk: `${PREFIXES_TABLE.webhook}${webhook.cree_le}#${webhook.id}`,
            ...webhook,
            genre: 'webhook',
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
    return 'cree';
  } catch (erreur) {
    if (raisonsAnnulation(erreur)?.[0]?.Code !== 'ConditionalCheckFailed') throw erreur;
    return 'plein';
  }
};

export const lire = async (d: DepsTable, id: string): Promise<EnregistrementWebhook | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleWebhook(id), ConsistentRead: true }));
  return Item ? sansCles<EnregistrementWebhook>(Item) : undefined;
};

/** The account's endpoints, oldest first (the order they were added in). */
export const lister = async (d: DepsTable, compte: string): Promise<EnregistrementWebhook[]> =>
  (
    await toutInterroger<Record<string, unknown>>(d, {
      IndexName: INDEX.parCompte,
      KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :w)',
      ExpressionAttributeValues: { ':p': `${PREFIXES_TABLE.compte}${compte}`, ':w': PREFIXES_TABLE.webhook },
    })
  ).map((i) => sansCles<EnregistrementWebhook>(i));

/** Removes an endpoint and uncounts it, together, once: false when it was removed meanwhile. */
export const supprimer = async (d: Pick<Dependances, 'ddb' | 'table'>, webhook: EnregistrementWebhook): Promise<boolean> => {
  try {
    await ecrire(d, [
      { Delete: { TableName: d.table, Key: cleWebhook(webhook.id), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          TableName: d.table,
          Key: cleCompte(webhook.compte),
          UpdateExpression: 'SET #n = #n - :un',
          ConditionExpression: '#n >= :un',
          ExpressionAttributeNames: { '#n': compteur(webhook) },
          ExpressionAttributeValues: { ':un': 1 },
        },
      },
    ]);
    return true;
  } catch (erreur) {
    if (!raisonsAnnulation(erreur)) throw erreur;
    return false;
  }
};

/** A rotation: the new secret, and the old one still signing until `expire_le`. False when the endpoint is gone. */
export const tournerSecret = async (
  d: Pick<Dependances, 'ddb' | 'table'>,
  id: string,
  nouveau: string,
  ancien: string,
  expire_le: string,
): Promise<boolean> => {
  return ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleWebhook(id),
        UpdateExpression: 'SET secret_chiffre = :n, ancien_secret_chiffre = :a, ancien_expire_le = :e',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':n': nouveau, ':a': ancien, ':e': expire_le },
      }),
    ),
  );
};

/**
 * Counts a test event sent to the endpoint in this calendar minute: false when it had `max` already
 * (the minute's count starts over with the next minute, as the keys' rate windows do).
 */
export const compterTest = async (d: Pick<Dependances, 'ddb' | 'table'>, id: string, minute: number, max: number): Promise<boolean> => {
  const essayer = (UpdateExpression: string, ConditionExpression: string) =>
    ecritSi(
      d.ddb.send(
        new UpdateCommand({
          TableName: d.table,
          Key: cleWebhook(id),
          UpdateExpression,
          ConditionExpression: `attribute_exists(pk) AND ${ConditionExpression}`,
          ExpressionAttributeValues: { ':m': minute, ':un': 1, ...(ConditionExpression.includes(':max') ? { ':max': max } : {}) },
        }),
      ),
    );
  // This minute's count, below the cap; or a count of an earlier minute (or none), started over.
  return (
    (await essayer('SET tests_nb = tests_nb + :un', 'tests_minute = :m AND tests_nb < :max')) ||
    (await essayer('SET tests_minute = :m, tests_nb = :un', '(attribute_not_exists(tests_minute) OR tests_minute <> :m)'))
  );
};

/** `actif` ↔ `en_echec`, written only when it changes (and never on an endpoint removed meanwhile). */
export const marquer = async (d: Pick<Dependances, 'ddb' | 'table'>, id: string, etat: EnregistrementWebhook['etat']): Promise<void> => {
  await ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleWebhook(id),
        UpdateExpression: 'SET etat = :e',
        ConditionExpression: 'attribute_exists(pk) AND etat <> :e',
        ExpressionAttributeValues: { ':e': etat },
      }),
    ),
  );
};

const champsOuvert = (livraison: Pick<EnregistrementLivraison, 'webhook' | 'id'>, echeance: string) => ({
  gsi3pk: OUVERTS.livraisons,
  gsi3sk: `${echeance}#${livraison.webhook}#${livraison.id}`,
});

/** A new delivery, unless this event's delivery to this endpoint exists already: true when it was created now. */
export const creerLivraison = async (d: DepsEcriture, livraison: EnregistrementLivraison): Promise<boolean> => {
  return ecritSi(
    d.ddb.send(
      new PutCommand({
        TableName: d.table,
        Item: {
          ...cleLivraison(livraison.webhook, livraison.id),
          gsi1pk: `${PREFIXES_TABLE.webhook}${livraison.webhook}`,
          gsi1sk: `${PREFIXES_TABLE.livraison}${livraison.cree_le}#${livraison.id}`,
          // By account too: an erasure finds every delivery that names the account, its endpoint removed or not.
          gsi2pk: `${PREFIXES_TABLE.livraison}${livraison.compte}`,
          gsi2sk: `${livraison.cree_le}#${livraison.id}`,
          ...(livraison.prochaine_tentative ? champsOuvert(livraison, livraison.prochaine_tentative) : {}),
          ...livraison,
          genre: 'livraison',
          [ATTRIBUT_TTL]: ttlDans(d.horloge(), RETENTION_LIVRAISONS_JOURS * JOURS),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
};

export const lireLivraison = async (d: DepsTable, webhook: string, id: string): Promise<EnregistrementLivraison | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleLivraison(webhook, id), ConsistentRead: true }));
  return Item ? sansCles<EnregistrementLivraison>(Item) : undefined;
};

/** An endpoint's newest deliveries, newest first. */
export const listerLivraisons = async (d: DepsTable, webhook: string, limite: number): Promise<EnregistrementLivraison[]> => {
  const { Items = [] } = await d.ddb.send(
    new QueryCommand({
      TableName: d.table,
      IndexName: INDEX.parCompte,
      KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :l)',
      ExpressionAttributeValues: { ':p': `${PREFIXES_TABLE.webhook}${webhook}`, ':l': PREFIXES_TABLE.livraison },
      ScanIndexForward: false,
      Limit: limite,
    }),
  );
  return Items.map((i) => sansCles<EnregistrementLivraison>(i));
};

/**
 * Takes the attempt due at `echeance`: only one holder of a message for it gets it (a message
 * delivered twice, or a late one, finds the delivery moved on). While the attempt runs, the delivery
 * is due again at `bail`, so one whose worker died is found by the sweeper after that.
 */
export const reclamer = async (d: Pick<Dependances, 'ddb' | 'table'>, l: Pick<EnregistrementLivraison, 'webhook' | 'id'>, echeance: string, bail: string) => {
  return ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleLivraison(l.webhook, l.id),
        UpdateExpression: 'SET prochaine_tentative = :bail, gsi3sk = :tri',
        ConditionExpression: 'statut = :attente AND prochaine_tentative = :echeance',
        ExpressionAttributeValues: { ':bail': bail, ':tri': champsOuvert(l, bail).gsi3sk, ':attente': 'en_attente', ':echeance': echeance },
      }),
    ),
  );
};

/**
 * The attempt's outcome: `reussie` or `en_echec` (out of the `ouverts` index), or still `en_attente`
 * with its next attempt at `prochaine`. Guarded by the claim (`bail`): an attempt whose claim was taken
 * over writes nothing.
 */
export const consigner = async (
  d: Pick<Dependances, 'ddb' | 'table'>,
  l: Pick<EnregistrementLivraison, 'webhook' | 'id'>,
  bail: string,
  issue: { statut: EnregistrementLivraison['statut']; prochaine: string | null; tentative: NonNullable<EnregistrementLivraison['derniere_tentative']> },
): Promise<boolean> => {
  const attente = issue.statut === 'en_attente' && issue.prochaine;
  return ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleLivraison(l.webhook, l.id),
        UpdateExpression: `SET statut = :s, tentatives = tentatives + :un, derniere_tentative = :t, prochaine_tentative = :p${
          attente ? ', gsi3sk = :tri REMOVE attentes_place' : ' REMOVE gsi3pk, gsi3sk, attentes_place'
        }`,
        ConditionExpression: 'statut = :attente AND prochaine_tentative = :bail',
        ExpressionAttributeValues: {
          ':s': issue.statut,
          ':un': 1,
          ':t': issue.tentative,
          ':p': issue.prochaine,
          ':attente': 'en_attente',
          ':bail': bail,
          ...(attente ? { ':tri': champsOuvert(l, issue.prochaine!).gsi3sk } : {}),
        },
      }),
    ),
  );
};

/**
 * The attempt due at `echeance` put off to `plus_tard`, for want of a place in flight (no attempt made,
 * none counted): false when it was claimed or moved meanwhile.
 */
export const differer = async (
  d: Pick<Dependances, 'ddb' | 'table'>,
  l: Pick<EnregistrementLivraison, 'webhook' | 'id'>,
  echeance: string,
  plusTard: string,
) => {
  return ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleLivraison(l.webhook, l.id),
        UpdateExpression: 'SET prochaine_tentative = :p, gsi3sk = :tri ADD attentes_place :un',
        ConditionExpression: 'statut = :attente AND prochaine_tentative = :echeance',
        ExpressionAttributeValues: { ':p': plusTard, ':tri': champsOuvert(l, plusTard).gsi3sk, ':un': 1, ':attente': 'en_attente', ':echeance': echeance },
      }),
    ),
  );
};

/** A failed delivery made due again at `echeance` (a resend): its attempts start over, its `webhook-id` stays. */
export const reprendre = async (d: Pick<Dependances, 'ddb' | 'table'>, l: Pick<EnregistrementLivraison, 'webhook' | 'id'>, echeance: string) => {
  return ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleLivraison(l.webhook, l.id),
        UpdateExpression: 'SET statut = :attente, tentatives = :zero, prochaine_tentative = :e, gsi3pk = :g, gsi3sk = :tri',
        ConditionExpression: 'statut = :echec',
        ExpressionAttributeValues: {
          ':attente': 'en_attente',
          ':zero': 0,
          ':e': echeance,
          ':g': OUVERTS.livraisons,
          ':tri': champsOuvert(l, echeance).gsi3sk,
          ':echec': 'en_echec',
        },
      }),
    ),
  );
};

/** Every delivery of an endpoint still kept (an account's erasure removes them with it). */
export const toutesLesLivraisons = async (d: DepsTable, webhook: string): Promise<EnregistrementLivraison[]> =>
  (
    await toutInterroger<Record<string, unknown>>(d, {
      IndexName: INDEX.parCompte,
      KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :l)',
      ExpressionAttributeValues: { ':p': `${PREFIXES_TABLE.webhook}${webhook}`, ':l': PREFIXES_TABLE.livraison },
    })
  ).map((i) => sansCles<EnregistrementLivraison>(i));

/** Every delivery that names the account, whichever endpoint it was for (removed or not): its erasure takes them. */
export const livraisonsDuCompte = async (d: DepsTable, compte: string): Promise<Pick<EnregistrementLivraison, 'webhook' | 'id'>[]> =>
  (
    await toutInterroger<Record<string, unknown>>(d, {
      IndexName: INDEX.livraisonsParCompte,
      KeyConditionExpression: 'gsi2pk = :p',
      ExpressionAttributeValues: { ':p': `${PREFIXES_TABLE.livraison}${compte}` },
      ProjectionExpression: 'webhook, id',
    })
  ).map((i) => ({ webhook: String(i.webhook), id: String(i.id) }));

/** A delivery whose endpoint was removed: dropped with it. */
export const supprimerLivraison = (d: Pick<Dependances, 'ddb' | 'table'>, l: Pick<EnregistrementLivraison, 'webhook' | 'id'>) =>
  d.ddb.send(new DeleteCommand({ TableName: d.table, Key: cleLivraison(l.webhook, l.id) }));

/** Deliveries whose attempt was due before `avant` (a lost message, a worker that died), oldest first, up to `max`. */
export const livraisonsEnRetard = async (d: DepsTable, avant: Date, max: number): Promise<{ webhook: string; id: string; echeance: string }[]> => {
  const { Items = [] } = await d.ddb.send(
    new QueryCommand({
      TableName: d.table,
      IndexName: INDEX.ouverts,
      KeyConditionExpression: 'gsi3pk = :p AND gsi3sk < :avant',
      ExpressionAttributeValues: { ':p': OUVERTS.livraisons, ':avant': avant.toISOString() },
      ProjectionExpression: 'webhook, id, prochaine_tentative',
      Limit: max,
    }),
  );
  return Items.map((i) => ({ webhook: String(i.webhook), id: String(i.id), echeance: String(i.prochaine_tentative) }));
};
