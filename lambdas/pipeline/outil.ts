/**
 * Step "Outil": runs the job's tool through the engine (local preview or Bedrock) and writes the
 * result files to S3. The job record is not touched here: "Enregistrer" records the outcome in one
 * transaction, so a retried tool run can only overwrite its own files.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { lireEnregistrementTravail } from '../core/consultation';
import { dependancesDepuisEnv } from '../core/dependances';
import { moteurDepuisEnv } from '../moteurs/choix';
import { unePourConteneur, type DependancesOutil } from './dependances-pipeline';
import { ErreurTravail } from '../core/erreurs';
import { detecterFormat, TYPES_MIME } from '../core/images';
import { marqueurDepuisEnv } from '../moteurs/c2pa/marquage';
import { etape, type SortieOutil } from './etape';
import { cleTexte, resultatsDuTravail } from '../core/cles-s3';

const lireObjet = async (d: DependancesOutil, cle: string): Promise<Buffer> => {
  const { Body } = await d.s3.send(new GetObjectCommand({ Bucket: d.bucket, Key: cle }));
  if (!Body) throw new Error(`empty object ${cle}`);
  return Buffer.from(await Body.transformToByteArray());
};


export const creer = (deps: () => Promise<DependancesOutil>) =>
  etape(deps, 'outil', async (etat, d): Promise<SortieOutil> => {
    const travail = await lireEnregistrementTravail(d, etat.travail);
    if (!travail) throw new ErreurTravail('erreur_interne', `job ${etat.travail} is missing`);
    const images = await Promise.all((etat.preparation?.entrees ?? []).map((cle) => lireObjet(d, cle)));

    if (travail.outil === 'annonce') {
      const { texte, redaction } = await d.moteur.rediger({ valeurs: travail.valeurs, images, travail: travail.id });
      const cle = cleTexte(travail.compte, travail.id);
      await d.s3.send(new PutObjectCommand({ Bucket: d.bucket, Key: cle, Body: texte, ContentType: 'text/markdown; charset=utf-8' }));
      return { resultats: [], texte: cle, graine: null, redaction };
    }
    const [image] = images;
    if (!image) throw new ErreurTravail('image_illisible', 'The job has no input image.');
    const sortie = await d.moteur.retoucher({ outil: travail.outil, valeurs: travail.valeurs, image, travail: travail.id });
    // Signed last: nothing may re-encode the file after its C2PA manifest binds its bytes.
    const marquee = await d.c2pa.marquer(sortie.image, sortie.format, {
      outil: travail.outil,
      moteur: d.moteur.nom,
      entree: image,
      formatEntree: detecterFormat(image) ?? 'jpeg',
      titre: travail.nom,
      floutage: sortie.floutage,
    });
    const [resultat] = resultatsDuTravail(travail, [sortie.format]);
    await d.s3.send(new PutObjectCommand({ Bucket: d.bucket, Key: resultat!.cle, Body: marquee, ContentType: TYPES_MIME[sortie.format] }));
    return { resultats: [{ format: sortie.format }], texte: null, graine: sortie.graine, structure: sortie.structure };
  });
export const handler = creer(
  unePourConteneur(async () => ({ ...(await dependancesDepuisEnv()), moteur: moteurDepuisEnv(process.env), c2pa: await marqueurDepuisEnv() })),
);
