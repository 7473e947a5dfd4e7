/**
 * The fault campaign at scale: many jobs on the real state machine and the local stand-ins, faults at
 * every step and a stack restart midway, then the sweeper; prints jobs, faults and the drift of the
 * money invariant (which must be 0). The same campaign, smaller, runs in npm test.
 *
 *   npm run bench:pannes                      # seed 1, 10 accounts × 12 requests, 10 % faults
 *   npx tsx bench/pannes.ts --graine 7 --comptes 20 --requetes 20 --probabilite 0.2
 */
import { parseArgs } from 'node:util';

// Before the handlers' modules load: their logger reads the level once. Faults log by design.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const { demarrerDynamo } = await import('../local/dynamodb');
const { lancerCampagne, resumer } = await import('../test/support/campagne');

const { values } = parseArgs({
  options: {
    graine: { type: 'string', default: '1' },
    campagnes: { type: 'string', default: '3' },
    comptes: { type: 'string', default: '10' },
    requetes: { type: 'string', default: '12' },
    probabilite: { type: 'string', default: '0.1' },
  },
});

const dynamo = await demarrerDynamo();
let derive = 0;
try {
  for (let i = 0; i < Number(values.campagnes); i++) {
    const bilan = await lancerCampagne({
      graine: Number(values.graine) + i,
      comptes: Number(values.comptes),
      requetesParCompte: Number(values.requetes),
      probabilite: Number(values.probabilite),
      dynamoEndpoint: dynamo.endpoint,
    });
    derive += bilan.ecarts.derive;
    console.log(`${resumer(bilan)}\n`);
  }
} finally {
  await dynamo.arreter();
}
console.log(derive === 0 ? 'invariant held in every campaign (drift = 0)' : `DRIFT ${derive}: the invariant is broken`);
process.exit(derive === 0 ? 0 : 1);
