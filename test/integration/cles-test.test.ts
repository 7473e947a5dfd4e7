/**
 * Test keys (issue 27, point 2) on the local stack: a key `rtch_test_…` of an account starts jobs that
 * cost nothing, always run the local preview engine (the stack's own engine here refuses every job, as
 * a production model out of quota would), carry `test: true`, and live apart: a live key neither lists
 * nor reads them, and the reverse. The pending limit holds for them on its own count, and the rate limit
 * as for any key; an Idempotency-Key is never replayed across the two.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerCle, PREFIXE_CLE_TEST } from '../../lambdas/core/domaine/comptes';
import { cleItem as cleCompte } from '../../lambdas/core/depots/comptes';
import { ErreurTravail } from '../../lambdas/core/modele/erreurs';
import type { Moteur } from '../../lambdas/moteurs/commun/moteur';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
import { verifierInvariant } from '../support/invariant';
import { horlogeTenable } from '../support/horloge';
import { demarrerPileTest } from '../support/pile';

/** The stack's engine: refuses everything, so a job that ends `termine` can only have run the preview engine. */
const moteurRefusant: Moteur = {
  nom: 'bedrock',
  retoucher: async () => {
    throw new ErreurTravail('moteur_indisponible', 'the production engine is out of quota (test double)');
  },
  rediger: async () => {
    throw new ErreurTravail('moteur_indisponible', 'the production engine is out of quota (test double)');
  },
};

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
let compte: string;
let live: string;
let test: string;
/** The stack's clock, held still while the rate is counted. */
const { horloge, dansUneMinute } = horlogeTenable();

beforeAll(async () => {
  pile = await demarrerPileTest({ moteur: moteurRefusant, horloge });
  ({ compte, cle: live } = await pile.creerCompte(10));
  test = (await creerCle(pile.deps, compte, { test: true })).cle;
});
afterAll(async () => pile?.arreter());

/** The account's count of pending test jobs, set as if that many were running. */
const fixerTestEnAttente = (n: number) =>
  pile.deps.ddb.send(
    new UpdateCommand({
      TableName: pile.deps.table,
      Key: cleCompte(compte),
      UpdateExpression: 'SET en_attente_test = :n',
      ExpressionAttributeValues: { ':n': n },
    }),
  );

const images = async (...graines: number[]) => Promise.all(graines.map(async (g) => ({ base64: enBase64(await imageTest(g)) })));

describe('test keys', () => {
  it('start free jobs on the preview engine, marked test, that only test keys see', async () => {
    expect(test.startsWith(PREFIXE_CLE_TEST)).toBe(true);
    const lancement = await appeler(pile.urlBase, 'POST', '/travaux', { cle: test, json: { outil: 'ciel', images: await images(1, 2) } });
    expect(lancement.statut).toBe(202);
    expect(lancement.corps).toMatchObject({ cout_total: 0 });
    expect(lancement.corps.travaux.map((t: { test?: boolean; cout: number }) => [t.test, t.cout])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    const lot = await attendreLot(pile.urlBase, test, lancement.corps.lot);
    expect(lot).toMatchObject({ statut: 'termine', termines: 2, test: true });
    expect(lot.zip).not.toBeNull();
    // The result was made by the preview engine, and says so.
    const resultat = Buffer.from(await (await fetch(lot.travaux[0]!.resultats[0]!.url)).arrayBuffer());
    expect(resultat.toString('latin1')).toContain('local preview');
    const annonce = await appeler(pile.urlBase, 'POST', '/travaux', { cle: test, json: { outil: 'annonce', valeurs: { lieu: 'Gent' } } });
    expect((await attendreTravail(pile.urlBase, test, annonce.corps.travaux[0].id)).statut).toBe('termine');

    // A live job on the same account runs the stack's engine: refused, and refunded.
    const vivant = await appeler(pile.urlBase, 'POST', '/travaux', { cle: live, json: { outil: 'ciel', images: await images(3) } });
    const fini = await attendreTravail(pile.urlBase, live, vivant.corps.travaux[0].id);
    expect(fini).toMatchObject({ statut: 'echec', rembourse: true, erreur: { code: 'moteur_indisponible' } });
    expect(fini.test).toBe(false);
    for (const cle of [live, test]) expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits).toBe(10);

    // Apart: each kind of key lists and reads only its own.
    const ids = async (cle: string) => (await appeler(pile.urlBase, 'GET', '/travaux?limite=100', { cle })).corps.travaux.map((t: { id: string }) => t.id);
    const testIds = [...lancement.corps.travaux.map((t: { id: string }) => t.id), annonce.corps.travaux[0].id];
    expect((await ids(test)).sort()).toEqual([...testIds].sort());
    expect(await ids(live)).toEqual([vivant.corps.travaux[0].id]);
    expect((await appeler(pile.urlBase, 'GET', '/travaux?outil=ciel', { cle: live })).corps.travaux).toHaveLength(1);
    expect((await appeler(pile.urlBase, 'GET', '/travaux?outil=ciel', { cle: test })).corps.travaux).toHaveLength(2);
    for (const [cle, chemin] of [
      [live, `/travaux/${testIds[0]}`],
      [live, `/lots/${lancement.corps.lot}`],
      [test, `/travaux/${vivant.corps.travaux[0].id}`],
      [live, `/travaux/${testIds[2]}`],
    ] as const) {
      const r = await appeler(pile.urlBase, 'GET', chemin, { cle });
      expect([r.statut, r.corps.error.code], chemin).toEqual([404, 'not_found']);
    }
    expect((await appeler(pile.urlBase, 'DELETE', `/travaux/${testIds[2]}`, { cle: live })).statut).toBe(404);
    expect((await appeler(pile.urlBase, 'DELETE', `/travaux/${testIds[2]}`, { cle: test })).statut).toBe(200);
    expect(await verifierInvariant(pile.deps, [{ compte, accordes: 10 }])).toMatchObject({ derive: 0 });
  });

  it('meet the pending limit on their own count, the rate limit as any key, and never replay a live request', async () => {
    // 50 test jobs pending: a test request is refused, a live one is not.
    await fixerTestEnAttente(50);
    const refus = await appeler(pile.urlBase, 'POST', '/travaux', { cle: test, json: { outil: 'ciel', images: await images(4) } });
    expect([refus.statut, refus.corps.error.code]).toEqual([429, 'too_many_pending_jobs']);
    const vivant = await appeler(pile.urlBase, 'POST', '/travaux', { cle: live, json: { outil: 'ciel', images: await images(5) } });
    expect(vivant.statut).toBe(202);
    await attendreTravail(pile.urlBase, live, vivant.corps.travaux[0].id);
    await fixerTestEnAttente(0);

    // The same Idempotency-Key and body, live then test: the test request is refused, not answered with the live jobs.
    const corps = { outil: 'ciel', images: await images(6) };
    const premier = await appeler(pile.urlBase, 'POST', '/travaux', { cle: live, json: corps, entetes: { 'Idempotency-Key': 'commande-42' } });
    expect(premier.statut).toBe(202);
    const rejoue = await appeler(pile.urlBase, 'POST', '/travaux', { cle: test, json: corps, entetes: { 'Idempotency-Key': 'commande-42' } });
    expect([rejoue.statut, rejoue.corps.error?.code]).toEqual([422, 'idempotency_key_reused']);
    await attendreTravail(pile.urlBase, live, premier.corps.travaux[0].id);

    // 120 requests a minute per key, test keys included.
    const statuts: number[] = [];
    await dansUneMinute(async () => {
      for (let i = 0; i < 125 && !statuts.includes(429); i++) statuts.push((await appeler(pile.urlBase, 'GET', '/solde', { cle: test })).statut);
    });
    expect(statuts.at(-1)).toBe(429);
    expect(statuts.length).toBeLessThanOrEqual(121);
    await pile.attendreInactivite();
    expect(await verifierInvariant(pile.deps, [{ compte, accordes: 10 }])).toMatchObject({ derive: 0 });
  });
});
