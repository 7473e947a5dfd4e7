/**
 * The anonymous movements of erased jobs (MOUVEMENT#<random id>): when a job is erased, its debit and,
 * when it failed, its refund are kept as they moved the balance, so the account page's movements still
 * add up to the balance (issue 41, point 2). Each holds the date, the kind of movement, the credits, the
 * tool and the account: no job or batch id, no name, no settings, nothing that leads back to the erased
 * work (its id is a new random one, written in the same transaction as the job's deletion, so an erasure
 * that runs twice cannot write them twice). They go when the job would have gone: at the end of its
 * retention (a job's movements are shown as long as the job is kept, core/domaine/mouvements.ts).
 */
import { randomUUID } from 'node:crypto';
import type { EnregistrementTravail } from '../modele/enregistrements';
import type { IdOutil } from '../modele/outils';
import { ATTRIBUT_TTL, derniersDuCompte, PREFIXES_TABLE, RETENTION_SECONDES, ttlDans, type DepsTable } from './table';

export interface MouvementAnonyme {
  compte: string;
  date: string;
  nature: 'debit' | 'remboursement';
  /** Signed: a debit is negative. */
  credits: number;
  outil: IdOutil;
}

const item = (table: string, m: MouvementAnonyme, expire_a: number) => {
  const id = randomUUID();
  return {
    Put: {
      TableName: table,
      Item: {
        pk: `${PREFIXES_TABLE.mouvement}${id}`,
        sk: 'MOUVEMENT',
        type: 'mouvement',
        ...m,
        gsi1pk: `${PREFIXES_TABLE.compte}${m.compte}`,
        gsi1sk: `${PREFIXES_TABLE.mouvement}${m.date}#${id}`,
        [ATTRIBUT_TTL]: expire_a,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
};

/**
 * The transaction items that keep an erased job's movements, anonymous: none for a job that cost
 * nothing (a test key's), its debit, and its refund when it had one (dated by its end, as shown before).
 */
export const elementsMouvementsEfface = (
  table: string,
  t: Pick<EnregistrementTravail, 'compte' | 'outil' | 'cout' | 'rembourse' | 'cree_le' | 'termine_le' | 'test'>,
) => {
  if (t.test === true || t.cout <= 0) return [];
  const expire_a = ttlDans(new Date(t.cree_le), RETENTION_SECONDES);
  const commun = { compte: t.compte, outil: t.outil };
  return [
    item(table, { ...commun, date: t.cree_le, nature: 'debit', credits: -t.cout }, expire_a),
    ...(t.rembourse ? [item(table, { ...commun, date: t.termine_le ?? t.cree_le, nature: 'remboursement', credits: t.cout }, expire_a)] : []),
  ];
};

/** An account's newest anonymous movements, at most `limite`. */
export const duCompte = async (d: DepsTable, compte: string, limite: number): Promise<MouvementAnonyme[]> => {
  const items = await derniersDuCompte(d, compte, PREFIXES_TABLE.mouvement, limite);
  return items.map(({ compte: c, date, nature, credits, outil }) => ({ compte: c, date, nature, credits: Number(credits), outil }) as MouvementAnonyme);
};
