/**
 * Step "Outil": runs the job's tool through the engine (local preview or Bedrock) and writes the
 * result files to S3. The job record is not touched here: "Enregistrer" records the outcome in one
 * transaction, so a retried tool run can only overwrite its own files.
 *
 * Customer bytes are decoded only as what was checked. An input is read with the ETag POST /travaux
 * pinned for a direct upload (whose signed URL may PUT another file until it expires), and only if its
 * own first bytes say JPEG, PNG or WebP, whatever the record says; the decoders (moteurs/pixels.ts)
 * cannot open any other format.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { lireEnregistrementTravail } from '../core/consultation';
import { dependancesDepuisEnv } from '../core/dependances';
import { moteurDepuisEnv } from '../moteurs/choix';
import { unePourConteneur, type DependancesOutil } from './dependances-pipeline';
import { ErreurTravail } from '../core/erreurs';
import { detecterFormat, MAX_OCTETS_IMAGE, TYPES_MIME, type FormatImage } from '../core/images';
import { marqueurDepuisEnv } from '../moteurs/c2pa/marquage';
import { etape, type EtatExecution, type SortieOutil } from './etape';
import { cleTexte, resultatsDuTravail } from '../core/cles-s3';
import { etiquetteRetention, PREFIXES } from '../core/retention';
import type { EnregistrementTravail } from '../core/modele';

const REMPLACEE = 'The uploaded file was replaced after POST /travaux checked it; upload it again.';

/** An input, read only if it is still the object that was checked, at most 15 MB, and a JPEG, PNG or WebP by its bytes. */
const lireEntree = async (d: DependancesOutil, cle: string, etag: string | undefined): Promise<{ octets: Buffer; format: FormatImage }> => {
  // A key under the uploads' prefix was written by a client: without the checked ETag it is not read.
  if (cle.startsWith(PREFIXES.televersements) && !etag) throw new ErreurTravail('image_illisible', REMPLACEE);
  let reponse;
  try {
    reponse = await d.s3.send(new GetObjectCommand({ Bucket: d.bucket, Key: cle, ...(etag ? { IfMatch: etag } : {}) }));
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
  if (!format) throw new ErreurTravail('image_illisible', 'The input is not a JPEG, PNG or WebP image.');
  return { octets, format };
};

/**
 * A run that is not the job's current one any more (its execution timed out or was aborted while this
 * Lambda went on, and the job was refunded, erased or run again) writes nothing: checked just before
 * each write, from the record.
 */
const verifierToujoursSien = async (d: DependancesOutil, etat: EtatExecution): Promise<EnregistrementTravail> => {
  const actuel = await lireEnregistrementTravail(d, etat.travail);
  if (!actuel || actuel.statut !== 'en_cours' || (actuel.tentative ?? 1) !== (etat.tentative ?? 1)) {
    throw new ErreurTravail('erreur_interne', `job ${etat.travail} is no longer run by this execution (${actuel?.statut ?? 'erased'})`);
  }
  return actuel;
};

export const creer = (deps: () => Promise<DependancesOutil>) =>
  etape(deps, 'outil', async (etat, d): Promise<SortieOutil> => {
    const travail = await lireEnregistrementTravail(d, etat.travail);
    if (!travail) throw new ErreurTravail('erreur_interne', `job ${etat.travail} is missing`);
    const entrees = await Promise.all(
      (etat.preparation?.entrees ?? []).map((cle, rang) => {
        const entree = travail.entrees[rang];
        return lireEntree(d, cle, entree?.type === 's3' && entree.cle === cle ? entree.etag : undefined);
      }),
    );
    const images = entrees.map((e) => e.octets);

    if (travail.outil === 'annonce') {
      const { texte, redaction } = await d.moteur.rediger({ valeurs: travail.valeurs, images, travail: travail.id });
      await verifierToujoursSien(d, etat);
      const cle = cleTexte(travail.compte, travail.id);
      await d.s3.send(
        new PutObjectCommand({
          Bucket: d.bucket,
          Key: cle,
          Body: texte,
          ContentType: 'text/markdown; charset=utf-8',
          Tagging: etiquetteRetention(travail.cree_le, d.horloge()),
        }),
      );
      return { resultats: [], texte: cle, graine: null, redaction };
    }
    const [entree] = entrees;
    if (!entree) throw new ErreurTravail('image_illisible', 'The job has no input image.');
    const sortie = await d.moteur.retoucher({ outil: travail.outil, valeurs: travail.valeurs, image: entree.octets, travail: travail.id });
    // Signed last: nothing may re-encode the file after its C2PA manifest binds its bytes.
    const marquee = await d.c2pa.marquer(sortie.image, sortie.format, {
      outil: travail.outil,
      moteur: d.moteur.nom,
      entree: entree.octets,
      formatEntree: entree.format,
      titre: travail.nom,
      floutage: sortie.floutage,
    });
    await verifierToujoursSien(d, etat);
    const [resultat] = resultatsDuTravail(travail, [sortie.format]);
    // Tagged with the days its job has left (core/retention.ts): the bucket's lifecycle deletes it by then.
    await d.s3.send(
      new PutObjectCommand({
        Bucket: d.bucket,
        Key: resultat!.cle,
        Body: marquee,
        ContentType: TYPES_MIME[sortie.format],
        Tagging: etiquetteRetention(travail.cree_le, d.horloge()),
      }),
    );
    return { resultats: [{ format: sortie.format }], texte: null, graine: sortie.graine, structure: sortie.structure };
  });
export const handler = creer(
  unePourConteneur(async () => ({ ...(await dependancesDepuisEnv()), moteur: moteurDepuisEnv(process.env), c2pa: await marqueurDepuisEnv() })),
);
