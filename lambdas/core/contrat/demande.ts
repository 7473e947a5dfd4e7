/**
 * `POST /travaux`, first concern: from the raw body (JSON or multipart) to a checked request. Tool,
 * counts and settings are checked by schemas.ts; each image's bytes by their content (format from the
 * first bytes, dimensions from the header). Nothing here touches the account or AWS.
 */
import { ErreurApi } from '../modele/erreurs';
import { decoderBase64, detecterFormat, messageIllisible, MAX_OCTETS_REQUETE, type FormatImage } from '../modele/images';
import { verifierDimensions } from '../modele/dimensions';
import type { EchecImage } from '../modele/enregistrements';
import { CATALOGUE, estOutil, MAX_IMAGES_LOT, type IdOutil } from '../modele/outils';
import { verifierRequete, type ImageEntree } from './schemas';
import { estJson, lireCorpsJson, typeMedia } from './json';

/** A request read from JSON or multipart: images carry their bytes when they came in the body. */
export interface Demande {
  outil: IdOutil;
  /** With defaults applied: what the job stores and shows. */
  valeurs: Record<string, string>;
  /**
   * The settings the request itself gave, by name: a default is no one's choice, and the engine weighs
   * a room the agent named against its detectors' guesses, not a default (moteurs/commun/zones.ts).
   */
  nommees: string[];
  images: { index: number; nom: string | null; url?: string; octets?: Buffer; base64?: string; televersement?: string }[];
}

/**
 * An image that can start: an https URL (fetched by the job), checked bytes, or an upload (checked
 * against S3 by televersements.ts before the debit, then `{ cle, format }`).
 */
export interface ImagePrete {
  index: number;
  nom: string | null;
  entree: { url: string } | { octets: Buffer; format: FormatImage } | { televersement: string } | EntreeTeleversee;
}

/** An upload once checked: where it is in S3, what it is, and which version of the object was checked. */
export interface EntreeTeleversee {
  cle: string;
  format: FormatImage;
  televersement: string;
  /** The ETag of the object whose bytes were checked: the tool step reads that object only (If-Match). */
  etag: string;
}

export const estTeleversee = (entree: ImagePrete['entree'] | undefined): entree is EntreeTeleversee => entree !== undefined && 'cle' in entree;

export const typeDeContenu = (contentType: string | undefined): 'json' | 'multipart' => {
  const type = typeMedia(contentType);
  if (estJson(type)) return 'json';
  if (type === 'multipart/form-data') return 'multipart';
  throw new ErreurApi('unsupported_media_type', `Content-Type must be application/json or multipart/form-data${type ? `, not ${type}` : ''}.`);
};

/**
 * The wording of refusals (messages/travaux.ts, the largest module of this route) is imported when a body is
 * refused: a request that passes never parses it at a cold start.
 */
const redaction = () => import('./messages/travaux');

/** `cles`: the names the client sent beside it, for "the body has tool: did you mean outil?". */
const verifierOutil = async (outil: unknown, forme: 'json' | 'formulaire', cles: readonly string[]): Promise<IdOutil> => {
  if (!estOutil(outil)) throw (await redaction()).refusOutil(outil, forme, cles);
  return outil;
};

/** The request with its defaults, or the worded 422 listing every problem. */
const valider = async (outil: IdOutil, corps: unknown, champsImages?: readonly string[]) => {
  const { requete, issues } = verifierRequete(outil, corps);
  if (issues) throw (await redaction()).refusTravaux(issues, { outil, ...(champsImages ? { champsImages } : {}) });
  return requete;
};

const verifierNombre = (outil: IdOutil, nombre: number): void => {
  // The spec gives 413 for more than 50 images in a batch; annonce's 0–6 is a schema rule (422).
  if (CATALOGUE[outil].images.par_lot && nombre > MAX_IMAGES_LOT) {
    throw new ErreurApi('too_many_images', `At most ${MAX_IMAGES_LOT} images per batch; ${nombre} were sent.`, { max: MAX_IMAGES_LOT });
  }
};

/** The last path segment, held to the same 255 characters as a `nom` given by the client. */
const nomDepuisUrl = (url: string): string | null => {
  const dernier = new URL(url).pathname.split('/').filter(Boolean).pop();
  if (!dernier) return null;
  let nom = dernier;
  try {
    nom = decodeURIComponent(dernier);
  } catch {
    // Not percent-encoded text: keep it as sent.
  }
  return nom.slice(0, 255);
};

/** The names of the settings as sent (`brutes`, already checked: no unknown name), before defaults fill the rest. */
const nommees = (brutes: unknown, valeurs: Record<string, string>): string[] =>
  brutes !== null && typeof brutes === 'object' ? Object.keys(brutes).filter((nom) => Object.hasOwn(valeurs, nom)) : [];

const depuisValidee = (outil: IdOutil, valeurs: Record<string, string>, brutes: unknown, images: ImageEntree[], octets: (Buffer | undefined)[]): Demande => ({
  outil,
  valeurs,
  nommees: nommees(brutes, valeurs),
  images: images.map((image, index) => {
    if ('url' in image) return { index, nom: image.nom ?? nomDepuisUrl(image.url), url: image.url };
    if ('televersement' in image) return { index, nom: image.nom ?? null, televersement: image.televersement.toLowerCase() };
    return { index, nom: image.nom ?? null, base64: octets[index] ? undefined : image.base64, octets: octets[index] };
  }),
});

const lireJson = async (corps: Buffer): Promise<Demande> => {
  const objet = lireCorpsJson(corps);
  const outil = await verifierOutil(objet.outil, 'json', Object.keys(objet));
  if (Array.isArray(objet.images)) verifierNombre(outil, objet.images.length);
  const validee = await valider(outil, objet);
  return depuisValidee(outil, validee.valeurs, objet.valeurs, validee.images, []);
};

const lireFormulaire = async (corps: Buffer, contentType: string): Promise<Demande> => {
  // Imported when a form arrives: JSON requests (most of them) never parse busboy at a cold start.
  const { lireMultipart } = await import('./multipart');
  const formulaire = await lireMultipart(corps, contentType);
  const champs = new Map<string, string[]>();
  for (const { nom, valeur } of formulaire.champs) champs.set(nom, [...(champs.get(nom) ?? []), valeur]);
  const outils = champs.get('outil') ?? [];
  if (outils.length > 1) throw (await redaction()).refusRepete('outil', outils.length);
  const outil = await verifierOutil(outils[0], 'formulaire', [...champs.keys()]);
  const urls = champs.get('image_url') ?? [];
  const televersements = champs.get('televersement') ?? [];
  verifierNombre(outil, formulaire.fichiers.length + urls.length + televersements.length);

  const valeurs: Record<string, string> = {};
  for (const [nom, liste] of champs) {
    if (nom === 'outil' || nom === 'image_url' || nom === 'televersement') continue;
    if (liste.length > 1) throw (await redaction()).refusRepete(nom, liste.length);
    valeurs[nom] = liste[0]!;
  }
  // Files first, then URLs, then uploads, each in the order sent. A file stands in the schema as a placeholder
  // base64 image so that counts and names are checked by the same rules as JSON; its bytes are
  // kept aside and never re-encoded.
  const images: ImageEntree[] = [
    ...formulaire.fichiers.map((f) => ({ base64: 'fichier', ...(f.nomFichier ? { nom: f.nomFichier } : {}) })),
    ...urls.map((url) => ({ url })),
    ...televersements.map((televersement) => ({ televersement })),
  ];
  // Problems then name the fields the client used: a file's own field name, image_url, televersement.
  const champsImages = [...formulaire.fichiers.map((f) => f.partie), ...urls.map(() => 'image_url'), ...televersements.map(() => 'televersement')];
  const validee = await valider(outil, { outil, valeurs, images }, champsImages);
  return depuisValidee(
    outil,
    validee.valeurs,
    valeurs,
    validee.images,
    formulaire.fichiers.map((f) => f.contenu),
  );
};

/**
 * Bytes are checked by their content, never by a name or a declared type. Unreadable bytes are that
 * image's problem (listed in `echecs`); too large (bytes or pixels) is the whole request's answer (413).
 */
const preparerImages = (demande: Demande): { pretes: ImagePrete[]; echecs: EchecImage[] } => {
  const pretes: ImagePrete[] = [];
  const echecs: EchecImage[] = [];
  for (const image of demande.images) {
    if (image.url) {
      pretes.push({ index: image.index, nom: image.nom, entree: { url: image.url } });
      continue;
    }
    if (image.televersement) {
      pretes.push({ index: image.index, nom: image.nom, entree: { televersement: image.televersement } });
      continue;
    }
    let octets: Buffer;
    try {
      octets = image.octets ?? decoderBase64(image.base64 ?? '');
    } catch (erreur) {
      if (erreur instanceof ErreurApi && erreur.code === 'invalid_image') {
        echecs.push({ index: image.index, code: 'invalid_image', message: erreur.message });
        continue;
      }
      if (erreur instanceof ErreurApi) throw new ErreurApi(erreur.code, `Image ${image.index}: ${erreur.message}`, { ...erreur.details, index: image.index });
      throw erreur;
    }
    const format = detecterFormat(octets);
    if (!format) {
      echecs.push({
        index: image.index,
        code: 'invalid_image',
        message: messageIllisible(octets, 'The image'),
      });
      continue;
    }
    // A few hundred bytes of header can announce gigapixels: refused here, before anything is paid.
    verifierDimensions(octets, image.index);
    pretes.push({ index: image.index, nom: image.nom, entree: { octets, format } });
  }
  return { pretes, echecs };
};

export interface DemandeLue {
  demande: Demande;
  pretes: ImagePrete[];
  echecs: EchecImage[];
}

/**
 * The whole first concern: content type, size, body, tool, settings, images. Uploads are named
 * only: televersements.ts checks them against S3, then `auMoinsUneImage` decides.
 */
export const lireDemande = async (contentType: string | undefined, corps: Buffer): Promise<DemandeLue> => {
  const mode = typeDeContenu(contentType);
  if (corps.length > MAX_OCTETS_REQUETE) throw new ErreurApi('payload_too_large', 'The request is larger than 100 MB.');
  const demande = mode === 'json' ? await lireJson(corps) : await lireFormulaire(corps, contentType ?? '');
  return { demande, ...preparerImages(demande) };
};

/**
 * If none of the images can start (and the tool needs one), the request is a 422 that lists why; so it is
 * when fewer can start than the tool needs (fusion merges 2 at least): nothing is charged for a job that
 * could only fail.
 */
export const auMoinsUneImage = (outil: IdOutil, pretes: ImagePrete[], echecs: EchecImage[]): void => {
  const { min } = CATALOGUE[outil].images;
  if (min > 0 && pretes.length === 0) {
    throw new ErreurApi('invalid_image', echecs.length === 1 ? echecs[0]!.message : 'No image could be read.', { echecs });
  }
  if (pretes.length < min) {
    throw new ErreurApi('invalid_image', `${outil} needs at least ${min} readable images; ${pretes.length} could be read (see echecs).`, { echecs });
  }
};
