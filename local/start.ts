/**
 * `npm start`: the whole service on this machine, data kept under RETOUCHE_DATA_DIR between runs.
 *   PORT (3000), RETOUCHE_DATA_DIR (.retouche/), RETOUCHE_LOCAL_DELAY_MS (0): simulated model time per job.
 */
import { resolve } from 'node:path';
import { demarrerPile } from './pile';

const port = Number(process.env.PORT ?? 3000);
const dossier = resolve(process.env.RETOUCHE_DATA_DIR ?? '.retouche');
const delai = Number(process.env.RETOUCHE_LOCAL_DELAY_MS ?? 0);
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';

const pile = await demarrerPile({ port, dossier, delaiMoteurMs: delai });

console.log(`Retouche is running on ${pile.urlBase}  (data: ${dossier})

  Create an account and its first API key, in another terminal, from this folder:
    npm run --silent admin -- create-account --credits 100
  then for example:
    curl ${pile.urlBase}/outils
    curl -H "Authorization: Bearer <key>" ${pile.urlBase}/solde

Ctrl-C stops everything.`);

let arret = false;
const arreter = async () => {
  if (arret) return;
  arret = true;
  console.log('\nStopping…');
  await pile.arreter();
  process.exit(0);
};
process.on('SIGINT', arreter);
process.on('SIGTERM', arreter);
