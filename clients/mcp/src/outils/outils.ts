/** The `outils` tool: the stage's catalogue, the one call answered without a key (GET /outils is public). */
import type { ContexteOutils } from './contexte';
import { definirOutil, type OutilMcp } from './definition';
import { decrireOutil } from './descriptions';
import { appelApi, reponse } from './reponses';

export const outils = ({ retouche, options }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'outils',
    title: 'List the tools',
    description:
      "The tools this Retouche stage offers: each one's id, what it does, its cost in credits per job, the photos it takes and its settings (name, whether required, allowed values, default); and whether the stage runs the preview engine.",
    annotations: { readOnlyHint: true, openWorldHint: false },
    executer: async (_args, extra) =>
      // Public: answered even without a key, which it then says how to set.
      appelApi(async () => {
        const catalogue = await retouche.catalogue({ signal: extra.signal });
        const apercu = catalogue.apercu
          ? [
              'This stage runs the preview engine: a stand-in without a trained model, for trying the service; its results are marked "Preview" and are not production quality.' +
                (catalogue.outils.some((o) => o.id === 'fusion') ? ' Except fusion, which no model makes: its results are the real ones, unmarked.' : ''),
            ]
          : [];
        const sansCle = options.cleManquante === undefined ? [] : [options.cleManquante];
        return reponse([...apercu, ...catalogue.outils.map(decrireOutil), ...sansCle].join('\n\n'), catalogue);
      }),
  });
