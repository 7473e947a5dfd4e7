/**
 * The answers of the tools: a short text an assistant can read out, the API's object as
 * `structuredContent`, and for ended jobs their result files as links and the small images inline; an API
 * error as a tool error with the API's code and message.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErreurRetouche, type Lot, type Travail } from '../../../sdk/src/index';
import type { LecteurImage } from './definition';

/** One result image shown inline (base64 `image` content) when its file is at most this large: 1 MiB. */
export const IMAGE_OCTETS_MAX = 1024 * 1024;
/** The images inline in one answer, together, at most (later results get their link only): 2 MiB. */
export const IMAGES_OCTETS_MAX_REPONSE = 2 * 1024 * 1024;
/** The images of one answer are read within this, together: the remote answer must leave before the gateway's 29 s. */
export const DELAI_IMAGES_MS = 4_000;

type Contenu = CallToolResult['content'][number];

export const reponse = (texte: string, objet: object, autres: Contenu[] = []): CallToolResult => ({
  content: [{ type: 'text', text: texte }, ...autres],
  structuredContent: objet as Record<string, unknown>,
});

export const erreur = (texte: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: texte }] });

/** A job or batch the API does not know (404): erased, or never this key's. */
export class Introuvable extends Error {
  constructor(
    readonly id: string,
    /** What this server erased under this id, if it did. */
    readonly efface: 'job' | 'batch' | undefined,
  ) {
    super(
      efface
        ? `erased: ${efface === 'job' ? 'Job' : 'Batch'} ${id} was erased (with effacer): its photos, results and record are gone for good, and it cannot be read again.`
        : `not_found: No job or batch ${id} for this key. If it was erased (effacer, DELETE, or the end of its 90 days), it is gone for good and cannot be read again; otherwise check the id (a test key sees only test jobs).`,
    );
  }
}

/** Every tool's body: an API error becomes a tool error with the API's code and message (and its details). */
export const appelApi = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof Introuvable) return erreur(e.message);
    if (e instanceof ErreurRetouche) {
      // A single problem's detail repeats the message: only what it does not already say.
      const details = e.details
        .filter((d) => !e.message.includes(d.message))
        .map((d) => `\n- ${d.chemin}: ${d.message}`)
        .join('');
      return erreur(`${e.code}: ${e.message}${details}`);
    }
    throw e;
  }
};

const TYPES_PAR_EXTENSION: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', zip: 'application/zip' };

/** A link's file name (the last segment of its path) and media type by its extension. */
const fichierDuLien = (url: string): { nom: string; type: string | undefined } => {
  let nom: string;
  try {
    nom = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'result';
  } catch {
    nom = 'result';
  }
  return { nom, type: TYPES_PAR_EXTENSION[nom.split('.').pop()?.toLowerCase() ?? ''] };
};

/** A `resource_link` (MCP 2025-06-18), its keys in the order the SDK's schema gives them. */
const lienRessource = (uri: string, description: string): Contenu => {
  const { nom, type } = fichierDuLien(uri);
  return { name: nom, uri, description, ...(type ? { mimeType: type } : {}), type: 'resource_link' } as Contenu;
};

/**
 * The contents after the text of an answer about jobs: for each ended job's result file a `resource_link`
 * to its display link (`url_affichage`, else `url`), a batch's ZIP as one too, and, when `lireImage` is
 * given, each result image of at most IMAGE_OCTETS_MAX bytes inline (`image`, base64), in order, until
 * IMAGES_OCTETS_MAX_REPONSE are inline.
 */
export const contenusResultats = async (
  travaux: Travail[],
  lot: Lot | undefined,
  lireImage: LecteurImage | undefined,
  signal: AbortSignal,
): Promise<Contenu[]> => {
  const contenus: Contenu[] = [];
  let restant = IMAGES_OCTETS_MAX_REPONSE;
  const delai = AbortSignal.any([signal, AbortSignal.timeout(DELAI_IMAGES_MS)]);
  for (const t of travaux) {
    if (t.statut !== 'termine') continue;
    for (const [i, lien] of t.resultats.entries()) {
      const uri = (lien as { url_affichage?: string }).url_affichage ?? lien.url;
      const quoi = t.resultats.length > 1 ? `Result ${i + 1}` : 'Result';
      contenus.push(lienRessource(uri, `${quoi} of job ${t.id} (${t.outil}${t.nom ? `, ${t.nom}` : ''}), valid until ${lien.expire_le}`));
      if (!lireImage || restant <= 0 || delai.aborted) continue;
      const image = await lireImage(uri, Math.min(IMAGE_OCTETS_MAX, restant), delai).catch(() => undefined);
      if (!image) continue;
      restant -= image.octets.byteLength;
      contenus.push({ type: 'image', data: Buffer.from(image.octets).toString('base64'), mimeType: image.type });
    }
  }
  if (lot?.zip) contenus.push(lienRessource(lot.zip.url, `ZIP of every result of batch ${lot.id}, valid until ${lot.zip.expire_le}`));
  return contenus;
};
