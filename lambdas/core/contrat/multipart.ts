/**
 * `multipart/form-data` bodies of `POST /travaux`.
 *
 * Why not lambda-multipart-parser, which the design card names: it keeps only the last value of a
 * repeated field (the spec repeats `image_url` and file parts), drops zero-byte files, has no size
 * limits, and depends on busboy 0.3, whose `dicer` crashes the process on a malformed form
 * (CVE-2022-24434). @fastify/busboy is the maintained fork: every part in order, limits enforced
 * while streaming, UTF-8 and RFC 5987 file names.
 */
import Busboy, { type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import { ErreurApi } from '../modele/erreurs';
import { MAX_OCTETS_IMAGE } from '../modele/images';
import { MAX_IMAGES_LOT } from '../modele/outils';

export interface FichierRecu {
  /** Name of the form part (any name is accepted for a file). */
  partie: string;
  nomFichier: string | null;
  contenu: Buffer;
}

export interface FormulaireMultipart {
  /** Text parts, in order, repeated ones kept. */
  champs: { nom: string; valeur: string }[];
  fichiers: FichierRecu[];
}

const LIMITES = {
  fileSize: MAX_OCTETS_IMAGE,
  // Busboy signals the first file beyond this: it is answered (413), never silently dropped.
  files: MAX_IMAGES_LOT,
  fields: 100,
  fieldSize: 10_000,
  fieldNameSize: 200,
  parts: MAX_IMAGES_LOT + 100,
};

export const lireMultipart = (corps: Buffer, contentType: string): Promise<FormulaireMultipart> =>
  new Promise((resoudre, rejeter) => {
    const formulaire: FormulaireMultipart = { champs: [], fichiers: [] };
    let fini = false;
    const echouer = (erreur: ErreurApi) => {
      if (fini) return;
      fini = true;
      rejeter(erreur);
    };
    let analyseur: BusboyInstance;
    try {
      analyseur = new Busboy({ headers: { 'content-type': contentType }, limits: LIMITES });
    } catch {
      echouer(new ErreurApi('invalid_body', 'The multipart body has no usable boundary.'));
      return;
    }
    analyseur.on('file', (partie: string, flux: BusboyFileStream, nomFichier: string | undefined) => {
      const morceaux: Buffer[] = [];
      flux.on('data', (morceau: Buffer) => morceaux.push(morceau));
      // A file part cut short ("Part terminated early") errors on the part's own stream; without a
      // listener that would be an uncaught exception that kills the Lambda.
      flux.on('error', () => echouer(new ErreurApi('invalid_body', 'The multipart body is malformed.')));
      flux.on('limit', () => {
        echouer(new ErreurApi('image_too_large', `The file ${nomFichier ?? partie} is larger than 15 MB.`, { partie, nom_fichier: nomFichier ?? null }));
        flux.resume();
      });
      flux.on('end', () => {
        if (!fini) formulaire.fichiers.push({ partie, nomFichier: nomFichier || null, contenu: Buffer.concat(morceaux) });
      });
    });
    analyseur.on('field', (nom: string, valeur: string, nomTronque: boolean, valeurTronquee: boolean) => {
      if (nomTronque || valeurTronquee) {
        echouer(new ErreurApi('invalid_body', `The form field ${nom} is too long.`));
        return;
      }
      formulaire.champs.push({ nom, valeur });
    });
    analyseur.on('filesLimit', () => echouer(new ErreurApi('too_many_images', `At most ${MAX_IMAGES_LOT} images per batch.`, { max: MAX_IMAGES_LOT })));
    analyseur.on('fieldsLimit', () => echouer(new ErreurApi('invalid_body', 'Too many form fields.')));
    analyseur.on('partsLimit', () => echouer(new ErreurApi('invalid_body', 'Too many form parts.')));
    analyseur.on('error', () => echouer(new ErreurApi('invalid_body', 'The multipart body is malformed.')));
    analyseur.on('finish', () => {
      if (fini) return;
      fini = true;
      resoudre(formulaire);
    });
    analyseur.end(corps);
  });
