/**
 * Light and sky on the seven synthetic scenes of test/support/scenes-lumiere.ts: per scene, the
 * luminance outside the (true) sky before and after the shared light correction (mean, median,
 * clipped highlights L ≥ 250 and shadows L ≤ 5, in %), and the sky detector's precision and recall
 * against the scene's known sky. Run: npm run bench:lumiere
 */
import { masqueBinaire, trouverCiel } from '../lambdas/moteurs/commun/ciel-masque';
import { equilibrerLumiere } from '../lambdas/moteurs/commun/redressement';
import { mesurerLumiere, precisionRappel, scenesLumiere, verite } from '../test/support/scenes-lumiere';

const f = (v: number, n = 2) => v.toFixed(n);
console.log('| Scene | Mean before → after | Median before → after | Clipped high % | Clipped low % | Sky precision | Sky recall |');
console.log('|---|---|---|---|---|---|---|');
for (const s of scenesLumiere()) {
  const vrai = verite(s, 'ciel');
  const hors = Uint8Array.from(vrai, (v) => 1 - v);
  const [avant, apres] = [mesurerLumiere(s.pixels, hors), mesurerLumiere(await equilibrerLumiere(s.pixels), hors)];
  const masque = masqueBinaire((await trouverCiel(s.pixels)).alpha);
  const aCiel = vrai.some((v) => v);
  const { precision, rappel } = precisionRappel(masque, vrai);
  const faux = masque.reduce((a, b) => a + b, 0);
  console.log(
    `| ${s.nom} (${s.description}) | ${f(avant.moyenne)} → ${f(apres.moyenne)} | ${f(avant.mediane)} → ${f(apres.mediane)} | ` +
      `${f(avant.hautes)} → ${f(apres.hautes)} | ${f(avant.basses)} → ${f(apres.basses)} | ` +
      (aCiel ? `${f(precision, 3)} | ${f(rappel, 3)} |` : `no sky; ${faux} px found | — |`),
  );
}
