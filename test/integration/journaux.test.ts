/**
 * What the logs may hold (issue "Personal data in photos"): job ids, error codes, counts — never an
 * API key, image bytes, a listing text or a customer's URL (which may carry its own token). Every
 * line the functions write at the most verbose level is captured while the local stack runs the
 * paths that log: a job that ends well, a listing, a URL refused by the fetcher, an upload refused.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journal } from '../../lambdas/core/journal';
import type { Lancement } from '../../lambdas/core/modele';
import { appeler, attendreTravail, enBase64 } from '../support/client';
import { demarrerPileTest } from '../support/pile';

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
const lignes: string[] = [];
const ecritures = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };

beforeAll(async () => {
  pile = await demarrerPileTest();
  journal.setLogLevel('DEBUG');
  for (const flux of ['stdout', 'stderr'] as const) {
    process[flux].write = ((morceau: string | Uint8Array, ...reste: unknown[]) => {
      lignes.push(String(morceau));
      return (ecritures[flux] as (...a: unknown[]) => boolean)(morceau, ...reste);
    }) as typeof process.stdout.write;
  }
});

afterAll(async () => {
  process.stdout.write = ecritures.stdout;
  process.stderr.write = ecritures.stderr;
  journal.setLogLevel('SILENT');
  await pile?.arreter();
});

describe('logs hold no personal data', () => {
  it('no API key, image bytes, listing text or customer URL in any line, while the paths that log are run', async () => {
    const { cle } = await pile.creerCompte(40);
    const url = pile.urlBase;
    // A photo with enough detail that a piece of its base64 could not appear by chance.
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg().toBuffer();
    const base64 = enBase64(photo);
    const texte = 'Maison Zyxwv-4417 au calme, vue sur le canal';
    const jeton = 'tok_Q9vX31mZpLr';

    const ciel = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64, nom: 'famille-dupont.jpg' }] } });
    const annonce = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'annonce', valeurs: { lieu: 'Gent', infos: texte } } });
    // Refused by the fetcher (a private address): the job ends in echec, logged as a job error.
    const refusee = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ url: `https://127.0.0.1/photo.jpg?token=${jeton}` }] },
    });
    for (const l of [ciel, annonce, refusee]) expect(l.statut).toBe(202);
    const fins = await Promise.all([ciel, annonce, refusee].map((l) => attendreTravail(url, cle, l.corps.travaux[0]!.id)));
    expect(fins.map((t) => t.statut)).toEqual(['termine', 'termine', 'echec']);
    expect(fins[1]!.texte).toContain('Zyxwv-4417');
    // A refused body and an unknown key: the API's own refusals.
    expect((await appeler(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: 'pas une image' }] } })).statut).toBe(422);
    expect((await appeler(url, 'GET', '/solde', { cle: `${cle}x` })).statut).toBe(401);
    await pile.attendreInactivite();

    const tout = lignes.join('');
    // The capture works and the failure path logged, with its message: otherwise this test could not fail.
    expect(tout).toContain('url_refusee');
    expect(tout).toContain('an address that is not allowed');
    expect(tout).not.toContain('reserved key');
    expect(tout).not.toContain(cle);
    expect(tout).not.toContain(cle.slice(5, 25));
    expect(tout).not.toContain(texte);
    expect(tout).not.toContain('Zyxwv-4417');
    expect(tout).not.toContain(jeton);
    expect(tout).not.toContain('famille-dupont');
    for (let i = 0; i + 40 <= base64.length; i += 200) expect(tout).not.toContain(base64.slice(i, i + 40));

    // Nor does the executions' state: Step Functions keeps every state's input and output 90 days after
    // the end, where no erasure reaches. The final output holds all that the steps added to the state.
    const etats = [...pile.stepFunctions.executions.values()].map((e) => JSON.stringify([e.entree, e.sortie]));
    expect(etats.length).toBeGreaterThanOrEqual(3);
    expect(etats.join('')).toContain('url_refusee');
    for (const interdit of ['Zyxwv-4417', 'famille-dupont', jeton, 'Gent']) expect(etats.join(''), interdit).not.toContain(interdit);
  });
});
