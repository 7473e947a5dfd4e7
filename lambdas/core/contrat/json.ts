/**
 * Reading a JSON request body with bounds on its shape, not only on its size.
 *
 * `JSON.parse` itself copes with any nesting, but what runs after it does not: a value nested 100 000
 * levels deep overflows the stack of every recursive walk over it (`JSON.stringify` in an error
 * message or a log line, validation, marshalling), which would surface as a 500; and a body of a
 * million members costs seconds of validation and a million-line error. A real request is an object
 * three levels deep (body → images → image) with at most 50 images and a handful of settings, so the
 * body's text is scanned for both bounds before it is parsed, in one pass that skips over strings
 * (base64 images) with `indexOf`.
 */
import * as v from 'valibot';
import { ErreurApi } from '../modele/erreurs';
import { cheminJson, refuser as refuserTous, segments } from './messages/formulation';

/** A 400 `invalid_body` whose `details` has the one problem, the body itself (`chemin` ''), like every refusal of a body. */
const refuser = (message: string, autres: Record<string, unknown> = {}): ErreurApi =>
  new ErreurApi('invalid_body', message, { ...autres, details: [{ chemin: '', message }] });

/**
 * Nesting allowed in a body: a valid request needs 3 levels. 32 leaves room for a client's
 * mistakes to be answered with a useful 422 that names the path, and stays far below the depth at
 * which any recursive code over the value could run out of stack (thousands of frames).
 */
export const PROFONDEUR_MAX_JSON = 32;

/**
 * Members and elements allowed in a body (counted as commas and opened objects or arrays): a valid
 * request has at most about 200 (50 images of 2 members, a few settings). 10 000 leaves that a wide
 * margin and keeps validating and answering any body to milliseconds.
 */
export const VALEURS_MAX_JSON = 10_000;

const GUILLEMET = 0x22;
const BARRE_OBLIQUE_INVERSE = 0x5c;
const CROCHET_OUVRANT = 0x5b;
const ACCOLADE_OUVRANTE = 0x7b;
const CROCHET_FERMANT = 0x5d;
const ACCOLADE_FERMANTE = 0x7d;
const VIRGULE = 0x2c;

/** Index of the quote that closes the string opened at `debut`, or -1 when the text ends first. */
const finDeChaine = (texte: string, debut: number): number => {
  let fin = debut;
  for (;;) {
    fin = texte.indexOf('"', fin + 1);
    if (fin < 0) return -1;
    // A quote preceded by an odd number of backslashes is escaped and does not close the string.
    let barres = 0;
    for (let j = fin - 1; texte.charCodeAt(j) === BARRE_OBLIQUE_INVERSE; j--) barres++;
    if (barres % 2 === 0) return fin;
  }
};

/** Throws a 400 when the text nests deeper or holds more values than allowed; does not validate JSON. */
const verifierForme = (texte: string): void => {
  let profondeur = 0;
  let valeurs = 0;
  for (let i = 0; i < texte.length; i++) {
    const c = texte.charCodeAt(i);
    if (c === GUILLEMET) {
      const fin = finDeChaine(texte, i);
      // An unterminated string: JSON.parse says the body is not JSON.
      if (fin < 0) return;
      i = fin;
    } else if (c === CROCHET_OUVRANT || c === ACCOLADE_OUVRANTE) {
      if (++profondeur > PROFONDEUR_MAX_JSON) {
        throw refuser(`The JSON body is nested deeper than ${PROFONDEUR_MAX_JSON} levels`, { profondeur_max: PROFONDEUR_MAX_JSON });
      }
      valeurs++;
    } else if (c === CROCHET_FERMANT || c === ACCOLADE_FERMANTE) {
      profondeur--;
    } else if (c === VIRGULE) {
      valeurs++;
    }
    if (valeurs > VALEURS_MAX_JSON) {
      const message = `The JSON body holds more than ${VALEURS_MAX_JSON} members and elements; a request has at most 50 images and a few settings`;
      throw refuser(message, { valeurs_max: VALEURS_MAX_JSON });
    }
  }
};

const ESPACES = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The character the parser stopped at, as a person reads it: `"'"`, or `U+0001` when unprintable. */
const caractere = (c: string): string =>
  /^[\x21-\x7e]$/u.test(c) || c.codePointAt(0)! > 0x9f ? JSON.stringify(c) : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why the text is not JSON, and where (line and column, from the parser's position), with the usual
 * cause when it is recognisable: a trailing comma, single quotes, unquoted names. The parser's own
 * message is not passed on: it is worded for programmers.
 */
const erreurSyntaxe = (texte: string, erreur: unknown): string => {
  if (texte.trim() === '') return 'The body is empty: send a JSON object';
  const raison = erreur instanceof Error ? erreur.message : '';
  const position = /at position (\d+)/.exec(raison)?.[1];
  // Stopped at the very end (the parser says so in several ways): something was left open.
  if ((position !== undefined && Number(position) >= texte.length) || /end of JSON input/.test(raison)) {
    return 'The body is not valid JSON: it ends too early (a closing }, ] or " is missing)';
  }
  if (position === undefined) return 'The body is not valid JSON';
  const i = Number(position);
  let ligne = 1;
  let debutLigne = 0;
  for (let n = texte.indexOf('\n'); n >= 0 && n < i; n = texte.indexOf('\n', n + 1)) {
    ligne++;
    debutLigne = n + 1;
  }
  const c = texte[i]!;
  let avant = i - 1;
  while (avant >= 0 && ESPACES.has(texte.charCodeAt(avant))) avant--;
  let cause = '';
  if (c === "'") cause = ': JSON strings and names take double quotes (")';
  else if ((c === '}' || c === ']') && texte[avant] === ',') cause = `: remove the comma before ${c}`;
  else if (/[A-Za-z_]/.test(c) && (texte[avant] === '{' || texte[avant] === ',')) cause = ': names of members take double quotes, e.g. {"outil":"ciel"}';
  return `The body is not valid JSON at line ${ligne}, column ${i - debutLigne + 1} (${caractere(c)})${cause}`;
};

/**
 * The body of a JSON request as an object. Throws `ErreurApi('invalid_body')` (400) when it is not
 * JSON, not an object, nested too deep or too many values wide. Text is read as UTF-8.
 */
export const lireCorpsJson = (corps: Buffer): Record<string, unknown> => {
  const texte = corps.toString('utf8');
  verifierForme(texte);
  let brut: unknown;
  try {
    brut = JSON.parse(texte);
  } catch (erreur) {
    throw refuser(erreurSyntaxe(texte, erreur));
  }
  if (typeof brut !== 'object' || brut === null || Array.isArray(brut)) {
    const quoi = brut === null ? 'null' : Array.isArray(brut) ? 'an array' : `a ${typeof brut}`;
    throw refuser(`The body must be a JSON object ({…}), not ${quoi}`);
  }
  return brut as Record<string, unknown>;
};

/** A request's media type, lower-case and without its parameters (`; charset=utf-8`). */
export const typeMedia = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** JSON: application/json, or a type with the +json suffix (RFC 6839), which every JSON route accepts alike. */
export const estJson = (type: string): boolean => type === 'application/json' || type.endsWith('+json');

/** The body of a route that takes JSON only: 415 for another media type, then read as lireCorpsJson does. */
export const lireCorpsDeTypeJson = (contentType: string | undefined, corps: Buffer): Record<string, unknown> => {
  const type = typeMedia(contentType);
  if (!estJson(type)) throw new ErreurApi('unsupported_media_type', `Content-Type must be application/json${type ? `, not ${type}` : ''}.`);
  return lireCorpsJson(corps);
};

/** A small JSON body (`POST /compte/cles`, `POST /webhooks`) checked against its schema: every problem is a detail of one 400. */
export const lireCorpsValide = <S extends v.GenericSchema>(schema: S, contentType: string | undefined, corps: Buffer): v.InferOutput<S> => {
  const resultat = v.safeParse(schema, lireCorpsDeTypeJson(contentType, corps));
  if (!resultat.success)
    throw refuserTous(
      'invalid_body',
      resultat.issues.map((i) => ({ chemin: cheminJson(segments(i)), message: i.message })),
    );
  return resultat.output;
};
