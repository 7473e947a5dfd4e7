/**
 * The end of `lancer --attendre` and of `suivre`: the wait with its progress, then each ended job's result
 * files written beside each other, named after its input, and the exit status.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { estLot, type Lot, type Retouche, type Travail } from '../../sdk/src/index';
import { SORTIE, type Contexte, type OptionsAttente } from './contexte';
import { Progres } from './progres';

/** The wait with its progress, then the result files; returns the exit status. */
export const attendreEtEcrire = async (ctx: Contexte, retouche: Retouche, connu: Travail | Lot, options: OptionsAttente): Promise<number> => {
  const { flux, signal, json, message } = ctx;
  const progres = new Progres(flux.stderr);
  // From here a Ctrl-C names the id to pick up again.
  ctx.enCours = connu.id;
  let fin: Travail | Lot;
  try {
    fin = await retouche.attendre(connu as Lot, {
      signal,
      surEtat: (etat) => (estLot(etat) ? progres.lot(etat) : progres.travail(etat)),
    });
  } finally {
    progres.arreter();
  }
  const travaux = estLot(fin) ? fin.travaux : [fin];
  await mkdir(options.sortie, { recursive: true });
  const pris = new Set<string>();
  let echecs = 0;
  for (const t of travaux) {
    if (t.statut !== 'termine') {
      echecs++;
      // The API's messages end with their own full stop.
      const cause = (t.erreur ? `${t.erreur.code}: ${t.erreur.message}` : t.statut).replace(/\.?$/, '.');
      message(`Job ${t.id}${t.nom ? ` (${t.nom})` : ''} failed: ${cause}${t.rembourse ? ` Its ${t.cout} credits were refunded.` : ''}`);
      continue;
    }
    // A preview is said beside its file, so that nobody takes it for the production engine's work.
    for (const chemin of await ecrireResultats(retouche, t, options.sortie, pris, signal)) message(`Saved ${chemin}${t.apercu ? APERCU : ''}`);
  }
  if (options.json) json(fin);
  return echecs ? SORTIE.echec : SORTIE.ok;
};

/**
 * The files of a job written into `dossier`, named after its input: facade.jpg gives facade-ciel.jpg;
 * an annonce gives a .md file with its text. `pris` keeps two inputs of the same name from overwriting
 * each other within a batch.
 */
const ecrireResultats = async (retouche: Retouche, travail: Travail, dossier: string, pris: Set<string>, signal: AbortSignal): Promise<string[]> => {
  const nom = travail.nom ? basename(nomDeLien(travail.nom)) : '';
  const ext = extname(nom);
  const racine = (nom ? nom.slice(0, nom.length - ext.length) : '') || travail.id.slice(0, 8);
  const unique = (fichier: string) => {
    let candidat = fichier;
    for (let n = 2; pris.has(candidat); n++) candidat = fichier.replace(/(\.[^.]*)?$/, `-${n}$1`);
    pris.add(candidat);
    return join(dossier, candidat);
  };
  if (travail.outil === 'annonce') {
    // Without a photo there is no input to name it after: plain annonce.md.
    const chemin = unique(travail.nom ? `${racine}-annonce.md` : 'annonce.md');
    await writeFile(chemin, travail.texte ?? '');
    return [chemin];
  }
  const ecrits: string[] = [];
  for (const [index, lien] of travail.resultats.entries()) {
    // The result's own extension (its link's path) wins: a tool may deliver another format than the input's.
    const extResultat = extname(new URL(lien.url).pathname) || ext || '.jpg';
    const suffixe = travail.resultats.length > 1 ? `-${index + 1}` : '';
    const chemin = unique(`${racine}-${travail.outil}${suffixe}${extResultat}`);
    ecrits.push(await retouche.telechargerResultat(travail, { index, vers: chemin, signal }));
  }
  return ecrits;
};

/** A job named by a URL keeps the URL's last segment. */
const nomDeLien = (nom: string) => {
  try {
    return /^[a-z]+:\/\//i.test(nom) ? decodeURIComponent(new URL(nom).pathname) : nom;
  } catch {
    return nom;
  }
};

/** What a preview's result line adds (the image itself carries the mark: docs/engines.md). */
const APERCU = ' (preview engine, no trained model: marked "Preview")';
