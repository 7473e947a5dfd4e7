/**
 * Credits added to an account (APPORT#<id>): a purchase through Stripe, the sign-up's credits of a web
 * user, an operator's. Each is written in the same transaction as the balance it raises, under the
 * condition that it is new, so that a purchase whose event Stripe sends twice (or two deliveries that
 * race) raises the balance once: a purchase's id is its Checkout Session's. They have no TTL: they are
 * the account's record of what it paid for (docs/privacy.md), and the movements page reads them beside
 * the jobs' debits and refunds (core/domaine/mouvements.ts).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { cleItem as cleCompte } from './comptes';
import { INDEX, PREFIXES_TABLE, type DepsTable } from './table';
import { avecReessais, raisonsAnnulation } from './transactions';

export type OrigineApport = 'achat' | 'inscription' | 'operateur';

export interface EnregistrementApport {
  id: string;
  compte: string;
  credits: number;
  origine: OrigineApport;
  cree_le: string;
  /** A purchase's pack (its Payment Link's id) and the Stripe event that credited it. */
  pack?: string;
  evenement?: string;
}

export const cleItem = (id: string) => ({ pk: `${PREFIXES_TABLE.apport}${id}`, sk: 'APPORT' });

/** The transaction item that records credits added, once: refused when this id was recorded before. */
export const elementApport = (table: string, apport: EnregistrementApport) => ({
  Put: {
    TableName: table,
    Item: {
      ...cleItem(apport.id),
      type: 'apport',
      ...apport,
      gsi1pk: `${PREFIXES_TABLE.compte}${apport.compte}`,
      gsi1sk: `${PREFIXES_TABLE.apport}${apport.cree_le}#${apport.id}`,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The transaction item that raises an existing account's balance. */
export const elementCredit = (table: string, compte: string, credits: number) => ({
  Update: {
    TableName: table,
    Key: cleCompte(compte),
    UpdateExpression: 'ADD credits :n',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':n': credits },
  },
});

/**
 * Records the credits and raises the balance, together: `credite`, `deja` when this id was recorded
 * before (nothing written), `sans_compte` when there is no such account (nothing written).
 */
export const crediter = async (d: DepsTable, apport: EnregistrementApport): Promise<'credite' | 'deja' | 'sans_compte'> => {
  try {
    // Retried on conflicts: a job's debit of the same account, or a second delivery racing this one.
    await avecReessais(d, { TransactItems: [elementApport(d.table, apport), elementCredit(d.table, apport.compte, apport.credits)] });
    return 'credite';
  } catch (erreur) {
    const raisons = raisonsAnnulation(erreur);
    if (raisons?.[0]?.Code === 'ConditionalCheckFailed') return 'deja';
    if (raisons?.[1]?.Code === 'ConditionalCheckFailed') return 'sans_compte';
    throw erreur;
  }
};

/** An account's newest credits added, at most `limite`. */
export const duCompte = async (d: DepsTable, compte: string, limite: number): Promise<EnregistrementApport[]> => {
  const { Items } = await d.ddb.send(
    new QueryCommand({
      TableName: d.table,
      IndexName: INDEX.parCompte,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
      ExpressionAttributeValues: { ':pk': `${PREFIXES_TABLE.compte}${compte}`, ':prefixe': PREFIXES_TABLE.apport },
      ScanIndexForward: false,
      Limit: limite,
    }),
  );
  return (Items ?? []).map(({ id, compte: c, credits, origine, cree_le, pack, evenement }) => ({
    id,
    compte: c,
    credits: Number(credits),
    origine,
    cree_le,
    ...(pack ? { pack } : {}),
    ...(evenement ? { evenement } : {}),
  })) as EnregistrementApport[];
};

/** The record of a new account's first credits, written with the account (none when it starts at 0). */
export const elementsOuverture = (table: string, compte: string, credits: number, origine: Exclude<OrigineApport, 'achat'>, cree_le: string) =>
  credits > 0 ? [elementApport(table, { id: `ouverture-${compte}`, compte, credits, origine, cree_le })] : [];
