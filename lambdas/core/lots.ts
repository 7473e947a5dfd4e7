/**
 * The end of a batch: the one place that closes one. The job that brings `restants` to 0 asks for it
 * (its execution's FinaliserLot step); the sweeper (balayage.ts) does it for a batch whose step died.
 * Whoever does it first claims the batch for a limited time, streams its ZIP to S3, and only then
 * does the batch leave `en_cours`: a client who sees `termine`, `partiel` or `echec` can always
 * download the ZIP. A claim whose holder died expires, and the next caller takes it over.
 *
 * The same path writes the ZIP of an ended batch anew when one of its jobs was erased
 * (`zip_a_refaire`, core/effacement.ts): the sweeper finds such a batch in `ouverts` again.
 *
 * Erasures and ZIP writers take the same claim, so neither works on files the other is deleting or
 * reading. When a writer takes over the expired claim of an erasure that was cut short, it leaves out
 * the jobs whose erasure is recorded (their files may be half gone); the erasure, finished later by
 * the sweeper, has the ZIP written again. A failed attempt releases its claim at once, so an erasure
 * waiting on it goes ahead rather than wait for it to expire.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lireEnregistrementLot, lireTravaux } from './consultation';
import type { Dependances } from './dependances';
import * as effacements from './depots/effacements';
import { statutFinalLot } from './modele';
import { cles } from './depots/table';
import { ecrireZip } from './zip';
import { cleZip } from './cles-s3';
import { DUREE_RECLAMATION_MS, RECLAMATION_LIBRE } from './reclamation';
import { ETIQUETTE_RETENTION, joursRestants } from './retention';

type Deps = Pick<Dependances, 'ddb' | 'table' | 'horloge' | 's3' | 'bucket'>;

const reclamer = async (d: Deps, lot: string, finaliseur: string): Promise<boolean> => {
  const maintenant = d.horloge().getTime();
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cles.lot(lot),
        UpdateExpression: 'SET finaliseur = :moi, reclame_jusqua = :jusqua',
        // A retry by the same claimant goes through, and so does anyone once a claim has expired. An
        // ended batch is claimed again only to write its ZIP anew after an erasure.
        ConditionExpression: `restants = :zero AND (statut = :en_cours OR zip_a_refaire = :oui) AND ${RECLAMATION_LIBRE}`,
        ExpressionAttributeValues: {
          ':moi': finaliseur,
          ':zero': 0,
          ':en_cours': 'en_cours',
          ':oui': true,
          ':jusqua': maintenant + DUREE_RECLAMATION_MS,
          ':maintenant': maintenant,
        },
      }),
    );
    return true;
  } catch (erreur) {
    if ((erreur as Error).name === 'ConditionalCheckFailedException') return false;
    throw erreur;
  }
};

/** Gives the claim back after a failed attempt: whoever comes next (an erasure, the sweeper) need not wait for it to expire. */
const liberer = async (d: Deps, lot: string, finaliseur: string): Promise<void> => {
  await d.ddb
    .send(
      new UpdateCommand({
        TableName: d.table,
        Key: cles.lot(lot),
        UpdateExpression: 'REMOVE finaliseur, reclame_jusqua',
        ConditionExpression: 'finaliseur = :moi',
        ExpressionAttributeValues: { ':moi': finaliseur },
      }),
    )
    .catch((erreur: unknown) => {
      if ((erreur as Error).name !== 'ConditionalCheckFailedException') throw erreur;
    });
};

/** `finaliseur`: who claims the batch (the id of the job whose execution runs this, or the sweeper). */
export const finaliserLot = async (d: Deps, lotId: string, finaliseur: string): Promise<{ finalise: boolean }> => {
  if (!(await reclamer(d, lotId, finaliseur))) return { finalise: false };
  try {
    return await ecrireEtFermer(d, lotId, finaliseur);
  } catch (erreur) {
    await liberer(d, lotId, finaliseur).catch(() => undefined);
    throw erreur;
  }
};

const ecrireEtFermer = async (d: Deps, lotId: string, finaliseur: string): Promise<{ finalise: boolean }> => {
  const lot = await lireEnregistrementLot(d, lotId);
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
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cles.lot(lotId),
        // The claim is released: the batch's jobs can be erased again. A ZIP written anew keeps the
        // batch's end date.
        UpdateExpression: `SET statut = :statut, zip_cle = :zip${lot.statut === 'en_cours' ? ', termine_le = :maintenant' : ''} REMOVE gsi3pk, gsi3sk, finaliseur, reclame_jusqua, zip_a_refaire`,
        ConditionExpression: 'finaliseur = :moi AND (statut = :en_cours OR zip_a_refaire = :oui)',
        ExpressionAttributeValues: {
          ':statut': statutFinalLot(lot.termines, lot.echecs),
          ':zip': zip,
          ...(lot.statut === 'en_cours' ? { ':maintenant': d.horloge().toISOString() } : {}),
          ':moi': finaliseur,
          ':en_cours': 'en_cours',
          ':oui': true,
        },
      }),
    );
  } catch (erreur) {
    // Our claim expired and another took the batch over: it writes the same ZIP and closes it.
    if ((erreur as Error).name === 'ConditionalCheckFailedException') return { finalise: false };
    throw erreur;
  }
  return { finalise: true };
};
