/** Erasing an ended batch and all its jobs, the batch claimed first (commun.ts says the order). */
import { cleZip } from '../../modele/cles-s3';
import * as effacements from '../../depots/effacements';
import * as idempotence from '../../depots/idempotence';
import * as lots from '../../depots/lots';
import { ecrire, raisonsAnnulation } from '../../depots/transactions';
import { elementEffacerFini as elementEffacerTravailFini, lirePlusieurs as lireTravaux } from '../../depots/travaux';
import type { EnregistrementLot } from '../../modele/enregistrements';
import { parPaquets } from '../../infra/paquets';
import { demanderEffacement, elementsLies, ESSAIS_EFFACEMENT, fichiersDuTravail, patienter, type DepsEffacement, type Issue } from './commun';

/**
 * Erases an ended batch and all its jobs. The eraser claims the batch first, as a ZIP writer would,
 * so no ZIP can be written from jobs being erased; the batch record goes last.
 */
export const effacerLotEnregistre = async (d: DepsEffacement, lot: EnregistrementLot): Promise<Issue> => {
  await demanderEffacement(d, 'lot', lot.id, lot.compte);
  if (lot.statut === 'en_cours') return { statut: 'differe', raison: 'some of its jobs have not ended' };
  const maintenant = d.horloge();
  let actuel: EnregistrementLot;
  for (let essai = 0; ; essai++) {
    const prise = await lots.reclamerPourEffacer(d, lot.id, lots.effaceur(lot.id), d.horloge().getTime());
    if (!prise) return { statut: 'absent' };
    if ('lot' in prise) {
      // As it is now: erasures of its jobs may have taken some out.
      actuel = prise.lot;
      break;
    }
    // An erasure of one of its jobs holds it for milliseconds; a ZIP writer for longer.
    if (!lots.estEffaceur(prise.tenu_par) || essai >= ESSAIS_EFFACEMENT) {
      return { statut: 'differe', raison: lots.estEffaceur(prise.tenu_par) ? 'erasures of its jobs are under way' : 'its ZIP is being written' };
    }
    await patienter(essai);
  }
  const travaux = (await lireTravaux(d, actuel.travaux)).sort((a, b) => a.index - b.index);
  const parTravail = travaux.map((t) => fichiersDuTravail(t));
  await d.objets.supprimer([...new Set([...parTravail.flatMap((f) => f.tous), cleZip(lot.compte, lot.id)])]);
  // Every job of a batch came from one request: one Idempotency-Key.
  for (const cle of new Set(travaux.flatMap((t) => (t.idempotence !== undefined ? [t.idempotence] : []))))
    await idempotence.marquerEfface(d, lot.compte, cle, maintenant);
  await parPaquets(travaux, 8, async (t) => {
    // Only while the job is there (every job of an ended batch has ended): its anonymous movements are
    // written with its deletion, once, even when another erasure of it ran meanwhile.
    try {
      await ecrire(d, [elementEffacerTravailFini(d.table, t.id), ...elementsLies(d, t, maintenant)]);
    } catch (erreur) {
      if (raisonsAnnulation(erreur)?.[0]?.Code !== 'ConditionalCheckFailed') throw erreur;
    }
  });
  try {
    await ecrire(d, [lots.elementEffacer(d.table, lot.id, lots.effaceur(lot.id)), effacements.elementSupprimer(d.table, lot.id)]);
  } catch (erreur) {
    // Another eraser took the batch over (ours was slow past the claim) and finished it.
    if (!raisonsAnnulation(erreur)) throw erreur;
    return { statut: 'absent' };
  }
  return {
    statut: 'efface',
    effacement: {
      efface_le: maintenant.toISOString(),
      travaux: travaux.map((t) => t.id),
      lots: [lot.id],
      zips_refaits: [],
      fichiers: parTravail.reduce((n, f) => n + f.enregistres.length, 0) + (lot.zip_cle ? 1 : 0),
    },
  };
};
