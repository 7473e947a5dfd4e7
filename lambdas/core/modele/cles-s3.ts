/**
 * Where every stored file is: one key builder per kind of file, all under their lifecycle prefix
 * (retention.ts). Every key holds the account id right after its prefix, so an account's files can
 * be found, and erased, by prefix (core/domaine/effacement/).
 */
import { EXTENSIONS, type FormatImage } from './images';
import type { EnregistrementTravail, Resultat } from './enregistrements';
import { PREFIXES } from './retention';

/** A job's input sent inside the request, or fetched from its URL by the Preparer step. */
export const cleEntree = (compte: string, travail: string, rang: number, format: FormatImage): string =>
  `${PREFIXES.entrees}${compte}/${travail}/${rang}.${EXTENSIONS[format]}`;

/** A file put with POST /televersements' signed URL. */
export const cleTeleversement = (compte: string, id: string): string => `${PREFIXES.televersements}${compte}/${id}`;

/** The upload id of a job's input, when that input is an upload. */
export const idTeleversement = (compte: string, cle: string): string | undefined => {
  const prefixe = cleTeleversement(compte, '');
  return cle.startsWith(prefixe) && cle.length > prefixe.length ? cle.slice(prefixe.length) : undefined;
};

/** A file name for downloads and the batch ZIP: position, the image's own name, the tool. */
export const nomFichier = (index: number, nom: string | null, outil: string, extension: string): string => {
  const base = (nom ?? '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .slice(0, 80);
  return `${String(index + 1).padStart(2, '0')}-${base ? `${base}-` : ''}${outil}.${extension}`;
};

export const cleResultat = (compte: string, travail: string, fichier: string): string => `${PREFIXES.resultats}${compte}/${travail}/${fichier}`;

/** A job's result files from its record and their formats: where each is stored, and its name for downloads and ZIPs. */
export const resultatsDuTravail = (t: Pick<EnregistrementTravail, 'compte' | 'id' | 'index' | 'nom' | 'outil'>, formats: readonly FormatImage[]): Resultat[] =>
  formats.map((format) => {
    const fichier = nomFichier(t.index, t.nom, t.outil, EXTENSIONS[format]);
    return { cle: cleResultat(t.compte, t.id, fichier), fichier };
  });

/** A listing text, written by the tool step and read into the record by Enregistrer (see pipeline/etape.ts). */
export const cleTexte = (compte: string, travail: string): string => `${PREFIXES.resultats}${compte}/${travail}/annonce.md`;

export const cleZip = (compte: string, lot: string): string => `${PREFIXES.zips}${compte}/${lot}.zip`;

/** Every prefix that holds files of this account. */
export const prefixesDuCompte = (compte: string): string[] => Object.values(PREFIXES).map((p) => `${p}${compte}/`);
