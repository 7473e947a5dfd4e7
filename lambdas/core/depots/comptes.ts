/**
 * Accounts (COMPTE#<id>) and API keys (CLE#<sha256 of the key>, listed under their account in gsi1).
 * An account holds the balance (`credits`) and the counters every limit reads: jobs pending
 * (`travaux_ouverts`, stored as `en_attente`), active keys (`nb_cles`), outstanding uploads
 * (`televersements_ouverts`); each moves
 * in the same write as what it counts, so it stays exact under races and retries. The other domains
 * move them through this module's transaction items. Keys and limits are core/domaine/comptes.ts's rules.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AvecTable, Dependances } from '../infra/dependances';
import { INDEX, PREFIXES_TABLE, toutInterroger, type DepsTable } from './table';
import { ecrire, raisonsAnnulation, type ElementTransaction, type RaisonAnnulation } from './transactions';

export interface EnregistrementCompte {
  id: string;
  credits: number;
  /**
   * The account's open jobs (`en_attente` or `en_cours`): the pending-jobs limit reads it, job ends
   * decrement it. Stored under the attribute `en_attente`, the name the items already written carry;
   * only this module knows it (`depuisItem`), so the code never confuses it with a job's state.
   */
  travaux_ouverts: number;
  /** The same count for jobs started with test keys (`en_attente_test`): the limit holds in test, apart from live jobs. */
  travaux_ouverts_test: number;
  nb_cles: number;
  cree_le: string;
}

export interface EnregistrementCle {
  compte: string;
  /** The name its owner gave it on the web site (none for a key the admin CLI made). */
  nom?: string;
  /** First characters of the key, to tell keys apart in a listing without storing the key. */
  apercu: string;
  cree_le: string;
  revoquee: boolean;
  /** A test key: its jobs are free, run the preview engine and are kept apart (core/domaine/comptes.ts). */
  test?: true;
}

/** A key as stored: its hash (never the key) and its first characters. */
export interface NouvelleCle {
  empreinte: string;
  apercu: string;
  nom?: string;
  test?: true;
}

/** A key of an account's listing: its record and its hash, which names it (`DELETE /compte/cles/{id}`). */
export interface CleListee extends EnregistrementCle {
  empreinte: string;
}

export const cleItem = (compte: string) => ({ pk: `${PREFIXES_TABLE.compte}${compte}`, sk: 'COMPTE' });
/** The key item of an API key, by the key's hash. */
export const cleApi = (empreinte: string) => ({ pk: `${PREFIXES_TABLE.cle}${empreinte}`, sk: 'CLE' });

const elementCle = (d: Pick<Dependances, 'table' | 'horloge'>, compte: string, nouvelle: NouvelleCle) => ({
  Put: {
    TableName: d.table,
    Item: {
      ...cleApi(nouvelle.empreinte),
      gsi1pk: `COMPTE#${compte}`,
      gsi1sk: `CLE#${d.horloge().toISOString()}`,
      type: 'cle',
      compte,
      apercu: nouvelle.apercu,
      ...(nouvelle.nom ? { nom: nouvelle.nom } : {}),
      ...(nouvelle.test ? { test: true } : {}),
      cree_le: d.horloge().toISOString(),
      revoquee: false,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The transaction item that creates an account with `nbCles` keys written beside it (none for a web user's). */
export const elementCreation = (d: Pick<Dependances, 'table' | 'horloge'>, compte: string, credits: number, nbCles: number) => ({
  Put: {
    TableName: d.table,
    Item: { ...cleItem(compte), type: 'compte', id: compte, credits, en_attente: 0, nb_cles: nbCles, cree_le: d.horloge().toISOString() },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** A new account and its first key, together, with what else the caller writes beside them (the record of its credits). */
export const creer = async (d: AvecTable, compte: string, credits: number, nouvelle: NouvelleCle, avec: ElementTransaction[] = []): Promise<void> => {
  await ecrire(d, [elementCreation(d, compte, credits, 1), elementCle(d, compte, nouvelle), ...avec]);
};

/** An account item as stored → its record; also reads the item a cancelled debit returns (core/domaine/facturation.ts). */
export const depuisItem = (item: Record<string, unknown> | undefined): EnregistrementCompte | undefined => {
  if (!item) return undefined;
  const { en_attente, en_attente_test, ...reste } = item;
  return {
    ...(reste as Omit<EnregistrementCompte, 'travaux_ouverts' | 'travaux_ouverts_test'>),
    travaux_ouverts: Number(en_attente ?? 0),
    travaux_ouverts_test: Number(en_attente_test ?? 0),
  };
};

export const lire = async (d: DepsTable, compte: string): Promise<EnregistrementCompte | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(compte), ConsistentRead: true }));
  return depuisItem(Item);
};

/**
 * One more key for the account, counted in the same transaction, while it has fewer than `max`:
 * `plein` when it has `max` already, `absent` when there is no such account.
 */
export const ajouterCle = async (d: AvecTable, compte: string, nouvelle: NouvelleCle, max: number): Promise<'ajoutee' | 'plein' | 'absent'> => {
  try {
    await ecrire(d, [
      {
        Update: {
          TableName: d.table,
          Key: cleItem(compte),
          UpdateExpression: 'SET nb_cles = nb_cles + :un',
          ConditionExpression: 'attribute_exists(pk) AND nb_cles < :max',
          ExpressionAttributeValues: { ':un': 1, ':max': max },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      elementCle(d, compte, nouvelle),
    ]);
    return 'ajoutee';
  } catch (erreur) {
    const compteRefuse: RaisonAnnulation | undefined = raisonsAnnulation(erreur)?.[0];
    if (compteRefuse?.Code !== 'ConditionalCheckFailed') throw erreur;
    return compteRefuse.Item ? 'plein' : 'absent';
  }
};

export const lireCle = async (d: DepsTable, empreinte: string): Promise<EnregistrementCle | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleApi(empreinte), ConsistentRead: true }));
  return Item as EnregistrementCle | undefined;
};

/** The account's keys, active and revoked, newest first. */
export const listerCles = async (d: DepsTable, compte: string): Promise<CleListee[]> => {
  const items = await toutInterroger<Record<string, unknown>>(d, {
    IndexName: INDEX.parCompte,
    KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :c)',
    ExpressionAttributeValues: { ':p': `COMPTE#${compte}`, ':c': 'CLE#' },
    ScanIndexForward: false,
  });
  return items.map((item) => ({ ...(item as unknown as EnregistrementCle), empreinte: String(item.pk).slice(PREFIXES_TABLE.cle.length) }));
};

/**
 * Revokes a key and uncounts it from its account, together, once: false when the transaction was
 * cancelled (revoked meanwhile by a concurrent call).
 */
export const revoquerEmpreinte = async (d: Pick<Dependances, 'ddb' | 'table'>, empreinte: string, compte: string, maintenant: Date): Promise<boolean> => {
  try {
    await ecrire(d, [
      {
        Update: {
          TableName: d.table,
          Key: cleApi(empreinte),
          UpdateExpression: 'SET revoquee = :vrai, revoquee_le = :maintenant',
          ConditionExpression: 'revoquee = :faux',
          ExpressionAttributeValues: { ':vrai': true, ':faux': false, ':maintenant': maintenant.toISOString() },
        },
      },
      {
        Update: {
          TableName: d.table,
          Key: cleItem(compte),
          UpdateExpression: 'SET nb_cles = nb_cles - :un',
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

/**
 * The debit's transaction item (core/domaine/facturation.ts): the whole cost taken from the balance, the jobs
 * counted pending, under the balance and pending-limit conditions checked by this very write (at most
 * `max` pending once it is done), and the uploads the jobs use no longer outstanding. On a failed
 * condition it returns the account as it was, to say why.
 */
/** The attribute that counts an account's open jobs, live or test (test jobs have their own limit). */
const compteur = (test: boolean | undefined) => (test ? 'en_attente_test' : 'en_attente');

export const elementDebit = (table: string, compte: string, debit: { cout: number; travaux: number; max: number; televersements?: number; test?: boolean }) => {
  const n = compteur(debit.test);
  return {
    Update: {
      TableName: table,
      Key: cleItem(compte),
      // The uploads the jobs use stop counting as outstanding (core/domaine/televersements.ts) in the same write.
      UpdateExpression: `SET credits = credits - :cout, ${n} = if_not_exists(${n}, :zero) + :n${
        debit.televersements ? ', televersements_ouverts = if_not_exists(televersements_ouverts, :t) - :t' : ''
      }`,
      // The balance and the pending limit are checked by the very write that debits.
      ConditionExpression: `credits >= :cout AND (attribute_not_exists(${n}) OR ${n} <= :max_avant)`,
      ExpressionAttributeValues: {
        ':cout': debit.cout,
        ':n': debit.travaux,
        ':zero': 0,
        ':max_avant': debit.max - debit.travaux,
        ...(debit.televersements ? { ':t': debit.televersements } : {}),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
};

/** A job's end (core/domaine/cycle.ts): no longer pending, and `credits` given back (its cost when refunded, else 0). */
export const elementFinTravail = (table: string, compte: string, credits: number, test?: boolean) => ({
  Update: {
    TableName: table,
    Key: cleItem(compte),
    UpdateExpression: `SET ${compteur(test)} = ${compteur(test)} - :un, credits = credits + :credits`,
    ExpressionAttributeValues: { ':un': 1, ':credits': credits },
  },
});

/**
 * Uploads announced (core/domaine/televersements.ts), counted by the write that creates them, so that a burst
 * of announcements cannot pass the cap together: only while the balance pays for a job
 * (`creditsMin`) and at most `max` are outstanding once they are counted. On a failed condition it
 * returns the account as it was, to say why.
 */
export const elementAnnonceTeleversements = (table: string, compte: string, annonce: { nombre: number; creditsMin: number; max: number }) => ({
  Update: {
    TableName: table,
    Key: cleItem(compte),
    UpdateExpression: 'SET televersements_ouverts = if_not_exists(televersements_ouverts, :zero) + :n',
    ConditionExpression: 'attribute_exists(pk) AND credits >= :min AND (attribute_not_exists(televersements_ouverts) OR televersements_ouverts <= :max_avant)',
    ExpressionAttributeValues: {
      ':zero': 0,
      ':n': annonce.nombre,
      ':min': annonce.creditsMin,
      ':max_avant': annonce.max - annonce.nombre,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  },
});

/** An upload no job used, removed: no longer outstanding (fails for an account without the counter, or erased). */
export const elementRetraitTeleversement = (table: string, compte: string) => ({
  Update: {
    TableName: table,
    Key: cleItem(compte),
    UpdateExpression: 'SET televersements_ouverts = televersements_ouverts - :un',
    ConditionExpression: 'attribute_exists(pk) AND televersements_ouverts >= :un',
    ExpressionAttributeValues: { ':un': 1 },
  },
});
