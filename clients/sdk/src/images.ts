/**
 * Images as a caller has them — a file path, bytes, an https URL — turned into what POST /travaux takes.
 * A local file or bytes always go through POST /televersements and a PUT straight to storage: on a
 * deployed stage a request body is at most 10 MB at the gateway and about 4.4 MB of image once in base64
 * (docs/api.md, Limits), so the upload is the one route that takes every photo up to 15 MB, and the
 * POST /travaux that follows stays small enough to be retried cheaply.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErreurRetouche } from './erreurs.js';
import { envoyer, type ReglagesTransport } from './transport.js';
import type { FichierAnnonce, ImageApi, Televersement, TypeImage } from './types.js';

/**
 * An image for `lancer` or `televerser`:
 * - a string: an https URL (the service fetches it), or a file path; a `file:` URL or a `URL` object works too;
 * - bytes (a Buffer is a Uint8Array);
 * - `{chemin, nom?}` or `{octets, nom?}`: the same, with the name the job and its result file take;
 * - an image as the API takes it, sent as it is: `{url}`, `{televersement}` (an upload already made), `{base64}`.
 */
export type Image = string | URL | Uint8Array | { chemin: string; nom?: string } | { octets: Uint8Array; nom?: string } | ImageApi;

/** A file path or bytes: what must be uploaded before a job can name it. */
export type SourceLocale = { chemin: string; nom?: string } | { octets: Uint8Array; nom?: string };

/** One file's upload: its place among the call's images, its name, its bytes sent so far and in all. */
export interface ProgressionFichier {
  /** The image's position in the call's `images` (from 0), as `echecs[].index` counts them. */
  index: number;
  /** The name it is announced with (a path's file name, or the `nom` given); undefined for bytes without one. */
  nom: string | undefined;
  envoye: number;
  total: number;
}

/** With each report: the file whose bytes moved (absent from the first, before any), and every file. */
export interface DetailProgression {
  fichier?: ProgressionFichier;
  /** Every file to upload, in the call's order. */
  fichiers: ProgressionFichier[];
}

/**
 * Bytes sent so far and in all, for every file of the call together; then, per file, the file whose
 * bytes moved and every file's progress. A retried PUT starts its file again from 0.
 */
export type Progression = (envoye: number, total: number, detail: DetailProgression) => void;

/** Files announced in one POST /televersements, at most (the API's limit). */
export const MAX_PAR_ANNONCE = 50;
/** Bytes handed to fetch at a time: the granularity of the progress. */
const TAILLE_MORCEAU = 64 * 1024;

/** What goes to the API as it is, and what must be uploaded first. */
export const classer = (image: Image): { api: ImageApi } | { locale: SourceLocale } => {
  if (typeof image === 'string') {
    if (/^file:/i.test(image)) return { locale: { chemin: fileURLToPath(image) } };
    // Any other scheme is the API's to judge: it takes https and says why it refuses anything else.
    if (/^[a-z][a-z\d+.-]*:\/\//i.test(image)) return { api: { url: image } };
    return { locale: { chemin: image } };
  }
  if (image instanceof URL) return image.protocol === 'file:' ? { locale: { chemin: fileURLToPath(image) } } : { api: { url: image.href } };
  if (image instanceof Uint8Array) return { locale: { octets: image } };
  if ('chemin' in image || 'octets' in image) return { locale: image };
  return { api: image };
};

/** The type by the first bytes, as the service itself recognises images (whatever a name says). */
export const typeImage = (debut: Uint8Array): TypeImage | undefined => {
  const ascii = (de: number, a: number) => String.fromCharCode(...debut.subarray(de, a));
  if (debut[0] === 0xff && debut[1] === 0xd8 && debut[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
};

interface FichierLocal {
  annonce: FichierAnnonce;
  /** The bytes, made again for each attempt, counted as fetch takes them. */
  flux: (compter: (octets: number) => void) => ReadableStream<Uint8Array>;
}

const decrire = async (source: SourceLocale, index: number): Promise<FichierLocal> => {
  let taille: number;
  let debut: Uint8Array;
  let nom = source.nom;
  let flux: FichierLocal['flux'];
  if ('octets' in source) {
    const { octets } = source;
    taille = octets.byteLength;
    debut = octets.subarray(0, 12);
    flux = (compter) => {
      let position = 0;
      return new ReadableStream<Uint8Array>(
        {
          pull(controleur) {
            if (position >= octets.byteLength) return controleur.close();
            const morceau = octets.subarray(position, position + TAILLE_MORCEAU);
            position += morceau.byteLength;
            compter(morceau.byteLength);
            controleur.enqueue(morceau);
          },
        },
        // Nothing read ahead: a chunk is counted when fetch asks for it, not before.
        { highWaterMark: 0 },
      );
    };
  } else {
    const { chemin } = source;
    nom ??= basename(chemin);
    const fichier = await open(chemin, 'r');
    try {
      taille = (await fichier.stat()).size;
      debut = new Uint8Array(12);
      await fichier.read(debut, 0, 12, 0);
    } finally {
      await fichier.close();
    }
    // Read as it is sent, never whole: 50 photos of 15 MB need not sit in memory.
    flux = (compter) => {
      const lecteur = createReadStream(chemin, { highWaterMark: TAILLE_MORCEAU });
      const morceaux = lecteur[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      return new ReadableStream<Uint8Array>(
        {
          async pull(controleur) {
            const { done, value } = await morceaux.next();
            if (done) return controleur.close();
            compter(value.byteLength);
            controleur.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
          },
          cancel() {
            lecteur.destroy();
          },
        },
        { highWaterMark: 0 },
      );
    };
  }
  const type = typeImage(debut);
  if (!type)
    throw new ErreurRetouche({
      statut: 0,
      code: 'unsupported_image',
      message: `Image ${index}${nom ? ` (${nom})` : ''} is not a JPEG, PNG or WebP file by its first bytes: the API takes only those. Nothing was sent.`,
    });
  return { annonce: { ...(nom === undefined ? {} : { nom }), type, taille }, flux };
};

export interface ContexteTeleversement {
  reglages: ReglagesTransport;
  /** POST /televersements, through the client (its key, its retries). */
  annoncer: (fichiers: FichierAnnonce[], signal?: AbortSignal) => Promise<Televersement[]>;
  parallele: number;
}

export interface OptionsTeleversement {
  progression?: Progression;
  signal?: AbortSignal;
}

/**
 * Announces the files (by 50), then PUTs each to its URL with exactly the headers the URL was signed
 * with, a few at a time. The answer keeps the order of `sources`.
 */
export const televerser = async (
  contexte: ContexteTeleversement,
  sources: SourceLocale[],
  options: OptionsTeleversement = {},
  /** Each source's position among the call's images (`lancer` mixes URLs and files); by default its own. */
  indices: readonly number[] = sources.map((_, i) => i),
): Promise<Televersement[]> => {
  // Every file is read (its size, its type) before anything is announced: a bad one costs no upload.
  const fichiers: FichierLocal[] = [];
  for (const [index, source] of sources.entries()) fichiers.push(await decrire(source, indices[index] ?? index));
  const suivi = suiviProgression(fichiers, indices, options.progression);
  suivi.signaler();

  const televersements: Televersement[] = [];
  for (let i = 0; i < fichiers.length; i += MAX_PAR_ANNONCE)
    televersements.push(
      ...(await contexte.annoncer(
        fichiers.slice(i, i + MAX_PAR_ANNONCE).map((f) => f.annonce),
        options.signal,
      )),
    );

  let suivant = 0;
  const ouvrier = async () => {
    while (suivant < fichiers.length) {
      const i = suivant++;
      try {
        await deposer(contexte, fichiers[i]!, televersements[i]!, suivi.pour(i), options.signal);
      } catch (erreur) {
        // On AWS a URL refused before its expiry needs a new one (docs/api.md): announce that file again, once.
        if (!(erreur instanceof ErreurRetouche) || erreur.statut !== 403) throw erreur;
        const [nouveau] = await contexte.annoncer([fichiers[i]!.annonce], options.signal);
        televersements[i] = nouveau!;
        suivi.pour(i).oublier();
        await deposer(contexte, fichiers[i]!, nouveau!, suivi.pour(i), options.signal);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(contexte.parallele, fichiers.length) }, ouvrier));
  return televersements;
};

/** One file's count of bytes sent, which reports the whole call's progress as it moves. */
interface SuiviFichier {
  ajouter: (octets: number) => void;
  /** Back to 0, said at once: its PUT is retried. */
  recommencer: () => void;
  /** Back to 0, said with the next bytes: a new URL's PUT starts. */
  oublier: () => void;
}

/** The bytes sent of each file, and the reports of the whole call's progress (none without `progression`). */
const suiviProgression = (fichiers: FichierLocal[], indices: readonly number[], progression: Progression | undefined) => {
  const total = fichiers.reduce((somme, f) => somme + f.annonce.taille, 0);
  const envoyes = fichiers.map(() => 0);
  const etat = (i: number): ProgressionFichier => ({
    index: indices[i] ?? i,
    nom: fichiers[i]!.annonce.nom,
    envoye: envoyes[i]!,
    total: fichiers[i]!.annonce.taille,
  });
  const signaler = (i?: number) => {
    if (!progression) return;
    const tous = fichiers.map((_, j) => etat(j));
    progression(
      envoyes.reduce((a, b) => a + b, 0),
      total,
      i === undefined ? { fichiers: tous } : { fichier: tous[i]!, fichiers: tous },
    );
  };
  const pour = (i: number): SuiviFichier => ({
    ajouter: (octets) => {
      envoyes[i]! += octets;
      signaler(i);
    },
    recommencer: () => {
      envoyes[i] = 0;
      signaler(i);
    },
    oublier: () => {
      envoyes[i] = 0;
    },
  });
  return { signaler, pour };
};

/** One PUT of a file to its URL, retried as any request (its count of bytes back to 0 before each retry). */
const deposer = (contexte: ContexteTeleversement, fichier: FichierLocal, t: Televersement, suivi: SuiviFichier, signal: AbortSignal | undefined) =>
  envoyer(
    contexte.reglages,
    {
      methode: t.methode,
      url: t.url,
      // The URL is signed for these headers and this size, and accepts nothing else.
      entetes: { ...t.entetes, 'Content-Length': String(fichier.annonce.taille) },
      corps: () => fichier.flux(suivi.ajouter),
      signal,
      avantReessai: suivi.recommencer,
    },
    async (reponse) => void (await reponse.arrayBuffer()),
  );
