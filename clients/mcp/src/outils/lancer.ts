/**
 * The `lancer` tool: starts a job or a batch. On stdio it reads the user's files (the SDK uploads them); the
 * remote server cannot, and says how to upload them with `televerser` instead.
 */
import { stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import * as z from 'zod/mini';
import { OUTILS, type Image, type Retouche } from '../../../sdk/src/index';
import type { ContexteOutils } from './contexte';
import { definirOutil, type OptionsServeurMcp, type OutilMcp } from './definition';
import { erreur, reponse } from './reponses';

/** What `images` takes: files too on stdio; over HTTP, URLs, and the way to upload files. */
const descriptionImages = (options: OptionsServeurMcp): string =>
  options.fichiersLocaux
    ? `The photos: paths of image files on this computer (JPEG, PNG or WebP, up to 15 MB each; a relative path is read from this server's working directory, ${options.dossier ?? 'where it was started'}), or https URLs of photos. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for \`annonce\`; 2 to 9 exposures of one view for \`fusion\` (one job merges them).`
    : 'The photos: https URLs of images (JPEG, PNG or WebP, up to 15 MB each) the service can fetch. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for `annonce`; 2 to 9 exposures of one view for `fusion` (one job merges them). This remote server cannot read files on your computer: upload them with `televerser` and give their ids in `televersements`, or use the local server (`npx retouche mcp`).';

export const lancer = ({ retouche, options, appel }: ContexteOutils): OutilMcp =>
  definirOutil({
    nom: 'lancer',
    title: 'Start a job',
    description:
      'Starts a Retouche job and debits its credits (see `outils` for costs): one job per photo for an image tool, several photos making a batch; one job for `annonce`, and for `fusion` (bracketed exposures of one view merged into one photo). ' +
      'Answers at once with the job or batch id; then call `attendre` with it. A job that fails is refunded by itself.',
    inputSchema: {
      outil: z.string().check(z.describe(`The tool id, from \`outils\`: ${OUTILS.slice(0, -1).join(', ')} or ${OUTILS.at(-1)}.`)),
      images: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(50))).check(z.describe(descriptionImages(options))),
      televersements: z
        .optional(z.array(z.uuid()).check(z.maxLength(50)))
        .check(
          z.describe(
            'Ids of uploads made with `televerser` whose files were PUT, within 30 minutes of `televerser`: each is a photo, after those of `images`.',
          ),
        ),
      reglages: z
        .optional(z.record(z.string(), z.string()))
        .check(
          z.describe(
            'The tool\'s settings by name, as `outils` lists them, e.g. {"style": "Scandinavian"} for staging, {"lieu": "Lyon 6e", "langue": "English"} for annonce.',
          ),
        ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    executer: async ({ outil, images, televersements, reglages }, extra) =>
      appel(async () => {
        let photos: Image[] | undefined = images;
        if (!options.fichiersLocaux) {
          const locale = (images ?? []).find((image) => !/^https:\/\//i.test(image));
          if (locale !== undefined)
            return erreur(
              `Not an https URL: ${locale}. This remote server cannot read files on your computer: call televerser to get an upload URL for each file, PUT the files there, then call lancer with their ids in televersements; or use the local server (npx retouche mcp), which uploads files.`,
            );
        } else if (images) {
          const lues = await cheminsLocaux(images, options.dossier ?? process.cwd());
          if (typeof lues === 'string') return erreur(lues);
          photos = lues;
        }
        if (televersements?.length) photos = [...(photos ?? []), ...televersements.map((televersement) => ({ televersement }))];
        const demande = { outil, ...(reglages && Object.keys(reglages).length ? { valeurs: reglages } : {}), ...(photos ? { images: photos } : {}) };
        const lancement = await retouche.lancer(demande as Parameters<Retouche['lancer']>[0], { signal: extra.signal });
        const id = lancement.lot ?? lancement.travaux[0]?.id;
        const lignes = [
          lancement.lot
            ? `Started batch ${lancement.lot} (${lancement.outil}): ${lancement.travaux.length} jobs, ${lancement.cout_total} credits.`
            : `Started job ${id} (${lancement.outil}) for ${lancement.cout_total} credits.`,
          ...lancement.echecs.map((e) => `Photo ${e.index + 1} was not started, and not charged: ${e.code}: ${e.message}`),
          id ? `Call attendre with id ${id} for its results.` : 'No job was started.',
        ];
        return reponse(lignes.join('\n'), lancement);
      }),
  });

/**
 * The photos of `lancer` on stdio: each path resolved against the server's working directory and found,
 * or the text of a tool error that names the missing file as it was given and as it was looked for.
 */
const cheminsLocaux = async (images: string[], dossier: string): Promise<Image[] | string> => {
  const photos: Image[] = [];
  for (const image of images) {
    // URLs (https, file: and any other scheme) are the SDK's to read or refuse.
    if (/^[a-z][a-z\d+.-]*:/i.test(image) && !/^[a-z]:[\\/]/i.test(image)) {
      photos.push(image);
      continue;
    }
    const chemin = isAbsolute(image) ? image : resolve(dossier, image);
    const fichier = await stat(chemin).catch(() => undefined);
    if (!fichier?.isFile()) {
      const ou = isAbsolute(image) ? '' : ` (a relative path, read from this server's working directory ${dossier})`;
      return `File not found: ${image}${ou}: there is no file at ${chemin}${fichier ? ' (it is a folder)' : ''}. Give the photo's absolute path, or an https URL. Nothing was sent or charged.`;
    }
    photos.push({ chemin, nom: basename(chemin) });
  }
  return photos;
};
