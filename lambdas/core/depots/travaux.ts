/**
 * Jobs (TRAVAIL#<id>): a job's record and its states `en_attente` → `en_cours` → `termine` | `echec`,
 * each move a conditional write on the current state, so that a step retried after it took effect,
 * or repeated by the sweeper, changes nothing the second time. A job is listed under its account
 * (gsi1) and under its account and tool (gsi2), and stays in the sweeper's `ouverts` index (gsi3)
 * until it ends.
 *
 * The same key space holds a listing job's claim on each upload it uses (TRAVAIL#<upload id>, type
 * `utilisation`): a job written once, or a claim, is an upload's single use (core/domaine/televersements.ts).
 * A claim is no job: `lire` never returns one.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EnregistrementTravail, ErreurDuTravail, Resultat } from '../modele/enregistrements';
import type { IdOutil } from '../modele/outils';
import type { ControleStructure, Floutage, Redaction } from '../modele/sorties';
import { idsOuverts, INDEX, lireParCles, OUVERTS, PREFIXES_TABLE, toutInterroger, type DepsTable } from './table';
import { estConditionEchouee } from './transactions';

export const cleItem = (id: string) => ({ pk: `${PREFIXES_TABLE.travail}${id}`, sk: 'TRAVAIL' });

/**
 * The partition of an account's jobs in its indexes: test jobs (started with a test key) have their own,
 * so a live listing never reads one, nor a test listing a live one.
 */
const partition = (compte: string, test: boolean | undefined) => (test ? `COMPTE#${compte}#TEST` : `COMPTE#${compte}`);

/** A job's keys in the account's index (gsi1) and in its per-tool index (gsi2): written with it, and where a page starts. */
const clesParCompte = (t: Pick<EnregistrementTravail, 'compte' | 'cree_le' | 'id' | 'test'>) => ({
  gsi1pk: partition(t.compte, t.test),
  gsi1sk: `TRAVAIL#${t.cree_le}#${t.id}`,
});
const clesParOutil = (t: Pick<EnregistrementTravail, 'compte' | 'outil' | 'cree_le' | 'id' | 'test'>) => ({
  gsi2pk: `${partition(t.compte, t.test)}#${t.outil}`,
  gsi2sk: `${t.cree_le}#${t.id}`,
});

/** A new job's record: `en_attente`, nothing run, nothing refunded, its first run. */
/** A job as POST /travaux writes it: not started, so nothing of it to link to. */
export type TravailNouveau = EnregistrementTravail & { statut: 'en_attente' };

export const nouveau = (
  champs: Pick<
    EnregistrementTravail,
    | 'id'
    | 'compte'
    | 'outil'
    | 'cout'
    | 'valeurs'
    | 'valeurs_nommees'
    | 'lot'
    | 'index'
    | 'nom'
    | 'source'
    | 'cree_le'
    | 'entrees'
    | 'test'
    | 'apercu'
    | 'langue_apercu'
  >,
): TravailNouveau => ({
  id: champs.id,
  compte: champs.compte,
  outil: champs.outil,
  statut: 'en_attente',
  cout: champs.cout,
  valeurs: champs.valeurs,
  ...(champs.valeurs_nommees ? { valeurs_nommees: champs.valeurs_nommees } : {}),
  lot: champs.lot,
  index: champs.index,
  nom: champs.nom,
  source: champs.source,
  cree_le: champs.cree_le,
  commence_le: null,
  termine_le: null,
  entrees: champs.entrees,
  resultats: [],
  texte: null,
  erreur: null,
  rembourse: false,
  graine: null,
  tentative: 1,
  ...(champs.test ? { test: true as const } : {}),
  ...(champs.apercu ? { apercu: true, ...(champs.langue_apercu ? { langue_apercu: champs.langue_apercu } : {}) } : {}),
});

/**
 * The debit's transaction item that writes a job (core/domaine/facturation.ts), once: it fails if the id is
 * taken (by a job or a listing's claim on the upload whose id it bears). `idempotence`: the request's
 * Idempotency-Key, so that erasing the job erases the replay of its request too (core/domaine/effacement/).
 */
export const elementCreer = (table: string, travail: EnregistrementTravail, options: { idempotence: string | undefined; expire_a: number }) => ({
  Put: {
    TableName: table,
    Item: {
      ...cleItem(travail.id),
      type: 'travail',
      ...travail,
      ...clesParCompte(travail),
      ...clesParOutil(travail),
      gsi3pk: OUVERTS.travaux,
      gsi3sk: `${travail.cree_le}#${travail.id}`,
      ...(options.idempotence !== undefined ? { idempotence: options.idempotence } : {}),
      expire_a: options.expire_a,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * The debit's transaction item that uses an upload of a listing job, once: the claim TRAVAIL#<upload
 * id>, which fails if a job or another claim holds it. It lives as long as the job and goes with it.
 */
export const elementUtilisation = (table: string, compte: string, televersement: string, travail: string, expire_a: number) => ({
  Put: {
    TableName: table,
    Item: { ...cleItem(televersement), type: 'utilisation', compte, televersement, travail, expire_a },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The transaction item that holds only while no job and no claim uses this upload id. */
export const elementNonUtilise = (table: string, televersement: string) => ({
  ConditionCheck: { TableName: table, Key: cleItem(televersement), ConditionExpression: 'attribute_not_exists(pk)' },
});

/** Whether a job or a listing's claim holds this id: the upload of that id is used. */
export const estUtilise = async (d: DepsTable, televersement: string): Promise<boolean> =>
  (await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(televersement), ConsistentRead: true }))).Item !== undefined;

/** A job's record; a listing job's claim on an upload shares the key space and is no job. */
export const lire = async (d: DepsTable, id: string): Promise<EnregistrementTravail | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(id), ConsistentRead: true }));
  return Item?.type === 'utilisation' ? undefined : (Item as EnregistrementTravail | undefined);
};

/** Jobs by id (a batch has at most 50). */
export const lirePlusieurs = (d: DepsTable, ids: readonly string[]): Promise<EnregistrementTravail[]> =>
  lireParCles<EnregistrementTravail>(
    d,
    ids.map((id) => cleItem(id)),
  );

/** Every job of an account, live and test, all pages (an account's erasure, the tests' invariant). */
export const duCompte = async (d: DepsTable, compte: string): Promise<EnregistrementTravail[]> =>
  (
    await Promise.all(
      [false, true].map((test) =>
        toutInterroger<EnregistrementTravail>(d, {
          IndexName: INDEX.parCompte,
          KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
          ExpressionAttributeValues: { ':pk': partition(compte, test), ':prefixe': 'TRAVAIL#' },
        }),
      ),
    )
  ).flat();

/**
 * The account's jobs, newest first, `limite` of them, after `apres` (the last job of the page before,
 * exclusive): one item more is read to know whether another page follows. With `outil`, the query runs on
 * the per-tool index, so `limite` jobs of that tool come back even when the account's newest are of others.
 */
export const lister = async (
  d: DepsTable,
  compte: string,
  filtre: { limite: number; outil: IdOutil | undefined; apres?: { cree_le: string; id: string }; test?: boolean },
): Promise<{ travaux: EnregistrementTravail[]; encore: boolean }> => {
  const { test } = filtre;
  const requete = filtre.outil
    ? {
        IndexName: INDEX.parOutil,
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': `${partition(compte, test)}#${filtre.outil}` },
      }
    : {
        IndexName: INDEX.parCompte,
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
        ExpressionAttributeValues: { ':pk': partition(compte, test), ':prefixe': 'TRAVAIL#' },
      };
  // Where the page before stopped, as the index keys it: the item's own key and its index key.
  const { apres } = filtre;
  const mode = test ? { test: true as const } : {};
  const depart = apres
    ? {
        ...cleItem(apres.id),
        ...(filtre.outil ? clesParOutil({ compte, outil: filtre.outil, ...apres, ...mode }) : clesParCompte({ compte, ...apres, ...mode })),
      }
    : undefined;
  const { Items } = await d.ddb.send(
    new QueryCommand({
      TableName: d.table,
      ...requete,
      ScanIndexForward: false,
      Limit: filtre.limite + 1,
      ...(depart ? { ExclusiveStartKey: depart } : {}),
    }),
  );
  const travaux = (Items ?? []) as EnregistrementTravail[];
  return { travaux: travaux.slice(0, filtre.limite), encore: travaux.length > filtre.limite };
};

/** `en_attente` → `en_cours`: the job as it is then, or undefined when it was not `en_attente`. */
export const commencer = async (d: DepsTable, id: string, maintenant: Date): Promise<EnregistrementTravail | undefined> => {
  try {
    const { Attributes } = await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(id),
        UpdateExpression: 'SET statut = :en_cours, commence_le = :maintenant',
        ConditionExpression: 'statut = :en_attente',
        ExpressionAttributeValues: { ':en_cours': 'en_cours', ':en_attente': 'en_attente', ':maintenant': maintenant.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as EnregistrementTravail;
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
    return undefined;
  }
};

/**
 * The next run of an open job that has had fewer than `tentatives` runs: the job as it is then, or
 * undefined when it had them all or has ended meanwhile.
 */
export const relancer = async (d: DepsTable, id: string, tentatives: number): Promise<EnregistrementTravail | undefined> => {
  try {
    const { Attributes } = await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(id),
        UpdateExpression: 'SET tentative = :deux',
        ConditionExpression: 'statut IN (:en_attente, :en_cours) AND (attribute_not_exists(tentative) OR tentative < :deux)',
        ExpressionAttributeValues: { ':deux': tentatives, ':en_attente': 'en_attente', ':en_cours': 'en_cours' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as EnregistrementTravail;
  } catch (erreur) {
    if (estConditionEchouee(erreur)) return undefined;
    throw erreur;
  }
};

/**
 * Guard of a job's end by run `tentative` (core/infra/executions.ts): only the job's current run may end it.
 * Undefined: the sweeper's end, which decided from the job's current run.
 */
const gardeTentative = (tentative: number | undefined) => ({
  condition: tentative === undefined ? '' : ' AND (tentative = :tentative OR (attribute_not_exists(tentative) AND :tentative = :un))',
  valeurs: tentative === undefined ? {} : { ':tentative': tentative, ':un': 1 },
});

export interface Aboutissement {
  resultats: Resultat[];
  texte: string | null;
  graine: number | null;
  redaction: Redaction | null;
  structure: ControleStructure | null;
  floutage: Floutage | null;
  /** Whether the preview engine made it (the tool step says which engine ran). */
  apercu: boolean;
}

/** The transaction item of `en_cours` → `termine` with its results; the job leaves `ouverts`. */
export const elementTerminer = (table: string, id: string, fin: Aboutissement, tentative: number | undefined, maintenant: Date) => {
  const garde = gardeTentative(tentative);
  return {
    Update: {
      TableName: table,
      Key: cleItem(id),
      UpdateExpression:
        'SET statut = :termine, termine_le = :maintenant, resultats = :resultats, texte = :texte, graine = :graine, redaction = :redaction, #structure = :structure, floutage = :floutage, apercu = :apercu REMOVE gsi3pk, gsi3sk',
      ConditionExpression: `statut = :en_cours${garde.condition}`,
      ExpressionAttributeValues: {
        ...garde.valeurs,
        ':termine': 'termine',
        ':en_cours': 'en_cours',
        ':maintenant': maintenant.toISOString(),
        ':resultats': fin.resultats,
        ':texte': fin.texte,
        ':graine': fin.graine,
        ':redaction': fin.redaction,
        ':structure': fin.structure,
        ':floutage': fin.floutage,
        ':apercu': fin.apercu,
      },
      // Named through a placeholder: an attribute name never collides with DynamoDB's reserved words.
      ExpressionAttributeNames: { '#structure': 'structure' },
    },
  };
};

/** The transaction item of `en_attente` | `en_cours` → `echec`, refunded; the job leaves `ouverts`. */
export const elementEchouer = (table: string, id: string, erreur: ErreurDuTravail, tentative: number | undefined, maintenant: Date) => {
  const garde = gardeTentative(tentative);
  return {
    Update: {
      TableName: table,
      Key: cleItem(id),
      UpdateExpression: 'SET statut = :echec, termine_le = :maintenant, erreur = :erreur, rembourse = :vrai REMOVE gsi3pk, gsi3sk',
      ConditionExpression: `statut IN (:en_attente, :en_cours)${garde.condition}`,
      ExpressionAttributeValues: {
        ...garde.valeurs,
        ':echec': 'echec',
        ':en_attente': 'en_attente',
        ':en_cours': 'en_cours',
        ':maintenant': maintenant.toISOString(),
        ':erreur': erreur,
        ':vrai': true,
      },
    },
  };
};

/** The erasure's transaction item for an ended job: fails if it is gone, or not ended. */
export const elementEffacerFini = (table: string, id: string) => ({
  Delete: {
    TableName: table,
    Key: cleItem(id),
    ConditionExpression: 'attribute_exists(pk) AND statut IN (:termine, :echec)',
    ExpressionAttributeValues: { ':termine': 'termine', ':echec': 'echec' },
  },
});

/** The erasure's transaction item for a job of an erased batch (the batch's claim guards it), or for a listing's claim on an upload. */
export const elementEffacer = (table: string, id: string) => ({ Delete: { TableName: table, Key: cleItem(id) } });

/** Ids of open jobs created before `avant`, oldest first, at most `max`. */
export const ouverts = (d: DepsTable, avant: Date, max: number): AsyncGenerator<string> => idsOuverts(d, OUVERTS.travaux, avant, max);
