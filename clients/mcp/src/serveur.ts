/**
 * Retouche as an MCP server: the tools an AI assistant calls to list the tools, read the balance, start
 * a job on photos, read it, wait for it and erase it. One definition for both transports — stdio on the
 * user's machine (`npx retouche mcp`, clients/cli) and Streamable HTTP on the stage (`/api/v1/mcp`,
 * lambda.ts) — on the TypeScript SDK, which calls the public API with the user's key and says
 * `Retouche-Source: mcp`, so that the jobs say where they come from and cost what they cost elsewhere.
 *
 * Answers are a short text an assistant can read out (ids, states, links, the listing text), with the
 * API's object itself as `structuredContent`. An API error is a tool error carrying the API's code and
 * message, which already say what to change.
 *
 * The tools alone, without the MCP SDK (issue 40): the official SDK's server serves them
 * (serveur-sdk.ts), and the stage's function answers the usual messages with them directly (http.ts),
 * so that its cold start does not load the SDK. Their input schemas are zod's `mini` build, imported as a
 * namespace, which the SDK reads as any zod 4 schema and of which a bundle keeps only the parts used
 * (`import { z } from 'zod'` kept the whole of zod, its error messages in 60-odd languages included: 450 KB).
 *
 * This module is their list and the server's identity; each tool is a module of outils/ (what they share:
 * definition.ts, contexte.ts, reponses.ts, descriptions.ts).
 */
import { attendre } from './outils/attendre';
import { contexteOutils } from './outils/contexte';
import type { OptionsServeurMcp, OutilMcp } from './outils/definition';
import { effacer } from './outils/effacer';
import { lancer } from './outils/lancer';
import { lire } from './outils/lire';
import { outils } from './outils/outils';
import { solde } from './outils/solde';
import { televerser } from './outils/televerser';
import { travaux } from './outils/travaux';

export type { ContexteAppel, FormeEntree, LecteurImage, OptionsServeurMcp, OutilMcp } from './outils/definition';
export { DELAI_IMAGES_MS, IMAGE_OCTETS_MAX, IMAGES_OCTETS_MAX_REPONSE } from './outils/reponses';
export { lecteurImages } from './lecteur-images';

/** The name assistants show for the server, and its version: the API's, whose tools it offers. */
export const NOM_SERVEUR = 'retouche';
export const VERSION_SERVEUR = '1.0.0';
export const TITRE_SERVEUR = 'Retouche';
export const INSTRUCTIONS =
  'Retouche retouches property photographs and writes listing texts, for credits. Call `outils` first to learn the tools, their costs and settings; ' +
  '`lancer` starts a job (or a batch, one job per photo) and answers at once; `attendre` waits for it and gives the result links (valid 24 hours) ' +
  'or the listing text. A failed job is refunded by itself. Tell the user what a job will cost before starting it.';

/** The tools, in the order assistants list them. */
export const outilsMcp = (options: OptionsServeurMcp): OutilMcp[] => {
  const contexte = contexteOutils(options);
  return [outils, solde, travaux, lancer, televerser, lire, attendre, effacer].map((outil) => outil(contexte));
};
