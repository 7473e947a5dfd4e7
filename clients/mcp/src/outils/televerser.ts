/**
 * The `televerser` tool: upload URLs for the photos a remote server cannot read, which the assistant PUTs
 * itself before naming their ids to `lancer`.
 */
import * as z from 'zod/mini';
import type { ContexteOutils } from './contexte';
import { definirOutil, type OutilMcp } from './definition';
import { reponse } from './reponses';

/** What `televerser` announces at once, and the size of each file (the API's limits). */
const TELEVERSEMENTS_MAX = 50;
const TAILLE_FICHIER_MAX = 15 * 1024 * 1024;

export const televerser = ({ retouche, appel }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'televerser',
    title: 'Get upload URLs for photos',
    description:
      'For photos on the user\'s computer that this server cannot read (the remote server): announces the files (type and exact size in bytes, up to 15 MB each) and gives, for each, an upload id and a URL to PUT the file to within 15 minutes, with the headers given (e.g. curl -X PUT --upload-file photo.jpg -H "Content-Type: image/jpeg" "<url>"). ' +
      'Then call `lancer` with the ids in `televersements`, within 30 minutes. Free, but it needs a balance that pays for a job; an upload no job uses is deleted.',
    inputSchema: {
      fichiers: z
        .array(
          z.object({
            nom: z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(z.describe("The file's name, which the job and its result take.")),
            type: z.enum(['image/jpeg', 'image/png', 'image/webp']).check(z.describe("The file's type, by its content.")),
            taille: z.int().check(z.minimum(1), z.maximum(TAILLE_FICHIER_MAX), z.describe("The file's exact size in bytes.")),
          }),
        )
        .check(z.minLength(1), z.maxLength(TELEVERSEMENTS_MAX), z.describe('The files to upload, 1 to 50.')),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    executer: async ({ fichiers }, extra) =>
      appel(async () => {
        const televersements = await retouche.televersements(fichiers, { signal: extra.signal });
        const lignes = televersements.map((t, i) => {
          const entetes = Object.entries(t.entetes)
            .map(([nom, valeur]) => `-H '${nom}: ${valeur}'`)
            .join(' ');
          return `${i + 1}. ${fichiers[i]?.nom ?? `file ${i + 1}`}: upload ${t.id}. PUT the file (exactly ${fichiers[i]?.taille} bytes) before ${t.expire_le}: curl -X PUT --upload-file <file> ${entetes} '${t.url}'`;
        });
        const ids = televersements.map((t) => t.id);
        return reponse(
          [...lignes, `Then call lancer with televersements ${JSON.stringify(ids)} before ${televersements[0]?.utilisable_jusqua ?? 'they expire'}.`].join(
            '\n',
          ),
          { televersements },
        );
      }),
  });
