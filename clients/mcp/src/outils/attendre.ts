/**
 * The `attendre` tool: waits for a job or batch within the transport's bound (OptionsServeurMcp.attenteMaxS),
 * with progress notifications for a client that asked, and says to call again when the bound passes first.
 */
import * as z from 'zod/mini';
import { ErreurRetouche, estLot, TERMINAUX_TRAVAIL, type Lot, type Travail } from '../../../sdk/src/index';
import type { ContexteOutils } from './contexte';
import { definirOutil, ID, type OutilMcp } from './definition';
import { decrire } from './descriptions';
import { Introuvable } from './reponses';

export const attendre = ({ retouche, options, appel, effaces, reponseEtat }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'attendre',
    title: 'Wait for a job or batch',
    description: `Waits until a job or batch has ended (at most ${options.attenteMaxS} seconds in one call), then gives its results: links to the retouched photos (valid 24 hours), a batch's ZIP, or the listing text of an annonce. If it is still running, says so: call attendre again.`,
    inputSchema: {
      id: ID,
      secondes: z
        .optional(z.int().check(z.minimum(1), z.maximum(options.attenteMaxS)))
        .check(z.describe(`Longest wait of this call, in seconds (default and at most ${options.attenteMaxS}).`)),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    executer: async ({ id, secondes }, extra) =>
      appel(async () => {
        const jeton = extra._meta?.progressToken;
        // The progress a client asked for: a batch's ended jobs, or a job's 0 then 1, each time it grows
        // (MCP wants each notification's progress above the last).
        let dejaDit = -1;
        // Sent in order, and all before the answer: a client forgets a call's progress once it has its answer.
        let envois = Promise.resolve();
        const progres = (etat: Travail | Lot) => {
          if (jeton === undefined) return;
          const [fait, total] = estLot(etat) ? [etat.termines + etat.echecs, etat.total] : [TERMINAUX_TRAVAIL.includes(etat.statut) ? 1 : 0, 1];
          if (fait <= dejaDit) return;
          dejaDit = fait;
          const notification = { method: 'notifications/progress' as const, params: { progressToken: jeton, progress: fait, total, message: etat.statut } };
          envois = envois.then(() => extra.sendNotification(notification)).catch(() => undefined);
        };
        const attente = secondes ?? options.attenteMaxS;
        let dernier: Travail | Lot | undefined;
        try {
          const fin = await retouche.attendre(id, {
            delaiMaxMs: attente * 1000,
            intervalleMs: 1_000,
            signal: extra.signal,
            surEtat: (etat) => {
              dernier = etat;
              progres(etat);
            },
          });
          await envois;
          return await reponseEtat(decrire(fin), fin, extra.signal, true);
        } catch (e) {
          if (e instanceof ErreurRetouche && e.code === 'not_found') throw new Introuvable(id, effaces.get(id));
          if (!(e instanceof ErreurRetouche) || e.code !== 'wait_timeout' || !dernier) throw e;
          await envois;
          return reponseEtat(
            `Still ${dernier.statut} after ${attente} s (the most one attendre call waits on this server): call attendre again with id ${id}.\n\n${decrire(dernier)}`,
            dernier,
            extra.signal,
            true,
          );
        }
      }),
  });
