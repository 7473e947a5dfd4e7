/**
 * Erasure on request (GDPR Art. 17; our extension): a job (`DELETE /travaux/{id}`), a batch
 * (`DELETE /lots/{id}`), or all of an account's work (the admin CLI's `erase-account`).
 *
 * What goes: a job's inputs (sent with the request, fetched from a URL or uploaded), its results, the
 * ZIP of its batch, its record, its uploads' records and the stored answer of its request
 * (`Idempotency-Key`). What stays: the account, its balance (an erasure neither refunds nor charges),
 * the hashes of its keys, and the job's debit and refund as anonymous movements (date, tool, credits:
 * depots/mouvements.ts), so that the account's movements still add up to its balance.
 *
 * The order holds under any crash or race:
 *   1. the request is recorded (`EFFACEMENT#<id>`, in the sweeper's `ouverts` index): whatever stops
 *      the erasure after this, the sweeper finishes it;
 *   2. a job of a batch takes the batch's claim (core/depots/lots.ts), as a ZIP writer would: no ZIP
 *      is written from its jobs while their files go, and a ZIP writer that took the claim over
 *      (ours expired) skips the jobs whose erasure is recorded (core/domaine/lots.ts);
 *   3. files;
 *   4. records last, in one transaction that also releases the claim: an erasure cut short leaves
 *      records that still name what is left, and the same call, repeated, finishes it.
 * A job that has not ended, or a batch whose ZIP is being written, cannot be erased at once (its step
 * would write files after us): the recorded request waits, and the sweeper does it once the work has
 * ended. The request's `Idempotency-Key` outlives the erasure, without its stored answer
 * (core/domaine/idempotence.ts): a replay within its 24 hours starts and charges nothing. An upload's record
 * becomes a nameless tombstone until its URL is dead, so that a file PUT with it afterwards goes too.
 *
 * This folder: commun.ts (what an erasure is and answers, a job's files and linked records, the
 * recorded request), travail.ts (one job), lot.ts (a batch), demandes.ts (the sweeper's part: a
 * recorded request done once its work has ended), compte.ts (all of an account's work).
 */
import { cleEntree, cleTexte, idTeleversement, resultatsDuTravail } from '../../modele/cles-s3';
import type { AvecObjets, AvecTable } from '../../infra/dependances';
import * as effacements from '../../depots/effacements';
import type { ElementTransaction } from '../../depots/transactions';
import { elementsMouvementsEfface } from '../../depots/mouvements';
import { elementEffacer as elementEffacerTravail } from '../../depots/travaux';
import { EXTENSIONS, type FormatImage } from '../../modele/images';
import type { EnregistrementTravail } from '../../modele/enregistrements';
import { elementTeleversementEfface } from '../televersements';

export type DepsEffacement = AvecTable & AvecObjets;

/** What an erasure did: the answer of `DELETE /travaux/{id}` and `DELETE /lots/{id}` (our extension). */
export interface Effacement {
  efface_le: string;
  /** Jobs erased: files, records, uploads, the request's stored answer. */
  travaux: string[];
  /** Batches erased whole (their record and ZIP). */
  lots: string[];
  /** Batches that keep other jobs: their ZIP was deleted and is written again without the erased jobs. */
  zips_refaits: string[];
  /** Stored files deleted, as recorded: inputs, uploads, results, ZIPs. */
  fichiers: number;
}

export type Issue =
  | { statut: 'efface'; effacement: Effacement }
  /** Not yet possible (a job running, a ZIP being written): to record and do at the work's end. */
  | { statut: 'differe'; raison: string }
  /** Nothing to erase any more (already erased, maybe by a concurrent call). */
  | { statut: 'absent' };

const FORMATS = Object.keys(EXTENSIONS) as FormatImage[];

export const estOuvert = (t: Pick<EnregistrementTravail, 'statut'>): boolean => t.statut === 'en_attente' || t.statut === 'en_cours';

/**
 * A job's files: those its record names, and every key a step may have written without the record
 * knowing it — an input fetched from a URL (its format is only known to the Preparer step), a result
 * written by a tool step whose job then failed. Deleting a key that is not there costs one request,
 * and keeps the API roles from ever listing the bucket.
 */
export const fichiersDuTravail = (t: EnregistrementTravail): { enregistres: string[]; tous: string[] } => {
  const enregistres = [...t.entrees.flatMap((e) => (e.type === 's3' ? [e.cle] : [])), ...t.resultats.map((r) => r.cle)];
  const possibles = [
    ...t.entrees.flatMap((_, rang) => FORMATS.map((f) => cleEntree(t.compte, t.id, rang, f))),
    ...(t.outil === 'annonce' ? [cleTexte(t.compte, t.id)] : resultatsDuTravail(t, FORMATS).map((r) => r.cle)),
  ];
  return { enregistres, tous: [...new Set([...enregistres, ...possibles])] };
};

/** The uploads a job used: their ids. */
export const televersementsDuTravail = (t: EnregistrementTravail): string[] => [
  ...new Set(
    t.entrees.flatMap((e) => {
      const id = e.type === 's3' ? idTeleversement(t.compte, e.cle) : undefined;
      return id ? [id] : [];
    }),
  ),
];

/**
 * The records that go with a job's, as transaction items: its claims on uploads (a listing job's), its
 * uploads' records turned into tombstones, its recorded erasure; and its movements, kept anonymous. In
 * the transaction that deletes the job under the condition that it is there, so they are written once.
 */
export const elementsLies = (d: DepsEffacement, t: EnregistrementTravail, maintenant: Date): ElementTransaction[] => {
  const televersements = televersementsDuTravail(t);
  return [
    ...televersements.filter((id) => id !== t.id).map((id) => elementEffacerTravail(d.table, id)),
    ...televersements.map((id) => elementTeleversementEfface(d.table, t.compte, id, t.cree_le, maintenant)),
    effacements.elementSupprimer(d.table, t.id),
    ...elementsMouvementsEfface(d.table, t),
  ];
};

/** Another erasure of the same batch holds it for milliseconds: wait a little, with jitter, rather than defer. */
export const patienter = (essai: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 25 * 2 ** essai)));
export const ESSAIS_EFFACEMENT = 8;

/** Records an erasure to do when its job or batch has ended (the sweeper reads `ouverts`). */
export const demanderEffacement = (d: DepsEffacement, quoi: 'travail' | 'lot', id: string, compte: string): Promise<void> =>
  effacements.demander(d, { quoi, id, compte, demande_le: d.horloge().toISOString() });
