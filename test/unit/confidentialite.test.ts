/**
 * docs/privacy.md says how long everything is kept: its table is read here and compared with the
 * durations the code and the template are built from (lambdas/core/modele/retention.ts), so the page cannot
 * promise what the stack does not do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARGE_RETRAIT_MS } from '../../lambdas/core/domaine/televersements';
import { describe, expect, it } from 'vitest';
import {
  CONSERVATION_FENETRE_CADENCE_SECONDES,
  CONSERVATION_IDEMPOTENCE_HEURES,
  CONSERVATION_JOURNAUX_JOURS,
  HISTORIQUE_EXECUTIONS_JOURS,
  NETTOYAGE_ENVOIS_INCOMPLETS_JOURS,
  RETENTION_ENTREES_JOURS,
  RETENTION_RESULTATS_JOURS,
  RETENTION_TELEVERSEMENTS_JOURS,
  SAUVEGARDES_TABLE_JOURS,
  UTILISATION_TELEVERSEMENT_MINUTES,
  VALIDITE_URL_TELEVERSEMENT_SECONDES,
} from '../../lambdas/core/modele/retention';
import { RETENTION_SECONDES, JOURS } from '../../lambdas/core/depots/table';
import { DUREE_IDEMPOTENCE_SECONDES } from '../../lambdas/core/depots/idempotence';
import { RETENTION_LIVRAISONS_JOURS } from '../../lambdas/core/modele/webhooks';

const page = readFileSync(join(__dirname, '../../docs/privacy.md'), 'utf8');

const tableau = (): Map<string, string> => {
  const bloc = /<!-- conservation:debut -->([\s\S]*?)<!-- conservation:fin -->/.exec(page)?.[1];
  if (!bloc) throw new Error('docs/privacy.md has no table between <!-- conservation:debut --> and <!-- conservation:fin -->');
  const rangees = bloc
    .trim()
    .split('\n')
    .slice(2)
    .map((ligne) =>
      ligne
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  return new Map(rangees.map(([quoi, duree]) => [quoi!, duree!]));
};

describe('docs/privacy.md', () => {
  it('gives, for everything kept, the duration the code keeps it', () => {
    const attendu: Record<string, string> = {
      'Input photos': `${RETENTION_ENTREES_JOURS} days`,
      'Uploads never used': `${UTILISATION_TELEVERSEMENT_MINUTES} minutes after they were announced, then removed by the sweeper within ${MARGE_RETRAIT_MS / 60_000 + 1} minutes`,
      'Uploads used by a job': `${RETENTION_TELEVERSEMENTS_JOURS} day`,
      'Upload URLs': `${VALIDITE_URL_TELEVERSEMENT_SECONDES / 60} minutes to send the file; the upload then starts a job within ${UTILISATION_TELEVERSEMENT_MINUTES} minutes of its announcement`,
      'Results and batch ZIPs': `${RETENTION_RESULTATS_JOURS} days`,
      'Job and batch records': `${RETENTION_SECONDES / JOURS} days`,
      'Stored answers (`Idempotency-Key`)': `${DUREE_IDEMPOTENCE_SECONDES / 3600} hours`,
      'Rate windows': `${CONSERVATION_FENETRE_CADENCE_SECONDES} seconds`,
      'Unfinished ZIP uploads': `${NETTOYAGE_ENVOIS_INCOMPLETS_JOURS} day`,
      Logs: `${CONSERVATION_JOURNAUX_JOURS.autres} days (${CONSERVATION_JOURNAUX_JOURS.production} days on a production stage)`,
      'Table backups (point-in-time recovery)': `${SAUVEGARDES_TABLE_JOURS} days`,
      'Execution history': `${HISTORIQUE_EXECUTIONS_JOURS} days after the job's end (AWS's figure)`,
      // No TTL on them (lambdas/core/depots/apports.ts).
      'Credits added (purchases)': 'as long as the account: they are its record of what it paid for',
      'Webhook endpoints': "until removed (`DELETE /webhooks/{id}`, which takes its deliveries too) or the account's work is erased",
      'Webhook deliveries': `${RETENTION_LIVRAISONS_JOURS} days after the event`,
    };
    expect(Object.fromEntries(tableau())).toEqual(attendu);
    expect(CONSERVATION_IDEMPOTENCE_HEURES * 3600).toBe(DUREE_IDEMPOTENCE_SECONDES);
  });

  it('names the ways to erase that exist', () => {
    for (const moyen of ['DELETE /travaux/{id}', 'DELETE /lots/{id}', 'erase-account --account']) expect(page).toContain(moyen);
  });
});
