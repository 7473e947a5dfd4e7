/** The words of a refused `POST /televersements` body: the files announced (formulation.ts says how). */
import { ErreurApi } from '../../modele/erreurs';
import { suggerer } from '../suggestions';
import {
  type Issue,
  type Probleme,
  cheminJson,
  estObjet,
  feuille,
  genre,
  guillemets,
  horsListe,
  nature,
  ou,
  premiersParChemin,
  refuser,
  sansDoublons,
  segments,
} from './formulation';

export const MEMBRES_FICHIER = ['nom', 'type', 'taille'] as const;

const EXEMPLE_FICHIERS = '{"fichiers":[{"nom":"salon.jpg","type":"image/jpeg","taille":2483116}]}';

/** The 422 for a `POST /televersements` body that schemas.ts refused. */
export const refusTeleversements = (issues: readonly Issue[], types: readonly string[]): ErreurApi =>
  refuser('invalid_image', problemesTeleversements(issues, types));

/** Problems of a `POST /televersements` body. `types` are the Content-Types schemas.ts allows. */
export const problemesTeleversements = (issues: readonly Issue[], types: readonly string[]): Probleme[] =>
  sansDoublons(premiersParChemin(issues).map((issue) => fichierProbleme(issue, types)));

const fichierProbleme = (issue: Issue, types: readonly string[]): Probleme => {
  const chemin = segments(issue);
  const nom = cheminJson(chemin);
  const p = (message: string): Probleme => ({ chemin: nom, message });
  const sorte = genre(issue);
  if (chemin.length === 0) return p(`The body must be a JSON object, not ${nature(issue.input)}, e.g. ${EXEMPLE_FICHIERS}`);
  if (chemin[0] !== 'fichiers') {
    const proche = suggerer(String(chemin[0]), ['fichiers']);
    return p(`${nom} is not a member of the body${proche ? ': did you mean fichiers?' : '.'} The body is ${EXEMPLE_FICHIERS}`);
  }
  if (chemin.length === 1) {
    const nombre = Array.isArray(issue.input) ? issue.input.length : 0;
    if (sorte === 'manquant') return p(`fichiers is required: the list of files you are about to upload, e.g. ${EXEMPLE_FICHIERS}`);
    if (issue.type === 'array') {
      return p(
        `fichiers must be an array of files, not ${nature(issue.input)}${estObjet(issue.input) ? ': put the file inside [ ]' : ''}, e.g. ${EXEMPLE_FICHIERS}`,
      );
    }
    if (issue.type === 'min_length') return p(`fichiers is empty: announce at least ${issue.requirement} file, e.g. ${EXEMPLE_FICHIERS}`);
    if (issue.type === 'max_length')
      return p(`fichiers holds ${nombre} files; at most ${issue.requirement} per request: announce the others in another request`);
    return p(feuille(issue, 'fichiers'));
  }
  // valibot checks an array's members as if it were an object: it is said to be no object, once.
  const fichier: unknown = issue.path?.[1]?.value;
  if (chemin.length === 2 || Array.isArray(fichier)) {
    const ici = cheminJson(chemin.slice(0, 2));
    return { chemin: ici, message: `${ici} must be an object, not ${nature(fichier)}: each file is {"nom":"salon.jpg","type":"image/jpeg","taille":2483116}` };
  }
  const membre = String(chemin[2]);
  if (sorte === 'inconnu') {
    const proche = suggerer(membre, MEMBRES_FICHIER);
    return p(`${nom} is not a member of a file${proche ? `: did you mean ${proche}?` : '.'} A file has nom (optional), type and taille`);
  }
  if (membre === 'type') {
    if (sorte === 'manquant') return p(`${nom} is required: the Content-Type the file will be uploaded with, one of ${ou(guillemets(types))}`);
    return p(horsListe(nom, types, issue.input));
  }
  if (membre === 'taille') {
    if (sorte === 'manquant') return p(`${nom} is required: the exact size of the file in bytes, e.g. 2483116`);
    if (issue.type === 'min_value') return p(`${nom} must be at least 1 byte, not ${String(issue.input)}: an empty file cannot be uploaded`);
    return p(feuille(issue, nom, 'the exact size of the file in bytes'));
  }
  return p(feuille(issue, nom, membre === 'nom' ? 'the name of the file' : undefined));
};
