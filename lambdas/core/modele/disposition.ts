/**
 * How a result link makes a browser save the file rather than show it: the `Content-Disposition`
 * S3 sends back when a signed GET asks for it with `response-content-disposition` (the link's
 * query, signed with it: core/infra/liens.ts). A page's `download` attribute is ignored across
 * origins, and the links are on another origin than the web site, so the header is the only way.
 *
 * RFC 6266 (with RFC 8187, formerly 5987, for the UTF-8 name): `attachment; filename="<ASCII
 * fallback>"; filename*=UTF-8''<name percent-encoded>`. Browsers take `filename*` (the name as it
 * is: accents, other scripts); `filename` is there for the few clients that read only it.
 */

const pourcent = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * RFC 8187's `attr-char`s are letters, digits and `!#$&+-.^_`|~`: encodeURIComponent leaves `'()*`
 * as they are, which are not among them.
 */
const valeurEtendue = (texte: string): string => encodeURIComponent(texte).replace(/['()*]/g, pourcent);

/**
 * The name in printable ASCII: accents dropped (été → ete), anything else replaced by `_`, and the
 * characters a quoted-string or a lenient reader would take for something else (`"`, `\`, `%`) too.
 */
const repliAscii = (nom: string): string =>
  nom
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');

/** Control characters (a line break above all) have no place in a header, even percent-encoded. */
const sansControles = (nom: string): string => nom.replace(/\p{Cc}+/gu, '');

/** `Content-Disposition` that downloads the file under `nom` (a file name, not a path). */
export const dispositionPieceJointe = (nom: string): string => {
  const propre = sansControles(nom).trim() || 'fichier';
  return `attachment; filename="${repliAscii(propre)}"; filename*=UTF-8''${valeurEtendue(propre)}`;
};

/** The query parameter S3 turns into the answer's Content-Disposition: the one a result link may carry. */
export const PARAMETRE_DISPOSITION = 'response-content-disposition';

/**
 * RFC 3986, every reserved character encoded: the query is then letters, digits, `-._~` and `%XX`,
 * which no client, browser or proxy writes again otherwise, so the URL CloudFront checks is the URL signed.
 */
const encoderQuery = (texte: string): string => encodeURIComponent(texte).replace(/[!'()*]/g, pourcent);

/** `response-content-disposition=…`: the query of a link that downloads its file under `nom`. */
export const queryTelechargement = (nom: string): string => `${PARAMETRE_DISPOSITION}=${encoderQuery(dispositionPieceJointe(nom))}`;

/**
 * The name a disposition made by `dispositionPieceJointe` gives (its `filename*`), or undefined when
 * it holds none that decodes: what a link's signed disposition asks for, told to S3 again.
 */
export const nomDeDisposition = (disposition: string): string | undefined => {
  const etendu = /(?:^|;)\s*filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
  if (etendu === undefined) return undefined;
  try {
    return decodeURIComponent(etendu);
  } catch {
    return undefined;
  }
};
