/**
 * What the studio asks of the API beyond the other pages: the catalogue (GET /outils), direct uploads
 * (POST /televersements, then a PUT of each photo straight to storage), a launch that is charged once
 * however often it is retried (POST /travaux with an Idempotency-Key), and the progress of its jobs
 * (GET /lots/{id}, GET /travaux/{id}). Loaded with the studio's page only: the first page never pays for it.
 */
import { appeler } from '../api';
import type { Catalogue, Champ, Lancement, Lot, Outil, Televersement, Travail, TypeImage } from '../../../clients/sdk/src/types';

/**
 * The API's types, generated from its OpenAPI document for the SDK (clients/sdk/src/schema.ts): the
 * studio reads the very shapes the API serves, and a change of the interface fails its typecheck.
 */
export type { Champ, Lancement, Lot, Outil, Televersement, Travail, TypeImage };

/** What the studio sends to POST /travaux: settings as strings, photos by their upload. */
export interface CorpsLancement {
  outil: string;
  valeurs: Record<string, string>;
  images?: { televersement: string; nom?: string }[];
}

/** docs/api.md, "Limits": one image at most 15 MiB and 50 megapixels, by any route (GET /outils does not say). */
export const TAILLE_MAX = 15 * 1024 * 1024;
export const PIXELS_MAX = 50_000_000;

/** A file's type by its first bytes, as the API recognises images: a name or a browser's guess may be wrong. */
export const typeImage = async (fichier: File): Promise<TypeImage | null> => {
  const o = new Uint8Array(await fichier.slice(0, 12).arrayBuffer());
  if (o[0] === 0xff && o[1] === 0xd8 && o[2] === 0xff) return 'image/jpeg';
  if (o[0] === 0x89 && o[1] === 0x50 && o[2] === 0x4e && o[3] === 0x47) return 'image/png';
  const ascii = (debut: number, fin: number) => String.fromCharCode(...o.subarray(debut, fin));
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return null;
};

/** The catalogue, and whether this stage runs the preview engine (`apercu`: the studio says so at its top). */
export const lireOutils = (): Promise<Catalogue> => appeler<Catalogue>('GET', '/outils');

export const annoncer = async (fichiers: { nom: string; type: TypeImage; taille: number }[]): Promise<Televersement[]> =>
  (await appeler<{ televersements: Televersement[] }>('POST', '/televersements', { fichiers })).televersements;

/** A PUT the storage refused or that never arrived; `statut` 0 when the network cut it. */
export class ErreurDepot extends Error {
  override name = 'ErreurDepot';
  constructor(readonly statut: number) {
    super(`PUT ${statut}`);
  }
}

/**
 * The photo PUT to its signed URL with exactly the headers the URL was signed for. XMLHttpRequest rather
 * than fetch: only it reports an upload's progress. `progres` gets 0 to 1; `signal` stops it (the page left).
 */
export const deposer = (televersement: Televersement, fichier: File, progres: (part: number) => void, signal: AbortSignal): Promise<void> =>
  new Promise((resoudre, rejeter) => {
    if (signal.aborted) return rejeter(new DOMException('aborted', 'AbortError'));
    const xhr = new XMLHttpRequest();
    xhr.open(televersement.methode, televersement.url);
    for (const [nom, valeur] of Object.entries(televersement.entetes)) xhr.setRequestHeader(nom, valeur);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable && e.total > 0) progres(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        progres(1);
        resoudre();
      } else rejeter(new ErreurDepot(xhr.status));
    });
    xhr.addEventListener('error', () => rejeter(new ErreurDepot(0)));
    xhr.addEventListener('abort', () => rejeter(new DOMException('aborted', 'AbortError')));
    signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(fichier);
  });

/**
 * POST /travaux with its Idempotency-Key: the same key with the same body is charged once, however often
 * it is sent (a lost answer, a second click).
 */
export const lancer = (corps: CorpsLancement, cle: string): Promise<Lancement> => appeler<Lancement>('POST', '/travaux', corps, { 'Idempotency-Key': cle });

export const lireLot = (id: string): Promise<Lot> => appeler<Lot>('GET', `/lots/${encodeURIComponent(id)}`);
export const lireTravail = (id: string): Promise<Travail> => appeler<Travail>('GET', `/travaux/${encodeURIComponent(id)}`);
