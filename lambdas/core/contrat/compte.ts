/** The bodies of the web site's account routes: `POST /compte/cles` names the key it creates. */
import * as v from 'valibot';
import { lireCorpsValide } from './json';

export const LONGUEUR_MAX_NOM_CLE = 60;

export const NouvelleCle = v.object(
  {
    nom: v.pipe(
      v.string('nom is required: a string that names the key'),
      v.trim(),
      v.minLength(1, 'nom must not be empty: name the key after what uses it (e.g. "CRM export")'),
      v.maxLength(LONGUEUR_MAX_NOM_CLE, `nom is at most ${LONGUEUR_MAX_NOM_CLE} characters`),
    ),
    // A test key: free jobs on the preview engine, kept apart from live ones (core/domaine/comptes.ts).
    test: v.optional(v.boolean('test is true for a test key, false (the default) for a live one'), false),
  },
  'nom is required: the body is {"nom": "<a name for the key>"} (and "test": true for a test key)',
);

export const lireNouvelleCle = (contentType: string | undefined, corps: Buffer): { nom: string; test: boolean } =>
  lireCorpsValide(NouvelleCle, contentType, corps);
