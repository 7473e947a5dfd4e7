/**
 * What a page shows when something failed, and which field it is about (that field then carries
 * aria-invalid and gets the focus). The site words every refusal in the page's language: the API's by
 * their `error.code` (i18n `erreursApi.<code>`, with the details the API gives: `erreursApiDetails`), a
 * failed job's reason by its `erreur.code` (`erreursTravail.<code>`), Cognito's by their name. Only a
 * code the site does not know yet shows the API's own message, English, marked lang="en" so that a
 * screen reader reads it in English on a French page. test/unit/site-erreurs.test.ts checks that every
 * code the API can return (lambdas/core/modele/erreurs.ts) has its French and English wording.
 */
import { ErreurApi } from './api';
import { i18n } from './i18n';
import { nomErreur } from './session';

export type Champ = 'email' | 'mot-de-passe' | 'code' | 'nouveau-mot-de-passe' | 'nom-cle' | 'url-webhook' | 'evenement-travail';

export interface Erreur {
  texte: string;
  langue?: string;
  champ?: Champ;
}

/** Cognito's error names the site words itself (i18n keys under `erreurs.`); others get a general sentence. */
const CONNUES = new Set([
  'UsernameExistsException',
  'CodeMismatchException',
  'ExpiredCodeException',
  'NotAuthorizedException',
  'UserNotConfirmedException',
  'InvalidPasswordException',
  'LimitExceededException',
  'TooManyRequestsException',
  'UserNotFoundException',
  'InvalidParameterException',
  'ChallengeNonGere',
]);

/**
 * The wordings that say the API's details (`erreursApiDetails.<cle>`): the first whose members the
 * error carries all (and whose `si` holds) is used; else the code's general wording.
 */
const VARIANTES: { code: string; cle: string; membres: string[]; si?: (infos: Record<string, unknown>) => boolean }[] = [
  { code: 'insufficient_credits', cle: 'soldeNegatif', membres: ['credits'], si: (infos) => Number(infos.credits) < 0 },
  { code: 'insufficient_credits', cle: 'insufficient_credits', membres: ['credits', 'requis'] },
  { code: 'image_too_large', cle: 'imagePixels', membres: ['largeur', 'hauteur', 'max_pixels'] },
  { code: 'image_too_large', cle: 'imageOctets', membres: ['taille', 'max_octets'] },
  { code: 'too_many_images', cle: 'too_many_images', membres: ['max'] },
  { code: 'too_many_keys', cle: 'too_many_keys', membres: ['max'] },
  { code: 'too_many_pending_jobs', cle: 'too_many_pending_jobs', membres: ['max', 'en_attente'] },
  { code: 'too_many_pending_uploads', cle: 'too_many_pending_uploads', membres: ['max', 'televersements_ouverts'] },
  { code: 'rate_limited', cle: 'rate_limited', membres: ['retry_after'] },
  { code: 'invalid_parameter', cle: 'invalid_parameter', membres: ['parametre'] },
];

/** Refusals of a body's content, whose `details` name where (`chemin`): the site names those fields after its wording. */
const AVEC_CHEMINS = new Set(['invalid_body', 'invalid_settings', 'invalid_image', 'invalid_tool']);

const MO = 1024 * 1024;

/** The members as the wordings say them: numbers in the page's way, sizes in MB, pixels in megapixels. */
const parametres = (infos: Record<string, unknown>): Record<string, unknown> => {
  const nombre = (n: number, decimales = 0) => new Intl.NumberFormat(i18n.global.locale.value, { maximumFractionDigits: decimales }).format(n);
  const valeurs: Record<string, unknown> = {};
  for (const [nom, valeur] of Object.entries(infos)) valeurs[nom] = typeof valeur === 'number' ? nombre(valeur) : valeur;
  if (typeof infos.max_pixels === 'number') valeurs.megapixels = nombre(infos.max_pixels / 1e6, 1);
  if (typeof infos.taille === 'number') valeurs.taille = nombre(infos.taille / MO, 1);
  if (typeof infos.max_octets === 'number') valeurs.max_octets = nombre(infos.max_octets / MO, 1);
  return valeurs;
};

/**
 * An API refusal in the page's language, from its code and the `error` object's other members; the
 * API's own message (English) for a code the site does not know.
 */
export const decrireErreurApi = (code: string, message: string, infos: Record<string, unknown> = {}): Erreur => {
  const { t, te } = i18n.global;
  if (!te(`erreursApi.${code}`)) return { texte: message, langue: 'en' };
  const variante = VARIANTES.find((v) => v.code === code && v.membres.every((m) => infos[m] !== undefined && infos[m] !== null) && (v.si?.(infos) ?? true));
  let texte = variante ? t(`erreursApiDetails.${variante.cle}`, parametres(infos)) : t(`erreursApi.${code}`);
  const details = Array.isArray(infos.details) ? (infos.details as unknown[]) : [];
  const chemins = [...new Set(details.map((d) => (d as { chemin?: unknown } | null)?.chemin).filter((c): c is string => typeof c === 'string' && c !== ''))];
  if (AVEC_CHEMINS.has(code) && chemins.length > 0) texte += ` ${t('erreursApiDetails.champs', { champs: chemins.join(', ') }, chemins.length)}`;
  return { texte };
};

/** A failed job's reason (`Travail.erreur`) in the page's language; the API's message for a code the site does not know. */
export const decrireEchec = (erreur: { code: string; message: string }): Erreur =>
  i18n.global.te(`erreursTravail.${erreur.code}`) ? { texte: i18n.global.t(`erreursTravail.${erreur.code}`) } : { texte: erreur.message, langue: 'en' };

/** `champs`: which field each error name is about, on this page. */
export const decrire = (erreur: unknown, champs: Partial<Record<string, Champ>> = {}): Erreur => {
  if (erreur instanceof ErreurApi) return erreur.deLApi ? decrireErreurApi(erreur.code, erreur.message, erreur.infos) : { texte: erreur.message };
  const nom = nomErreur(erreur);
  // The SDK's fetch failing (offline, the pool unreachable) is a TypeError.
  const cle = CONNUES.has(nom) ? nom : nom === 'TypeError' ? 'reseau' : 'inconnue';
  return { texte: i18n.global.t(`erreurs.${cle}`), champ: champs[nom] };
};

export const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** The user pool's rule (lib/utilisateurs.ts, local/cognito.ts), checked before the round trip. */
export const REGLE_MOT_DE_PASSE = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d).{8,}$/;
export const CODE = /^\d{6}$/;

/** The first rule broken, as an Erreur on its field, with the focus put there; null when all hold. */
export const valider = (regles: [respectee: boolean, champ: Champ, cle: string][]): Erreur | null => {
  const brisee = regles.find(([respectee]) => !respectee);
  if (!brisee) return null;
  focaliser(brisee[1]);
  return { texte: i18n.global.t(brisee[2]), champ: brisee[1] };
};

/** The field an error is about gets the focus, so that the keyboard is where the fix is. */
export const focaliser = (champ: Champ | undefined): void => {
  if (champ) document.getElementById(champ)?.focus();
};

/** A code as people paste it: "123 456" or with a trailing space. */
export const nettoyerCode = (code: string): string => code.replace(/\s/g, '');
