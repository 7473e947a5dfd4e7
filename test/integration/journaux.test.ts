/**
 * What the logs may hold (issue "Personal data in photos"): job ids, error codes, counts — never an
 * API key, image bytes, a listing text or a customer's URL (which may carry its own token). Every
 * line the functions write at the most verbose level is captured while the local stack runs the
 * paths that log: a job that ends well, a listing, a URL refused by the fetcher, an upload refused.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journal } from '../../lambdas/core/infra/journal';
import type { Lancement } from '../../lambdas/core/modele/enregistrements';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { cleItem as cleTravail, lire as lireEnregistrementTravail } from '../../lambdas/core/depots/travaux';
import { creer as creerOutil } from '../../lambdas/pipeline/outil';
import { etape } from '../../lambdas/pipeline/etape';
import { AGE_MINIMUM_LOCAL_MS } from '../../local/pile';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
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
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .jpeg()
      .toBuffer();
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

  it('nor on the error paths: a ZIP that fails on a missing result, an S3 error in a step, a DynamoDB error that carries the record (issue 21, point 7)', async () => {
    const { cle, compte } = await pile.creerCompte(40);
    const url = pile.urlBase;
    const debut = lignes.length;
    const images = await Promise.all([1, 2, 3].map(async (n) => ({ base64: enBase64(await imageTest(n)), nom: `famille-martin-${n}.jpg` })));
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
    const lot = await attendreLot(url, cle, lance.corps.lot!);
    const [a, b] = lot.travaux.map((t) => t.id) as [string, string];
    const enregistrementB = (await lireEnregistrementTravail(pile.deps, b))!;

    // The ZIP written again after an erasure meets a result that is gone: S3 answers NoSuchKey with its key.
    expect((await appeler(url, 'DELETE', `/travaux/${a}`, { cle })).statut).toBe(200);
    await pile.deps.s3.send(new DeleteObjectCommand({ Bucket: pile.deps.bucket, Key: enregistrementB.resultats[0]!.cle }));
    await new Promise((r) => setTimeout(r, AGE_MINIMUM_LOCAL_MS + 200));
    await pile.balayer();

    // A step that reads a missing object, named after the photo (S3 error), through the steps' own wrapper.
    const outil = creerOutil(async () => pile.deps);
    const etat = { travail: b, compte, lot: lot.id, outil: 'ciel' as const, preparation: { entrees: [`resultats/${compte}/${b}/famille-martin-absente.jpg`] } };
    await expect(outil(etat, {} as Context)).rejects.toThrow();

    // A DynamoDB error that carries the record its condition failed on (ReturnValuesOnConditionCheckFailure).
    const essai = etape(
      async () => pile.deps,
      'essai',
      async () =>
        pile.deps.ddb.send(
          new UpdateCommand({
            TableName: pile.deps.table,
            Key: cleTravail(b),
            UpdateExpression: 'SET essai = :un',
            ConditionExpression: 'statut = :jamais',
            ExpressionAttributeValues: { ':un': 1, ':jamais': 'jamais' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
    );
    await expect(essai(etat, {} as Context)).rejects.toThrow();
    await pile.attendreInactivite();

    const tout = lignes.slice(debut).join('');
    // Each path logged, with what went wrong: otherwise this test could not fail.
    expect(tout).toContain('NoSuchKey');
    expect(tout).toContain('sweeper: could not finish an item');
    expect(tout).toContain('outil: unexpected error');
    expect(tout).toContain('ConditionalCheckFailed');
    expect(tout).toContain('"Key":"[redacted]"');
    expect(tout).toContain('"Item":"[redacted]"');
    expect(tout).not.toContain('famille-martin');
    expect(tout).not.toContain(`${compte}/${b}`);
  });
});
