/**
 * The end of a batch: the one place that closes one. The job that brings `restants` to 0 asks for it
 * (its execution's FinaliserLot step); the sweeper (balayage.ts) does it for a batch whose step died.
 * Whoever does it first claims the batch for a limited time, streams its ZIP to S3, and only then
 * does the batch leave `en_cours`: a client who sees `termine`, `partiel` or `echec` can always
 * download the ZIP. A claim whose holder died expires, and the next caller takes it over (the batch's
 * record, its counters and its claim: depots/lots.ts).
 *
 * The same path writes the ZIP of an ended batch anew when one of its jobs was erased
 * (`zip_a_refaire`, core/domaine/effacement/): the sweeper finds such a batch in `ouverts` again.
 *
 * Erasures and ZIP writers take the same claim, so neither works on files the other is deleting or
 * reading. When a writer takes over the expired claim of an erasure that was cut short, it leaves out
 * the jobs whose erasure is recorded (their files may be half gone); the erasure, finished later by
 * the sweeper, has the ZIP written again. A failed attempt releases its claim at once, so an erasure
 * waiting on it goes ahead rather than wait for it to expire.
 */
import type { AvecFileWebhooks, AvecS3, AvecTable } from '../infra/dependances';
import * as effacements from '../depots/effacements';
import * as lots from '../depots/lots';
import { lirePlusieurs as lireTravaux } from '../depots/travaux';
import { statutFinalLot } from '../modele/enregistrements';
import { ecrireZip } from '../infra/zip';
import { cleZip } from '../modele/cles-s3';
import { ETIQUETTE_RETENTION, joursRestants } from '../modele/retention';
import { annoncerFinLot } from './webhooks/annonces';

/** Closing a batch: its records, its ZIP streamed S3 to S3, its announcement (`lot.fini`) on the webhook queue. */
export type DepsFinLot = AvecTable & AvecS3 & AvecFileWebhooks;

/**
 * `finaliseur`: who claims the batch (the id of the job whose execution runs this, or the sweeper).
 * A batch found ended is announced again (`lot.fini`, delivered once): the call that closed it may
 * have died before its announcement.
 */
export const finaliserLot = async (d: DepsFinLot, lotId: string, finaliseur: string): Promise<{ finalise: boolean }> => {
  if (!(await lots.reclamer(d, lotId, finaliseur, d.horloge().getTime()))) {
    const lot = await lots.lire(d, lotId);
    if (lot && lot.statut !== 'en_cours') await annoncerFinLot(d, lot);
    return { finalise: false };
  }
  try {
    return await ecrireEtFermer(d, lotId, finaliseur);
  } catch (erreur) {
    // Given back at once: whoever comes next (an erasure, the sweeper) need not wait for it to expire.
    await lots.liberer(d, lotId, finaliseur).catch(() => undefined);
    throw erreur;
  }
};

const ecrireEtFermer = async (d: DepsFinLot, lotId: string, finaliseur: string): Promise<{ finalise: boolean }> => {
  const lot = await lots.lire(d, lotId);
  if (!lot) return { finalise: false };
  const [travaux, effaces] = await Promise.all([lireTravaux(d, lot.travaux), effacements.enAttente(d, lot.travaux)]);
  const fichiers = travaux
    .sort((a, b) => a.index - b.index)
    .filter((t) => t.statut === 'termine' && !effaces.has(t.id))
    .flatMap((t) => t.resultats.map((r) => ({ cle: r.cle, nom: r.fichier })));
  // No ZIP that would outlive the batch's 90 days (written again after an erasure on its last day).
  const jours = joursRestants(lot.cree_le, d.horloge());
  const zip = fichiers.length > 0 && jours >= 1 ? cleZip(lot.compte, lot.id) : null;
  if (zip) await ecrireZip({ s3: d.s3, bucket: d.bucket, cle: zip, fichiers, etiquettes: `${ETIQUETTE_RETENTION}=${jours}` });
  // The claim is released: the batch's jobs can be erased again. A ZIP written anew keeps the batch's
  // end date. Our claim expired and another took the batch over: it writes the same ZIP and closes it.
  const ferme = await lots.finaliser(d, lotId, finaliseur, {
    statut: statutFinalLot(lot.termines, lot.echecs),
    zip_cle: zip,
    termine_le: lot.statut === 'en_cours' ? d.horloge().toISOString() : undefined,
  });
  if (ferme) await annoncerFinLot(d, { ...lot, termine_le: lot.termine_le ?? d.horloge().toISOString() });
  return { finalise: ferme };
};
