/** The sweeper's part of erasure: a request recorded while its work ran, done once that work has ended. */
import * as effacements from '../../depots/effacements';
import * as lots from '../../depots/lots';
import { lire as lireTravail } from '../../depots/travaux';
import type { EnregistrementLot, EnregistrementTravail } from '../../modele/enregistrements';
import type { DepsEffacement, Issue } from './commun';
import { effacerLotEnregistre } from './lot';
import { effacerTravailEnregistre } from './travail';

/**
 * The sweeper's part: an erasure recorded earlier, done once its work has ended. `demande_le`: when it was
 * asked, so the sweeper can tell one that waits longer than the work it waits for may last.
 */
export const traiterDemandeEffacement = async (d: DepsEffacement, id: string): Promise<Issue & { demande_le?: string }> => {
  const demande = await effacements.lire(d, id);
  if (!demande) return { statut: 'absent' };
  const cible = demande.quoi === 'lot' ? await lots.lire(d, id) : await lireTravail(d, id);
  const issue: Issue = !cible
    ? { statut: 'absent' }
    : demande.quoi === 'lot'
      ? await effacerLotEnregistre(d, cible as EnregistrementLot)
      : await effacerTravailEnregistre(d, cible as EnregistrementTravail);
  if (issue.statut === 'absent') await effacements.supprimer(d, id);
  return { ...issue, demande_le: demande.demande_le };
};
