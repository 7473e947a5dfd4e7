/**
 * The structure check (lambdas/moteurs/structure.ts) on the synthetic rooms and house fronts of
 * test/support/scenes-structure.ts: per case, score / rappel (avant's edges found in the result) /
 * precision (the result's edges that were in avant) and the edge pixels compared, against
 * SEUIL_STRUCTURE; then the region cases; then the time of one call on two 12 MP photos (median of 5).
 * Run: npm run bench:structure
 */
import { mesurerStructure, SEUIL_STRUCTURE } from '../lambdas/moteurs/commun/structure';
import { casLimites, casRegion, casStructure, decaler, dessinerPiece, jpeg, type CasStructure } from '../test/support/scenes-structure';

const f = (v: number) => v.toFixed(3);
console.log(`Threshold SEUIL_STRUCTURE = ${SEUIL_STRUCTURE}\n`);
const tableau = async (titre: string, cas: CasStructure[], attendu: string) => {
  console.log(`${titre}\n`);
  console.log(`| Case | Result | ${attendu} | Score | Rappel | Precision | Edge px | Verdict |`);
  console.log('|---|---|---|---|---|---|---|---|');
  for (const c of cas) {
    const m = await mesurerStructure(c.avant, c.apres, c.region);
    const passe = m.score >= SEUIL_STRUCTURE;
    console.log(
      `| ${c.nom} | ${c.description}${c.region ? '' : ' (whole frame)'} | ${c.fidele ? 'pass' : 'fail'} | ${f(m.score)} | ${f(m.rappel)} | ${f(m.precision)} | ${m.aretes} | ${passe ? 'pass' : 'fail'}${passe === c.fidele ? '' : ' ✗'} |`,
    );
  }
  console.log('');
};
await tableau('Held by test/unit/structure.test.ts (1200 × 800)', [...(await casStructure()), ...(await casRegion())], 'Must');
await tableau('Beyond the tests: measured, not asserted', await casLimites(), 'Should');

// Two 12 MP photos (4 000 × 3 000): the room and its JPEG re-encode, drawn at full size.
const avant = dessinerPiece({}, 4000, 3000);
const apres = decaler(await jpeg(avant, 80), 1, 0);
const temps: number[] = [];
for (let i = 0; i < 6; i++) {
  const t0 = performance.now();
  await mesurerStructure(avant, apres, null);
  if (i > 0) temps.push(performance.now() - t0); // the first call warms sharp up
}
temps.sort((a, b) => a - b);
const m = await mesurerStructure(avant, apres, null);
console.log(
  `\n12 MP (4000 × 3000), JPEG 80 and 1 px shift: score ${f(m.score)}; one call, median of 5: ${temps[2]!.toFixed(0)} ms (min ${temps[0]!.toFixed(0)}, max ${temps[4]!.toFixed(0)})`,
);
