/**
 * What the tool step does with a job once its inputs are read: the engine-facing side of the step.
 * The listing (`annonce`) asks the engine for its text; `fusion` merges its photos with no engine (the same
 * code on every stage); every other tool asks the engine for the retouched image. Images are then signed
 * with their C2PA Content Credentials. Either result is then written to S3, and only here.
 *
 * Every write goes through `deposer`, so that none can skip what each must do: read the job again just
 * before writing and refuse if this run is no longer its own (its execution timed out or was aborted
 * while this Lambda went on, and the job was refunded, erased or run again), and tag the file with the
 * days its job has left (core/modele/retention.ts), by which the bucket's lifecycle deletes it.
 * pipeline/outil.ts reads the job and its inputs and calls `executerOutil`; the engines (moteurs/)
 * know nothing of S3.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { cleTexte, resultatsDuTravail } from '../core/modele/cles-s3';
import { lire as lireEnregistrementTravail } from '../core/depots/travaux';
import { ErreurTravail } from '../core/modele/erreurs';
import { TYPES_MIME, type FormatImage } from '../core/modele/images';
import { estSaTentative, type EnregistrementTravail } from '../core/modele/enregistrements';
import { etiquetteRetention } from '../core/modele/retention';
import type { DependancesOutil } from './dependances-pipeline';
import type { SortieOutil } from '../core/modele/sorties';
import type { EtatExecution } from './etape';
import { fusionner } from '../moteurs/commun/fusion';
import { encoderResultat } from '../moteurs/commun/resultat';

/** An input as the step read it: its bytes, and the format its own first bytes say (JPEG, PNG or WebP). */
export interface EntreeLue {
  octets: Buffer;
  format: FormatImage;
}

/** The run asking: its job, and which run of that job it is (`tentative`, 1 unless run again). */
type Execution = Pick<EtatExecution, 'travail' | 'tentative'>;

/**
 * A run that is not the job's current one any more (its execution timed out or was aborted while this
 * Lambda went on, and the job was refunded, erased or run again) writes nothing: checked just before
 * each write, from the record.
 */
const verifierToujoursSien = async (d: DependancesOutil, etat: Execution): Promise<EnregistrementTravail> => {
  const actuel = await lireEnregistrementTravail(d, etat.travail);
  if (!actuel || actuel.statut !== 'en_cours' || !estSaTentative(actuel, etat.tentative)) {
    throw new ErreurTravail('erreur_interne', `job ${etat.travail} is no longer run by this execution (${actuel?.statut ?? 'erased'})`);
  }
  return actuel;
};

/** The one way the step writes a file: only if the run is still the job's own, tagged with the days its job has left. */
const deposer = async (
  d: DependancesOutil,
  etat: Execution,
  travail: EnregistrementTravail,
  cleObjet: string,
  corps: Buffer | string,
  type: string,
): Promise<void> => {
  await verifierToujoursSien(d, etat);
  await d.s3.send(
    new PutObjectCommand({
      Bucket: d.bucket,
      Key: cleObjet,
      Body: corps,
      ContentType: type,
      Tagging: etiquetteRetention(travail.cree_le, d.horloge()),
    }),
  );
};

/** Runs the job's tool on its inputs (in the job's order) and stores the result: what the step hands to Enregistrer. */
export const executerOutil = async (
  d: DependancesOutil,
  etat: Execution,
  travail: EnregistrementTravail,
  entrees: readonly EntreeLue[],
): Promise<SortieOutil> => {
  if (travail.outil === 'annonce') {
    const images = entrees.map((e) => e.octets);
    const { texte, redaction } = await d.moteur.rediger({ valeurs: travail.valeurs, images, travail: travail.id });
    const cleObjet = cleTexte(travail.compte, travail.id);
    await deposer(d, etat, travail, cleObjet, texte, 'text/markdown; charset=utf-8');
    return { resultats: [], texte: cleObjet, graine: null, redaction, apercu: d.moteur.nom === 'local' };
  }
  if (travail.outil === 'fusion') return executerFusion(d, etat, travail, entrees);
  const [entree] = entrees;
  if (!entree) throw new ErreurTravail('image_illisible', 'The job has no input image.');
  const sortie = await d.moteur.retoucher({
    outil: travail.outil,
    valeurs: travail.valeurs,
    // A job recorded before its record kept the names cannot tell its room from the default: it gets the
    // stricter rules of an unnamed room, whose mistake is a refund (a bedroom with a washbasin refused)
    // rather than a charge for a bathroom furnished as a living room.
    nommees: travail.valeurs_nommees ?? [],
    image: entree.octets,
    travail: travail.id,
    ...(travail.langue_apercu ? { langue: travail.langue_apercu } : {}),
  });
  // Signed last: nothing may re-encode the file after its C2PA manifest binds its bytes.
  const marquee = await d.c2pa.marquer(sortie.image, sortie.format, {
    outil: travail.outil,
    moteur: d.moteur.nom,
    entree: entree.octets,
    formatEntree: entree.format,
    titre: travail.nom,
    floutage: sortie.floutage,
  });
  const [resultat] = resultatsDuTravail(travail, [sortie.format]);
  await deposer(d, etat, travail, resultat!.cle, marquee, TYPES_MIME[sortie.format]);
  return {
    resultats: [{ format: sortie.format }],
    texte: null,
    graine: sortie.graine,
    structure: sortie.structure,
    floutage: sortie.floutage,
    // The preview marks its results (moteurs/commun/apercu.ts); the job says so too.
    apercu: d.moteur.nom === 'local',
  };
};

/**
 * fusion: no engine is asked, since no model makes it: the same merge runs on every stage
 * (moteurs/commun/fusion/). Its result is not a preview, except a test key's (free, so marked), and its
 * Content Credentials name every exposure: the reference as the edited photo, the others as its components.
 */
const executerFusion = async (d: DependancesOutil, etat: Execution, travail: EnregistrementTravail, entrees: readonly EntreeLue[]): Promise<SortieOutil> => {
  const fusion = await fusionner(entrees.map((e) => e.octets));
  const apercu = travail.test === true;
  const image = await encoderResultat(fusion.pixels, fusion.format, {
    outil: 'fusion',
    apercu,
    graine: null,
    ...(apercu && travail.langue_apercu ? { langue: travail.langue_apercu } : {}),
  });
  const reference = entrees[fusion.reference]!;
  const marquee = await d.c2pa.marquer(image, fusion.format, {
    outil: 'fusion',
    moteur: d.moteur.nom,
    entree: reference.octets,
    formatEntree: reference.format,
    composants: entrees.filter((_, i) => i !== fusion.reference).map((e) => ({ octets: e.octets, format: e.format })),
    titre: travail.nom,
  });
  const [resultat] = resultatsDuTravail(travail, [fusion.format]);
  await deposer(d, etat, travail, resultat!.cle, marquee, TYPES_MIME[fusion.format]);
  return { resultats: [{ format: fusion.format }], texte: null, graine: null, structure: fusion.structure, floutage: null, apercu };
};
