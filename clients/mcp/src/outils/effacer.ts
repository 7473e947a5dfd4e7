/** The `effacer` tool: erases an ended job or batch, and remembers it so that `lire` and `attendre` can say so. */
import { estLot } from '../../../sdk/src/index';
import type { ContexteOutils } from './contexte';
import { definirOutil, ID, type OutilMcp } from './definition';
import { reponse } from './reponses';

export const effacer = ({ retouche, appel, effaces, lireOuDireEfface }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'effacer',
    title: 'Erase a job or batch',
    description:
      'Erases an ended job or batch for good: its photos, results, ZIP and record. Credits do not change. A job still running cannot be erased yet (it says so). Ask the user before erasing.',
    inputSchema: { id: ID },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    executer: async ({ id }, extra) =>
      appel(async () => {
        const etat = await lireOuDireEfface(id, extra.signal);
        const effacement = estLot(etat) ? await retouche.effacerLot(id, { signal: extra.signal }) : await retouche.effacerTravail(id, { signal: extra.signal });
        effaces.set(id, estLot(etat) ? 'batch' : 'job');
        if (estLot(etat)) for (const t of etat.travaux) effaces.set(t.id, 'job');
        return reponse(`Erased ${estLot(etat) ? 'batch' : 'job'} ${id}: its photos, results and record are gone.`, effacement);
      }),
  });
