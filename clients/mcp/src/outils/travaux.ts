/** The `travaux` tool: the latest jobs, each ended one's result files as links (no inline image: a list can be long). */
import * as z from 'zod/mini';
import type { Travail } from '../../../sdk/src/index';
import type { ContexteOutils } from './contexte';
import { definirOutil, type OutilMcp } from './definition';
import { decrireTravail } from './descriptions';
import { contenusResultats, reponse } from './reponses';

export const travaux = ({ retouche, appel }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'travaux',
    title: 'List recent jobs',
    description: "The account's latest jobs, newest first, with their states and result links.",
    inputSchema: {
      limite: z.optional(z.int().check(z.minimum(1), z.maximum(100))).check(z.describe('How many, 1 to 100 (default 20).')),
      outil: z.optional(z.string()).check(z.describe('Only the jobs of this tool (an id from `outils`).')),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    executer: async ({ limite, outil }, extra) =>
      appel(async () => {
        const parametres = { ...(limite === undefined ? {} : { limite }), ...(outil === undefined ? {} : { outil: outil as Travail['outil'] }) };
        const travaux = await retouche.travaux(parametres, { signal: extra.signal });
        return reponse(
          travaux.length ? travaux.map((t) => decrireTravail(t)).join('\n\n') : 'No job yet.',
          { travaux },
          await contenusResultats(travaux, undefined, undefined, extra.signal),
        );
      }),
  });
