/**
 * What a page shows when something failed, and which field it is about (that field then carries
 * aria-invalid and gets the focus). The API's messages are English and shown as they are, marked
 * lang="en" so that a screen reader reads them in English on a French page; Cognito's refusals are
 * worded by the site, in the page's language.
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

/** `champs`: which field each error name is about, on this page. */
export const decrire = (erreur: unknown, champs: Partial<Record<string, Champ>> = {}): Erreur => {
  if (erreur instanceof ErreurApi) return erreur.deLApi ? { texte: erreur.message, langue: 'en' } : { texte: erreur.message };
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
