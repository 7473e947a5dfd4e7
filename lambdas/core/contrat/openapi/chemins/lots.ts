/** The batches in the OpenAPI document: GET and DELETE /lots/{id}. */
import { ErreurApi } from '../../../modele/erreurs';
import { erreur, idChemin, json, limite, nonAutorise } from '../commun';
import { effacementTravail, exempleErreur, ID_LOT, ID_TRAVAIL, lotTermine } from '../exemples';

const introuvable = () => ({ introuvable: exempleErreur(new ErreurApi('not_found', `No batch ${ID_LOT}.`)) });

export const cheminLot = () => ({
  get: {
    operationId: 'lireLot',
    summary: 'One batch',
    parameters: [idChemin('batch')],
    responses: {
      200: json('Lot', 'The batch.', { termine: { value: lotTermine } }),
      401: nonAutorise,
      404: erreur('Not found.', introuvable()),
      429: limite,
    },
  },
  delete: {
    operationId: 'effacerLot',
    summary: 'Erase an ended batch (extension)',
    description:
      'Erases every job of the batch (inputs, uploads, results, records), its ZIP and its record. Credits do not change. A batch not yet ended answers 409 and is erased as soon as it ends.',
    parameters: [idChemin('batch')],
    responses: {
      200: json('Effacement', 'What was erased.', {
        efface: { value: { ...effacementTravail, travaux: [ID_TRAVAIL], lots: [ID_LOT], zips_refaits: [], fichiers: 3 } },
      }),
      401: nonAutorise,
      404: erreur('Not found (or already erased).', introuvable()),
      409: erreur('Not ended yet: erased as soon as it ends.', {
        programme: exempleErreur(
          new ErreurApi(
            'still_running',
            `The batch ${ID_LOT} cannot be erased yet (some of its jobs have not ended); its erasure is recorded and done as soon as it has ended, within a few minutes of its end. Poll it until it answers 404.`,
            { effacement: 'programme' },
          ),
        ),
      }),
      429: limite,
    },
  },
});
