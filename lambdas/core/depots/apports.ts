/**
 * Credits added to an account (APPORT#<id>): a purchase through Stripe, the sign-up's credits of a web
 * user, an operator's; and credits taken back, recorded the same way with negative credits: a purchase
 * refunded or disputed, an operator's removal. Each is written in the same transaction as the balance
 * it moves, under the condition that it is new, so that a purchase whose event Stripe sends twice (or
 * two deliveries that race) raises the balance once: a purchase's id is its Checkout Session's. They
 * have no TTL: they are the account's record of what it paid for (docs/privacy.md), and the movements
 * page reads them beside the jobs' debits and refunds (core/domaine/mouvements.ts).
 *
 * A purchase paid through a PaymentIntent also gets a PAIEMENT#<payment intent> item, written with its
 * credit: Stripe's refund and dispute events name the payment, never the Checkout Session, and that
 * item says which account and how many credits it bought, and how many were taken back so far.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { cleItem as cleCompte } from './comptes';
import { derniersDuCompte, PREFIXES_TABLE, type DepsTable } from './table';
import { avecReessais, raisonsAnnulation } from './transactions';

/** Credits taken back: a purchase refunded, a purchase disputed (a chargeback), an operator's removal. */
export type OrigineReprise = 'achat_rembourse' | 'achat_conteste' | 'retrait_operateur';
export type OrigineApport = 'achat' | 'inscription' | 'operateur' | OrigineReprise;

export interface EnregistrementApport {
  id: string;
  compte: string;
  /** Signed: negative when credits were taken back. */
  credits: number;
  origine: OrigineApport;
  cree_le: string;
  /** A purchase's pack (its Payment Link's id) and the Stripe event that credited it, or took credits back. */
  pack?: string;
  evenement?: string;
  /** The PaymentIntent a purchase was paid with, on the purchase and on what a refund or dispute took back. */
  paiement?: string;
  /** Why an operator removed credits (the admin CLI asks for it): for the operators, not shown on the account page. */
  raison?: string;
}

/** A purchase, by the PaymentIntent that paid it: what its refunds and disputes may take back. */
export interface EnregistrementPaiement {
  /** The PaymentIntent's id (`pi_…`). */
  paiement: string;
  compte: string;
  /** The Checkout Session credited (its APPORT is `stripe-<session>`) and its pack. */
  session: string;
  pack: string;
  /** The pack's credits: the most its refunds and disputes can take back, together. */
  credits: number;
  /** Credits taken back so far, cumulated over its refunds and dispute. */
  repris: number;
  cree_le: string;
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

/**
 * The transaction item that moves an existing account's balance by `credits` (negative: taken back).
 * With a `plancher`, only while the balance stays at or above it once moved; on a failed condition it
 * returns the account as it was, to tell a missing account from a balance too low.
 */
export const elementCredit = (table: string, compte: string, credits: number, plancher?: number) => ({
  Update: {
    TableName: table,
    Key: cleCompte(compte),
    UpdateExpression: 'ADD credits :n',
    ConditionExpression: plancher === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND credits >= :avant',
    ExpressionAttributeValues: { ':n': credits, ...(plancher === undefined ? {} : { ':avant': plancher - credits }) },
    ...(plancher === undefined ? {} : { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
  },
});

export const clePaiement = (paiement: string) => ({ pk: `${PREFIXES_TABLE.paiement}${paiement}`, sk: 'PAIEMENT' });

const elementPaiement = (table: string, paiement: EnregistrementPaiement) => ({
  Put: {
    TableName: table,
    Item: { ...clePaiement(paiement.paiement), type: 'paiement', ...paiement },
    // A PaymentIntent pays one Checkout Session: written once, with that session's credit.
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * Records the credits and raises the balance, together (and a purchase's payment, when it has one):
 * `credite`, `deja` when this id was recorded before (nothing written), `sans_compte` when there is no
 * such account (nothing written).
 */
export const crediter = async (d: DepsTable, apport: EnregistrementApport, paiement?: EnregistrementPaiement): Promise<'credite' | 'deja' | 'sans_compte'> => {
  try {
    // Retried on conflicts: a job's debit of the same account, or a second delivery racing this one.
    await avecReessais(d, {
      TransactItems: [
        elementApport(d.table, apport),
        elementCredit(d.table, apport.compte, apport.credits),
        ...(paiement ? [elementPaiement(d.table, paiement)] : []),
      ],
    });
    return 'credite';
  } catch (erreur) {
    const raisons = raisonsAnnulation(erreur);
    if (raisons?.[0]?.Code === 'ConditionalCheckFailed') return 'deja';
    if (raisons?.[1]?.Code === 'ConditionalCheckFailed') return 'sans_compte';
    throw erreur;
  }
};

/**
 * Records credits taken back and lowers the balance, together (`apport.credits` negative). With a
 * `plancher`, only while the balance stays at or above it: `solde_insuffisant` (with the balance)
 * otherwise; `sans_compte` when there is no such account. Nothing is written unless `retire`.
 */
export const retirer = async (
  d: DepsTable,
  apport: EnregistrementApport,
  plancher?: number,
): Promise<{ issue: 'retire' } | { issue: 'solde_insuffisant'; credits: number } | { issue: 'sans_compte' }> => {
  try {
    await avecReessais(d, { TransactItems: [elementApport(d.table, apport), elementCredit(d.table, apport.compte, apport.credits, plancher)] });
    return { issue: 'retire' };
  } catch (erreur) {
    const compte = raisonsAnnulation(erreur)?.[1];
    if (compte?.Code !== 'ConditionalCheckFailed') throw erreur;
    return compte.Item ? { issue: 'solde_insuffisant', credits: Number(compte.Item.credits ?? 0) } : { issue: 'sans_compte' };
  }
};

/** A purchase by its PaymentIntent, as it is now (a strongly consistent read: the take back decides from it). */
export const lirePaiement = async (d: DepsTable, paiement: string): Promise<EnregistrementPaiement | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: clePaiement(paiement), ConsistentRead: true }));
  if (!Item) return undefined;
  const { paiement: id, compte, session, pack, credits, repris, cree_le } = Item;
  return { paiement: id, compte, session, pack, credits: Number(credits), repris: Number(repris ?? 0), cree_le } as EnregistrementPaiement;
};

/**
 * Takes back a purchase's credits up to `cible` in all: the payment's count of credits taken back goes
 * from what was read (`paiement.repris`) to `cible`, the balance down by the difference, and the
 * movement is recorded, in one transaction. `concurrence` when the payment changed since it was read
 * (another event, or the same one delivered twice, took credits back meanwhile): nothing was written,
 * and the caller reads it again. `sans_compte` when its account is gone.
 */
export const reprendre = async (
  d: DepsTable,
  paiement: EnregistrementPaiement,
  cible: number,
  mouvement: Pick<EnregistrementApport, 'origine' | 'cree_le' | 'evenement'>,
): Promise<'repris' | 'concurrence' | 'sans_compte'> => {
  const credits = -(cible - paiement.repris);
  try {
    await avecReessais(d, {
      TransactItems: [
        {
          Update: {
            TableName: d.table,
            Key: clePaiement(paiement.paiement),
            UpdateExpression: 'SET repris = :cible, repris_le = :date',
            ConditionExpression: 'repris = :avant AND :cible <= credits',
            ExpressionAttributeValues: { ':cible': cible, ':avant': paiement.repris, ':date': mouvement.cree_le },
          },
        },
        elementCredit(d.table, paiement.compte, credits),
        // Named by the count it brings the payment to: one record per step, whatever event took it.
        elementApport(d.table, {
          id: `reprise-${paiement.paiement}-${cible}`,
          compte: paiement.compte,
          credits,
          pack: paiement.pack,
          paiement: paiement.paiement,
          ...mouvement,
        }),
      ],
    });
    return 'repris';
  } catch (erreur) {
    const raisons = raisonsAnnulation(erreur);
    if (raisons?.[1]?.Code === 'ConditionalCheckFailed') return 'sans_compte';
    if (raisons?.[0]?.Code === 'ConditionalCheckFailed' || raisons?.[2]?.Code === 'ConditionalCheckFailed') return 'concurrence';
    throw erreur;
  }
};

/** An account's newest credits added, at most `limite`. */
export const duCompte = async (d: DepsTable, compte: string, limite: number): Promise<EnregistrementApport[]> => {
  const items = await derniersDuCompte(d, compte, PREFIXES_TABLE.apport, limite);
  return items.map(({ id, compte: c, credits, origine, cree_le, pack, evenement, paiement, raison }) => ({
    id,
    compte: c,
    credits: Number(credits),
    origine,
    cree_le,
    ...(pack ? { pack } : {}),
    ...(evenement ? { evenement } : {}),
    ...(paiement ? { paiement } : {}),
    ...(raison ? { raison } : {}),
  })) as EnregistrementApport[];
};

/** The record of a new account's first credits, written with the account (none when it starts at 0). */
export const elementsOuverture = (table: string, compte: string, credits: number, origine: 'inscription' | 'operateur', cree_le: string) =>
  credits > 0 ? [elementApport(table, { id: `ouverture-${compte}`, compte, credits, origine, cree_le })] : [];
