/**
 * The end of a batch. The job that brings `restants` to 0 asks for it (cycle.ts); since two jobs
 * ending together can both ask, the batch is first claimed by one of them, then its ZIP is streamed
 * to S3, and only then does the batch leave `en_cours`: a client who sees `termine`, `partiel` or
 * `echec` can always download the ZIP.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lireEnregistrementLot, lireTravaux } from './consultation';
import type { Dependances } from './dependances';
import { statutFinalLot } from './modele';
import { cles } from './table';
import { ecrireZip } from './zip';
import { PREFIXES } from './retention';

type Deps = Pick<Dependances, 'ddb' | 'table' | 'horloge' | 's3' | 'bucket'>;

export const cleZip = (compte: string, lot: string): string => `${PREFIXES.zips}${compte}/${lot}.zip`;

const reclamer = async (d: Deps, lot: string, finaliseur: string): Promise<boolean> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cles.lot(lot),
        UpdateExpression: 'SET finaliseur = :moi',
        // A retry by the same claimant goes through; anyone else stops here.
        ConditionExpression: 'restants = :zero AND statut = :en_cours AND (attribute_not_exists(finaliseur) OR finaliseur = :moi)',
        ExpressionAttributeValues: { ':moi': finaliseur, ':zero': 0, ':en_cours': 'en_cours' },
      }),
    );
    return true;
  } catch (erreur) {
    if ((erreur as Error).name === 'ConditionalCheckFailedException') return false;
    throw erreur;
  }
};

/** `finaliseur`: who claims the batch (the id of the job whose execution runs this). */
export const finaliserLot = async (d: Deps, lotId: string, finaliseur: string): Promise<{ finalise: boolean }> => {
  if (!(await reclamer(d, lotId, finaliseur))) return { finalise: false };
  const lot = await lireEnregistrementLot(d, lotId);
  if (!lot) return { finalise: false };
  const travaux = (await lireTravaux(d, lot.travaux)).sort((a, b) => a.index - b.index);
  const fichiers = travaux
    .filter((t) => t.statut === 'termine')
    .flatMap((t) => t.resultats.map((r) => ({ cle: r.cle, nom: r.fichier })));
  const zip = fichiers.length > 0 ? cleZip(lot.compte, lot.id) : null;
  if (zip) await ecrireZip({ s3: d.s3, bucket: d.bucket, cle: zip, fichiers });
  await d.ddb.send(
    new UpdateCommand({
      TableName: d.table,
      Key: cles.lot(lotId),
      UpdateExpression: 'SET statut = :statut, zip_cle = :zip, termine_le = :maintenant',
      ConditionExpression: 'finaliseur = :moi AND statut = :en_cours',
      ExpressionAttributeValues: {
        ':statut': statutFinalLot(lot.termines, lot.echecs),
        ':zip': zip,
        ':maintenant': d.horloge().toISOString(),
        ':moi': finaliseur,
        ':en_cours': 'en_cours',
      },
    }),
  );
  return { finalise: true };
};
