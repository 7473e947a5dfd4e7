/**
 * An account's movements of credits, newest first (GET /compte/mouvements, the web site's account
 * page): each job's debit and, when it failed, its refund, read from the job's own record (so a
 * movement always links to its job, and there is no second ledger to drift from it), the credits
 * added (a purchase, the sign-up's, an operator's: depots/apports.ts) and those taken back (a purchase
 * refunded or disputed, an operator's removal: negative, from the same records). A job's movements go with the
 * job at the end of its retention; when it is erased they stay, anonymous (depots/mouvements.ts: date, tool,
 * credits, no link), so the movements still add up to the balance.
 */
import * as apports from '../depots/apports';
import * as anonymes from '../depots/mouvements';
import * as travaux from '../depots/travaux';
import type { Dependances } from '../infra/dependances';
import type { IdOutil } from '../modele/outils';

export interface Mouvement {
  date: string;
  type: 'debit' | 'remboursement' | apports.OrigineApport;
  /** Signed: a debit is negative. */
  credits: number;
  travail: string | null;
  lot: string | null;
  outil: IdOutil | null;
  /** The movement of a job erased since: no link, no name, only its date, tool and credits. */
  efface: boolean;
}

/**
 * The newest `limite` movements among the newest `limite` jobs and credits added. A refund is dated
 * by its job's end, so it comes before (newer than) the debits of the jobs launched meanwhile.
 */
export const mouvementsDuCompte = async (d: Pick<Dependances, 'ddb' | 'table'>, compte: string, limite: number): Promise<Mouvement[]> => {
  const [jobs, ajouts, effaces] = await Promise.all([
    travaux.lister(d, compte, { limite, outil: undefined }).then((page) => page.travaux),
    apports.duCompte(d, compte, limite),
    anonymes.duCompte(d, compte, limite),
  ]);
  const duTravail = (t: (typeof jobs)[number]) => ({ travail: t.id, lot: t.lot, outil: t.outil, efface: false });
  const tous: Mouvement[] = [
    ...jobs.flatMap((t) => [
      { date: t.cree_le, type: 'debit' as const, credits: -t.cout, ...duTravail(t) },
      ...(t.rembourse ? [{ date: t.termine_le ?? t.cree_le, type: 'remboursement' as const, credits: t.cout, ...duTravail(t) }] : []),
    ]),
    ...ajouts.map((a) => ({ date: a.cree_le, type: a.origine, credits: a.credits, travail: null, lot: null, outil: null, efface: false })),
    ...effaces.map((m) => ({ date: m.date, type: m.nature, credits: m.credits, travail: null, lot: null, outil: m.outil, efface: true })),
  ];
  return tous.sort((a, b) => b.date.localeCompare(a.date)).slice(0, limite);
};
