/** Erasing one ended job, alone or out of its batch, under the batch's claim (commun.ts says the order). */
import { cleZip } from '../../modele/cles-s3';
import * as idempotence from '../../depots/idempotence';
import * as lots from '../../depots/lots';
import { ecrire, raisonsAnnulation, type ElementTransaction } from '../../depots/transactions';
import { elementEffacerFini as elementEffacerTravailFini } from '../../depots/travaux';
import type { EnregistrementTravail } from '../../modele/enregistrements';
import { demanderEffacement, elementsLies, estOuvert, ESSAIS_EFFACEMENT, fichiersDuTravail, patienter, type DepsEffacement, type Issue } from './commun';

/**
 * Erases one ended job. In a batch, the job leaves the batch in the same transaction (its counters
 * drop by one) that releases the batch's claim, taken before any file went. An ended batch's ZIP is
 * deleted and written again without the job by the sweeper; a batch left with no job is erased with it.
 */
export const effacerTravailEnregistre = async (d: DepsEffacement, travail: EnregistrementTravail): Promise<Issue> => {
  await demanderEffacement(d, 'travail', travail.id, travail.compte);
  if (estOuvert(travail)) return { statut: 'differe', raison: 'it has not ended' };
  const fichiers = fichiersDuTravail(travail);
  const moi = lots.effaceur(travail.id);
  for (let essai = 0; essai < ESSAIS_EFFACEMENT; essai++) {
    const maintenant = d.horloge();
    let lot = travail.lot ? await lots.lire(d, travail.lot) : undefined;
    if (lot && lot.travaux.includes(travail.id)) {
      const prise = await lots.reclamerPourEffacer(d, lot.id, moi, d.horloge().getTime());
      if (!prise) {
        lot = undefined; // the batch was erased meanwhile: the job goes alone (or is gone too)
      } else if ('tenu_par' in prise) {
        if (!lots.estEffaceur(prise.tenu_par)) return { statut: 'differe', raison: `the ZIP of its batch ${travail.lot} is being written` };
        await patienter(essai);
        continue;
      } else {
        lot = prise.lot;
      }
    }
    const position = lot ? lot.travaux.indexOf(travail.id) : -1;
    const dernier = lot !== undefined && position >= 0 && lot.travaux.length === 1;
    const zip = lot && (lot.statut !== 'en_cours' || dernier) ? [cleZip(lot.compte, lot.id)] : [];
    await d.objets.supprimer([...fichiers.tous, ...zip]);
    if (travail.idempotence !== undefined) await idempotence.marquerEfface(d, travail.compte, travail.idempotence, maintenant);

    const items: ElementTransaction[] = [elementEffacerTravailFini(d.table, travail.id), ...elementsLies(d, travail, maintenant)];
    // The batch's item holds only while this erasure holds its claim (a ZIP writer that took it over is
    // writing from its list) and its list is as read (depots/lots.ts); it releases the claim.
    if (lot && position >= 0) {
      const garde = { id: travail.id, taille: lot.travaux.length, qui: moi };
      items.push(
        dernier
          ? lots.elementEffacerAvecDernier(d.table, lot.id, garde)
          : lots.elementRetirerTravail(d.table, lot, { ...garde, position, termine: travail.statut === 'termine', maintenant }),
      );
    }
    try {
      await ecrire(d, items);
    } catch (erreur) {
      const raisons = raisonsAnnulation(erreur);
      if (!raisons) throw erreur;
      // The job is gone: another erasure did it. The batch moved under us (another job erased, its
      // claim released by another eraser or taken over by a ZIP writer): read it again.
      if (raisons[0]?.Code === 'ConditionalCheckFailed') return { statut: 'absent' };
      if (raisons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ConditionalCheckFailed')) continue;
      throw erreur;
    }
    return {
      statut: 'efface',
      effacement: {
        efface_le: maintenant.toISOString(),
        travaux: [travail.id],
        lots: dernier && lot ? [lot.id] : [],
        zips_refaits: lot && !dernier && position >= 0 && lot.statut !== 'en_cours' ? [lot.id] : [],
        fichiers: fichiers.enregistres.length + (lot?.zip_cle ? 1 : 0),
      },
    };
  }
  return { statut: 'differe', raison: `other erasures of its batch ${travail.lot} are under way` };
};
