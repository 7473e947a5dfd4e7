/** The `lire` tool: a job's or a batch's state now, with its results. */
import type { ContexteOutils } from './contexte';
import { definirOutil, ID, type OutilMcp } from './definition';
import { decrire } from './descriptions';

export const lire = ({ appel, lireOuDireEfface, reponseEtat }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'lire',
    title: 'Read a job or batch',
    description: "A job's or a batch's current state: its status, its result links (valid 24 hours), an annonce's listing text, a failure's cause.",
    inputSchema: { id: ID },
    annotations: { readOnlyHint: true, openWorldHint: false },
    executer: async ({ id }, extra) =>
      appel(async () => {
        const etat = await lireOuDireEfface(id, extra.signal);
        return reponseEtat(decrire(etat), etat, extra.signal, true);
      }),
  });
