/**
 * How long an erasure takes on the local stack: a 50-job batch (its inputs, results, ZIP and records) by
 * DELETE /lots/{id}, then single jobs by DELETE /travaux/{id}, each timed from the request to the answer,
 * with the number of S3 deletes it sent (the keys are known from the records: the bucket is never listed).
 * The local S3 and DynamoDB are slower per request than AWS's; the count of requests is what carries over.
 *
 *   npm run bench:effacement
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const { demarrerPile } = await import('../local/pile');
const { creerCompte } = await import('../lambdas/core/domaine/comptes');
const { fichiersDuTravail } = await import('../lambdas/core/domaine/effacement/commun');
const { lire: lireEnregistrementTravail } = await import('../lambdas/core/depots/travaux');
const { appeler, attendreLot, enBase64, imageTest } = await import('../test/support/client');

const dossier = mkdtempSync(join(tmpdir(), 'retouche-bench-effacement-'));
const pile = await demarrerPile({ port: 0, dossier, table: `bench-${randomUUID()}`, intervalleBalayageMs: 0 });
const url = pile.urlBase.replace('localhost', '127.0.0.1');
try {
  const { cle } = await creerCompte(pile.deps, 1000);
  const images = await Promise.all(Array.from({ length: 50 }, async (_, i) => ({ base64: enBase64(await imageTest((i % 9) + 1)), nom: `piece-${i}.jpg` })));
  const lance = await appeler(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
  const lot = await attendreLot(url, cle, lance.corps.lot, 300_000);
  const suppressions =
    (await Promise.all(lot.travaux.map(async (t) => fichiersDuTravail((await lireEnregistrementTravail(pile.deps, t.id))!).tous.length))).reduce(
      (a, b) => a + b,
      0,
    ) + 1;

  const debut = performance.now();
  const reponse = await appeler(url, 'DELETE', `/lots/${lot.id}`, { cle });
  const ms = performance.now() - debut;
  console.log(
    `DELETE /lots/{id}, 50 jobs: ${reponse.statut} in ${ms.toFixed(0)} ms — ${reponse.corps.fichiers} files recorded, ${suppressions} S3 deletes sent, 51 records + stored answers`,
  );

  const durees: number[] = [];
  for (let i = 0; i < 10; i++) {
    const seul = await appeler(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] } });
    const id = seul.corps.travaux[0].id as string;
    while ((await appeler(url, 'GET', `/travaux/${id}`, { cle })).corps.statut !== 'termine') await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    const r = await appeler(url, 'DELETE', `/travaux/${id}`, { cle });
    if (r.statut !== 200) throw new Error(`DELETE answered ${r.statut}`);
    durees.push(performance.now() - t0);
  }
  durees.sort((a, b) => a - b);
  console.log(`DELETE /travaux/{id}, one job (10 runs): median ${durees[5]!.toFixed(0)} ms, max ${durees[9]!.toFixed(0)} ms`);
} finally {
  await pile.attendreInactivite();
  await pile.arreter();
  rmSync(dossier, { recursive: true, force: true });
}
