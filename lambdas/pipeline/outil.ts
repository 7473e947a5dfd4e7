/**
 * Step "Outil": runs the job's tool through the engine (local preview or Bedrock) and writes the
 * result files to S3. The job record is not touched here: "Enregistrer" records the outcome in one
 * transaction, so a retried tool run can only overwrite its own files. This adapter reads the job and
 * its inputs and returns the step's output; running the engine and every write to S3 (each after the
 * check that this run is still the job's own, each with its retention tag) are service-outil.ts's.
 *
 * Customer bytes are decoded only as what was checked. An input is read with the ETag POST /travaux
 * pinned for a direct upload (whose signed URL may PUT another file until it expires), and only if its
 * own first bytes say JPEG, PNG or WebP, whatever the record says; the decoders (moteurs/commun/pixels.ts)
 * cannot open any other format.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { lire as lireEnregistrementTravail } from '../core/depots/travaux';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { s3DepuisEnv } from '../core/infra/client-s3';
import { moteurDepuisEnv } from '../moteurs/choix';
import { dependancesAvec, unePourConteneur } from '../core/infra/dependances';
import type { DependancesOutil } from './dependances-pipeline';
import { ErreurTravail } from '../core/modele/erreurs';
import { detecterFormat, MAX_OCTETS_IMAGE, messageIllisible } from '../core/modele/images';
import { marqueurDepuisEnv } from '../moteurs/c2pa/marquage';
import type { SortieOutil } from '../core/modele/sorties';
import { etape } from './etape';
import { PREFIXES } from '../core/modele/retention';
import { executerOutil, type EntreeLue } from './service-outil';

const REMPLACEE = 'The uploaded file was replaced after POST /travaux checked it; upload it again.';

/** An input, read only if it is still the object that was checked, at most 15 MB, and a JPEG, PNG or WebP by its bytes. */
const lireEntree = async (d: DependancesOutil, cleObjet: string, etag: string | undefined): Promise<EntreeLue> => {
  // A key under the uploads' prefix was written by a client: without the checked ETag it is not read.
  if (cleObjet.startsWith(PREFIXES.televersements) && !etag) throw new ErreurTravail('image_illisible', REMPLACEE);
  let reponse;
  try {
    reponse = await d.s3.send(new GetObjectCommand({ Bucket: d.bucket, Key: cleObjet, ...(etag ? { IfMatch: etag } : {}) }));
  } catch (erreur) {
    const e = erreur as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'PreconditionFailed' || e.$metadata?.httpStatusCode === 412) throw new ErreurTravail('image_illisible', REMPLACEE);
    throw erreur;
  }
  const { Body, ContentLength } = reponse;
  if (!Body) throw new Error('an input object has no body');
  if ((ContentLength ?? 0) > MAX_OCTETS_IMAGE) {
    (Body as { destroy?: () => void }).destroy?.();
    throw new ErreurTravail('image_trop_grande');
  }
  const octets = Buffer.from(await Body.transformToByteArray());
  const format = detecterFormat(octets);
  if (!format) throw new ErreurTravail('image_illisible', messageIllisible(octets, 'The input'));
  return { octets, format };
};

export const creer = (deps: () => Promise<DependancesOutil>) =>
  etape(deps, 'outil', async (etat, d): Promise<SortieOutil> => {
    const travail = await lireEnregistrementTravail(d, etat.travail);
    if (!travail) throw new ErreurTravail('erreur_interne', `job ${etat.travail} is missing`);
    const entrees = await Promise.all(
      (etat.preparation?.entrees ?? []).map((cleObjet, rang) => {
        const entree = travail.entrees[rang];
        return lireEntree(d, cleObjet, entree?.type === 's3' && entree.cle === cleObjet ? entree.etag : undefined);
      }),
    );
    // A test key's job runs the local preview engine, whatever the stage's (it is free: no model is called).
    return executerOutil(travail.test && d.moteurTest ? { ...d, moteur: d.moteurTest } : d, etat, travail, entrees);
  });
// DynamoDB, S3 (inputs and results), the engine and the C2PA marker.
const base = dependancesAvec({ ddb: documentDepuisEnv, s3: s3DepuisEnv });
export const handler = creer(
  unePourConteneur(async () => ({
    ...(await base()),
    moteur: moteurDepuisEnv(process.env),
    ...(process.env.RETOUCHE_MOTEUR === 'bedrock' ? { moteurTest: moteurDepuisEnv({ RETOUCHE_MOTEUR: 'local' }) } : {}),
    c2pa: await marqueurDepuisEnv(),
  })),
);
