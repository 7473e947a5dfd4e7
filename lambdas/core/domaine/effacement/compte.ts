/** Erasing all of an account's work (the admin CLI's `erase-account`): batches, jobs, uploads, webhooks, stray files. */
import { prefixesDuCompte } from '../../modele/cles-s3';
import * as lots from '../../depots/lots';
import * as creneaux from '../../depots/creneaux';
import * as webhooks from '../../depots/webhooks';
import { duCompte as televersementsDuCompte } from '../../depots/televersements';
import { ecrire } from '../../depots/transactions';
import { duCompte as travauxDuCompte } from '../../depots/travaux';
import type { EnregistrementTravail } from '../../modele/enregistrements';
import { parPaquets } from '../../infra/paquets';
import { elementTeleversementEfface, retirerTeleversement } from '../televersements';
import { fichiersDuTravail, type DepsEffacement, type Issue } from './commun';
import { effacerLotEnregistre } from './lot';
import { effacerTravailEnregistre } from './travail';
import { supprimerLivraisons } from '../webhooks/points';

export interface EffacementCompte {
  compte: string;
  efface_le: string;
  travaux: number;
  lots: number;
  televersements: number;
  /** Webhook endpoints removed, with their deliveries (their URLs may name a person or a customer's system). */
  webhooks: number;
  fichiers: number;
  /** Jobs and batches still running: recorded, erased by the sweeper when they end. */
  differes: string[];
}

/**
 * All of an account's work (the admin CLI): its batches, its jobs, its uploads, used or not, and,
 * when the caller may list the bucket (`lister`: an operator's credentials; the API's roles may not),
 * any file left under the account's prefixes. Work still running is recorded for the sweeper and its
 * files are left to it.
 */
export const effacerCompte = async (d: DepsEffacement, compte: string, lister?: (prefixe: string) => Promise<string[]>): Promise<EffacementCompte> => {
  const bilan: EffacementCompte = {
    compte,
    efface_le: d.horloge().toISOString(),
    travaux: 0,
    lots: 0,
    televersements: 0,
    webhooks: 0,
    fichiers: 0,
    differes: [],
  };
  const travaux = await travauxDuCompte(d, compte);
  // What work still running needs: its files, named or under its job's or batch's id.
  const retenus = new Set<string>();
  const proteges = new Set<string>();
  const compter = (issue: Issue, id: string, garder: EnregistrementTravail[]) => {
    if (issue.statut === 'efface') {
      bilan.travaux += issue.effacement.travaux.length;
      bilan.lots += issue.effacement.lots.length;
      bilan.fichiers += issue.effacement.fichiers;
    } else if (issue.statut === 'differe') {
      // Recorded by the erasure itself: the sweeper does it once the work has ended.
      bilan.differes.push(id);
      proteges.add(id);
      for (const t of garder) {
        proteges.add(t.id);
        for (const cle of fichiersDuTravail(t).tous) retenus.add(cle);
      }
    }
  };
  for (const lotId of new Set(travaux.flatMap((t) => (t.lot ? [t.lot] : [])))) {
    const lot = await lots.lire(d, lotId);
    if (!lot) continue;
    compter(
      await effacerLotEnregistre(d, lot),
      lotId,
      travaux.filter((t) => t.lot === lotId),
    );
  }
  for (const t of travaux.filter((t) => !t.lot)) compter(await effacerTravailEnregistre(d, t), t.id, [t]);

  // Uploads no running job uses: unused ones uncounted from the account; every object goes now, and a
  // record whose URL may still put a file stays, nameless, until the sweeper removes that too.
  const televersements = await televersementsDuCompte(d, compte);
  const libres = televersements.filter((t) => !retenus.has(t.cle));
  await parPaquets(libres, 8, async (t) => {
    if ((await retirerTeleversement(d, t.id, { effacer: true })) === 'utilise') {
      // Its job is gone already (an erasure before this record was a tombstone): the same end.
      await ecrire(d, [elementTeleversementEfface(d.table, compte, t.id, t.cree_le, d.horloge())]);
      await retirerTeleversement(d, t.id);
    }
  });
  bilan.televersements = libres.length;

  for (const w of await webhooks.lister(d, compte)) {
    await webhooks.supprimer(d, w);
    await supprimerLivraisons(d, w.id);
    bilan.webhooks++;
  }
  // Deliveries whose endpoint went before without them (a removal cut short, a job's end racing it): found by account.
  await parPaquets(await webhooks.livraisonsDuCompte(d, compte), 8, (l) => webhooks.supprimerLivraison(d, l).then(() => undefined));
  // Its places in flight name it too (an attempt running now gives its place back to nothing: harmless).
  await creneaux.effacer(d, compte);

  if (lister) {
    const protege = (cle: string) => retenus.has(cle) || [...proteges].some((id) => cle.includes(`/${id}`));
    for (const prefixe of prefixesDuCompte(compte)) {
      const restes = (await lister(prefixe)).filter((cle) => !protege(cle));
      await d.objets.supprimer(restes);
      bilan.fichiers += restes.length;
    }
  }
  return bilan;
};
