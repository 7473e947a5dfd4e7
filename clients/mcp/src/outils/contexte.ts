/**
 * What the tools of one server share: its options, the client, the wrapper of every keyed call, and what
 * it erased. Made once per list of tools (outilsMcp), so a stdio session remembers its erasures and an
 * HTTP request only its own.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErreurRetouche, estLot, type Lot, type Retouche, type Travail } from '../../../sdk/src/index';
import type { OptionsServeurMcp } from './definition';
import { appelApi, contenusResultats, erreur, Introuvable, reponse } from './reponses';

export interface ContexteOutils {
  options: OptionsServeurMcp;
  retouche: Retouche;
  /** A keyed tool's body, its API errors made tool errors; without a key, the message that says how to set one. */
  appel: (fn: () => Promise<CallToolResult>) => Promise<CallToolResult>;
  /** The jobs and batches this server erased (on stdio, the session's; over HTTP, the request's): `lire` names them. */
  effaces: Map<string, 'job' | 'batch'>;
  /** A job or batch, or an Introuvable that says whether this server erased it. */
  lireOuDireEfface: (id: string, signal: AbortSignal) => Promise<Travail | Lot>;
  /** The answer about a job or batch: its text, a link per result file (and the ZIP), and the images small enough. */
  reponseEtat: (texte: string, etat: Travail | Lot, signal: AbortSignal, avecImages: boolean) => Promise<CallToolResult>;
}

export const contexteOutils = (options: OptionsServeurMcp): ContexteOutils => {
  const { retouche } = options;
  const effaces = new Map<string, 'job' | 'batch'>();
  return {
    options,
    retouche,
    effaces,
    // Started without a key: each call says how to set one (the API would only answer 401).
    appel: (fn) => (options.cleManquante === undefined ? appelApi(fn) : Promise.resolve(erreur(options.cleManquante))),
    lireOuDireEfface: async (id, signal) => {
      try {
        return await retouche.lire(id, { signal });
      } catch (e) {
        if (e instanceof ErreurRetouche && e.code === 'not_found') throw new Introuvable(id, effaces.get(id));
        throw e;
      }
    },
    reponseEtat: async (texte, etat, signal, avecImages) =>
      reponse(
        texte,
        etat,
        await contenusResultats(estLot(etat) ? etat.travaux : [etat], estLot(etat) ? etat : undefined, avecImages ? options.lireImage : undefined, signal),
      ),
  };
};
