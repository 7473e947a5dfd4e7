/** `retouche lancer <outil> [images...]`: starts a job or a batch, and with --attendre waits for it and writes its results. */
import { InvalidArgumentError, type Command } from 'commander';
import { OUTILS, type DemandeLancement, type DetailProgression, type Lancement, type Lot, type Travail } from '../../../sdk/src/index';
import { ErreurUsage, SORTIE, type Contexte, type OptionsAttente, type OptionsGlobales } from '../contexte';
import { Progres } from '../progres';
import { attendreEtEcrire } from '../resultats';

export const lancer = (programme: Command, ctx: Contexte): void => {
  const { flux, signal, client, json, message } = ctx;
  programme
    .command('lancer')
    .description('start a job, or a batch for several images of an image tool (files, or https URLs); fusion merges its 2 to 9 photos into one job')
    .argument('<outil>', `the tool: ${OUTILS.join(', ')}`)
    .argument('[images...]', 'photos: file paths or https URLs (optional for annonce; for fusion, 2 to 9 exposures of one view)')
    .option('--reglage <nom=valeur>', 'a setting of the tool, e.g. style=japandi (repeatable)', reglage, {} as Record<string, string>)
    .option('--attendre', 'wait for the end, with progress on stderr, and write the results')
    .option('--sortie <dossier>', 'where results are written (with --attendre)', '.')
    .option('--json', 'print the final job or batch (or the launch, without --attendre) as JSON on stdout')
    .action(async (outil: string, images: string[], options: OptionsAttente & { reglage: Record<string, string>; attendre?: boolean }, commande: Command) => {
      const retouche = client(commande.optsWithGlobals<OptionsGlobales>());
      const demande = {
        outil,
        ...(Object.keys(options.reglage).length ? { valeurs: options.reglage } : {}),
        ...(images.length || outil !== 'annonce' ? { images } : {}),
      } as unknown as DemandeLancement;
      const progres = new Progres(flux.stderr);
      let lancement: Lancement;
      try {
        lancement = await retouche.lancer(demande, {
          signal,
          ...(options.attendre ? { progression: (envoye: number, total: number, detail: DetailProgression) => progres.octets(envoye, total, detail) } : {}),
        });
      } finally {
        progres.arreter();
      }
      for (const echec of lancement.echecs) message(`Image ${echec.index} was not started (not charged): ${echec.code}: ${echec.message}`);
      const id = lancement.lot ?? lancement.travaux[0]?.id;
      if (id === undefined) throw new ErreurUsage('The API started no job.');
      ctx.enCours = id;
      message(`Started ${lancement.lot ? `batch ${id} (${lancement.travaux.length} jobs)` : `job ${id}`} for ${lancement.cout_total} credits.`);
      if (!options.attendre) {
        if (options.json) json(lancement);
        else flux.stdout.write(`${id}\n`);
        message(`Follow it with: retouche suivre ${id}`);
        ctx.statut = lancement.echecs.length ? SORTIE.echec : SORTIE.ok;
        return;
      }
      const connu: Travail | Lot = lancement.lot ? await retouche.lot(lancement.lot, { signal }) : lancement.travaux[0]!;
      ctx.statut = await attendreEtEcrire(ctx, retouche, connu, options);
      if (lancement.echecs.length) ctx.statut = SORTIE.echec;
    });
};

/** `--reglage nom=valeur`, repeatable: gathered into the request's `valeurs`. */
const reglage = (valeur: string, avant: Record<string, string>) => {
  const egal = valeur.indexOf('=');
  if (egal <= 0) throw new InvalidArgumentError('nom=valeur is expected, e.g. langue=English.');
  return { ...avant, [valeur.slice(0, egal)]: valeur.slice(egal + 1) };
};
