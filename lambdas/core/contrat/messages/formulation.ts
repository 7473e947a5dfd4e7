/**
 * How a refused request body is explained to the client (this folder: formulation.ts the words every
 * refusal shares, travaux.ts POST /travaux, televersements.ts POST /televersements). schemas.ts holds the
 * rules; these modules hold the words: they turn valibot's issues into `{ chemin, message }` problems that
 * name the field as the client wrote it (`valeurs.style`, `images[2].url`; in a form, the field's own name),
 * say what is wrong and what is allowed, and suggest the closest name or value for a typo
 * (suggestions.ts). Nothing of valibot's own wording reaches a client: every message is built here from
 * the issue's kind, the value sent and the catalogue, except the predicates of opaque rules (`check`,
 * `regex`), which schemas.ts writes as plain English next to the rule.
 */
import type { BaseIssue } from 'valibot';
import { ErreurApi, type CodeApi } from '../../modele/erreurs';
import { suggerer } from '../suggestions';

/** One problem of a request: where (as the client wrote it; '' for the whole body or form) and what. */
export interface Probleme {
  chemin: string;
  message: string;
}

export type Issue = BaseIssue<unknown>;

export type Segment = string | number;

/** The refusal itself: a readable summary in `message`, every problem in `details`. */
export const refuser = (code: CodeApi, problemes: readonly Probleme[], autres: Record<string, unknown> = {}): ErreurApi =>
  new ErreurApi(code, resumer(problemes), { ...autres, details: problemes });

export const resumer = (problemes: readonly Probleme[]): string => {
  if (problemes.length === 1) return problemes[0]!.message;
  const premiers = problemes
    .slice(0, 3)
    .map((p) => p.message)
    .join('; ');
  const reste = problemes.length - 3;
  return `${problemes.length} problems: ${premiers}${reste > 0 ? `; and ${reste} more, listed in details` : ''}`;
};

// ——— Small pieces of wording ———

export const citer = (texte: string, max = 60): string => JSON.stringify(texte.length > max ? `${texte.slice(0, max)}…` : texte);

/** What a value is, for "…, not <nature>". */
export const nature = (valeur: unknown): string => {
  if (valeur === undefined) return 'missing';
  if (valeur === null) return 'null';
  if (Array.isArray(valeur)) return 'an array';
  if (typeof valeur === 'string') return `the text ${citer(valeur)}`;
  if (typeof valeur === 'number') return `the number ${valeur}`;
  if (typeof valeur === 'boolean') return String(valeur);
  return 'an object';
};

export const estObjet = (valeur: unknown): valeur is Record<string, unknown> => typeof valeur === 'object' && valeur !== null && !Array.isArray(valeur);

export const ou = (mots: readonly string[]): string => (mots.length <= 1 ? mots.join('') : `${mots.slice(0, -1).join(', ')} or ${mots.at(-1)}`);

export const et = (mots: readonly string[]): string => (mots.length <= 1 ? mots.join('') : `${mots.slice(0, -1).join(', ')} and ${mots.at(-1)}`);

export const guillemets = (mots: readonly string[]): string[] => mots.map((m) => JSON.stringify(m));

/** A JSON path as the client wrote it: `valeurs.style`, `images[2].url`, `valeurs["ma clé"]`. */
export const cheminJson = (segments: readonly Segment[]): string =>
  segments.reduce<string>((texte, s) => {
    if (typeof s === 'number') return `${texte}[${s}]`;
    const cle = s.length > 100 ? `${s.slice(0, 100)}…` : s;
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(cle)) return texte ? `${texte}.${cle}` : cle;
    return `${texte}[${JSON.stringify(cle)}]`;
  }, '');

export const segments = (issue: Issue): Segment[] => (issue.path ?? []).map((p) => p.key as Segment);

type Genre = 'inconnu' | 'manquant' | 'pas_objet' | 'autre';

/** valibot reports three object problems under one type, told apart by what was expected. */
export const genre = (issue: Issue): Genre => {
  if (issue.type !== 'strict_object' && issue.type !== 'object') return 'autre';
  if (issue.expected === 'never') return 'inconnu';
  return issue.path?.at(-1)?.origin === 'key' ? 'manquant' : 'pas_objet';
};

/** The predicate of an opaque rule, written by schemas.ts; never a default of the library. */
const predicat = (issue: Issue): string => (/^Invalid \w+:/.test(issue.message) ? 'is not valid' : issue.message);

/**
 * A problem with one value, worded from the rule it broke. `quoi` says what the value is for, so
 * that a type mistake also says what to send.
 */
export const feuille = (issue: Issue, nom: string, quoi?: string): string => {
  const entree = issue.input;
  const pour = quoi ? ` (${quoi})` : '';
  const exigence = typeof issue.requirement === 'number' ? issue.requirement : undefined;
  switch (issue.type) {
    case 'string':
      return `${nom} must be a string${pour}, not ${nature(entree)}`;
    case 'number': {
      const chiffres = typeof entree === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(entree) ? `: write ${entree.trim()} without quotes` : '';
      return `${nom} must be a number${pour}, not ${nature(entree)}${chiffres}`;
    }
    case 'integer':
      return `${nom} must be a whole number${pour}, not ${String(entree)}`;
    case 'min_value':
      return `${nom} must be at least ${exigence}${pour}, not ${String(entree)}`;
    case 'min_length':
      if (typeof entree === 'string') return exigence === 1 ? `${nom} must not be empty${pour}` : `${nom} must be at least ${exigence} characters long`;
      return `${nom} must hold at least ${exigence} element(s)`;
    case 'max_length':
      if (typeof entree === 'string') return `${nom} is ${entree.length} characters long; at most ${exigence} are allowed`;
      return `${nom} holds ${Array.isArray(entree) ? entree.length : 'too many'} elements; at most ${exigence} are allowed`;
    case 'url':
      return `${nom} is not a valid URL: ${nature(entree)}; write a full address such as https://example.com/photo.jpg`;
    case 'array':
      return `${nom} must be an array, not ${nature(entree)}`;
    case 'strict_object':
    case 'object':
      return `${nom} must be an object, not ${nature(entree)}`;
    case 'check':
    case 'regex':
      return `${nom} ${predicat(issue)}, not ${nature(entree)}`;
    default:
      return `${nom} is not valid: ${nature(entree)}`;
  }
};

/** "one of "a", "b" or "c"", for a closed list; with the closest to what was sent when there is one. */
export const horsListe = (nom: string, permises: readonly string[], valeur: unknown, pour = ''): string => {
  const liste = `one of ${ou(guillemets(permises))}`;
  if (typeof valeur !== 'string') return `${nom} must be a string${pour}, ${liste}, not ${nature(valeur)}`;
  const proche = suggerer(valeur, permises);
  return `${nom} must be ${liste}${pour}, not ${citer(valeur)}${proche ? `: did you mean ${JSON.stringify(proche)}?` : ''}`;
};

/**
 * One problem per value: valibot goes on checking a value after its first broken rule (`not a URL`,
 * then `not https`), and the first says enough.
 */
export const premiersParChemin = (issues: readonly Issue[]): Issue[] => {
  const vus = new Set<string>();
  return issues.filter((issue) => {
    const cle = JSON.stringify(segments(issue));
    if (vus.has(cle)) return false;
    vus.add(cle);
    return true;
  });
};

export const sansDoublons = (problemes: Probleme[]): Probleme[] => {
  const vus = new Set<string>();
  return problemes.filter((p) => {
    const cle = `${p.chemin}\n${p.message}`;
    if (vus.has(cle)) return false;
    vus.add(cle);
    return true;
  });
};

export const capitale = (texte: string): string => `${texte.charAt(0).toUpperCase()}${texte.slice(1)}`;
