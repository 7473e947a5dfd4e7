/** The `solde` tool: the account's balance. */
import type { ContexteOutils } from './contexte';
import { definirOutil, type OutilMcp } from './definition';
import { reponse } from './reponses';

export const solde = ({ retouche, appel }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'solde',
    title: 'Read the balance',
    description: "The account's balance in credits.",
    annotations: { readOnlyHint: true, openWorldHint: false },
    executer: async (_args, extra) =>
      appel(async () => {
        const solde = await retouche.solde({ signal: extra.signal });
        return reponse(`${solde.credits} credits.`, solde);
      }),
  });
