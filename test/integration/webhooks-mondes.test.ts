/**
 * Webhooks and test keys (issue 38, point 1), on the local stack: a test key sees and touches only test
 * endpoints, which receive only test work's events; a live key, a web session or the operator see only
 * live endpoints, which never receive test work. Each kind is a 404 to the other, as jobs are. Every event
 * says which kind of work it is about, `"test": false` included.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerCle } from '../../lambdas/core/domaine/comptes';
import { appeler, attendreTravail, enBase64, imageTest } from '../support/client';
import { demarrerPileTest } from '../support/pile';
import { attendre, demarrerRecepteur, type Recepteur, type Recu } from '../support/recepteur';

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
let recepteur: Recepteur;
let compte: string;
let live: string;
let test: string;

beforeAll(async () => {
  recepteur = await demarrerRecepteur();
  pile = await demarrerPileTest({ webhooks: { boucleLocale: true, calendrierSecondes: [0.2] } });
  ({ compte, cle: live } = await pile.creerCompte(20));
  test = (await creerCle(pile.deps, compte, { test: true })).cle;
});
afterAll(async () => {
  await pile?.arreter();
  await recepteur?.arreter();
});

type Cree = { id: string; secret: string; test: boolean };
const creer = async (cle: string, chemin: string): Promise<Cree> => {
  const r = await appeler(pile.urlBase, 'POST', '/webhooks', { cle, json: { url: recepteur.url(chemin), evenements: ['travail.fini', 'lot.fini'] } });
  expect(r.statut, JSON.stringify(r.corps)).toBe(201);
  return r.corps as Cree;
};

const evenement = (secret: string, r: Recu) =>
  new Webhook(secret).verify(r.corps, {
    'webhook-id': String(r.entetes['webhook-id']),
    'webhook-timestamp': String(r.entetes['webhook-timestamp']),
    'webhook-signature': String(r.entetes['webhook-signature']),
  }) as { type: string; data: Record<string, unknown> };

describe('webhooks of test keys and of live work, apart', () => {
  let vivant: Cree;
  let essai: Cree;

  beforeAll(async () => {
    vivant = await creer(live, '/vivant');
    essai = await creer(test, '/essai');
  });

  it('each kind lists and manages only its own endpoints; the other is a 404', async () => {
    expect(vivant.test).toBe(false);
    expect(essai.test).toBe(true);
    const ids = async (cle: string) => ((await appeler(pile.urlBase, 'GET', '/webhooks', { cle })).corps.webhooks as { id: string }[]).map((w) => w.id);
    expect(await ids(live)).toEqual([vivant.id]);
    expect(await ids(test)).toEqual([essai.id]);

    // Every route on the other kind's endpoint: as if it did not exist, and nothing changed.
    for (const [cle, autre] of [
      [test, vivant],
      [live, essai],
    ] as const) {
      for (const [methode, chemin] of [
        ['GET', `/webhooks/${autre.id}/livraisons`],
        ['POST', `/webhooks/${autre.id}/secret`],
        ['POST', `/webhooks/${autre.id}/test`],
        ['POST', `/webhooks/${autre.id}/livraisons/msg_aaaaaaaaaaaaaaaaaaaaaaaaaa/renvoyer`],
        ['DELETE', `/webhooks/${autre.id}`],
      ] as const) {
        const r = await appeler(pile.urlBase, methode, chemin, { cle });
        expect(r.statut, `${methode} ${chemin}`).toBe(404);
        expect(r.corps.error.code).toBe('not_found');
      }
    }
    expect(await ids(live)).toEqual([vivant.id]);
    expect(await ids(test)).toEqual([essai.id]);
    // The rotation was refused: the live endpoint's secret still signs alone (checked by the deliveries below).
  });

  it('live work is announced to live endpoints only, with "test": false; test work to test endpoints only', async () => {
    const avant = { vivant: recepteur.de('/vivant').length, essai: recepteur.de('/essai').length };
    const travailLive = await appeler(pile.urlBase, 'POST', '/travaux', {
      cle: live,
      json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] },
    });
    const travailTest = await appeler(pile.urlBase, 'POST', '/travaux', {
      cle: test,
      json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(2)) }] },
    });
    const idLive = travailLive.corps.travaux[0].id as string;
    const idTest = travailTest.corps.travaux[0].id as string;
    expect((await attendreTravail(pile.urlBase, live, idLive)).test).toBe(false);
    expect((await attendreTravail(pile.urlBase, test, idTest)).test).toBe(true);

    const recuVivant = await attendre('the live delivery', () => recepteur.de('/vivant').length > avant.vivant && recepteur.de('/vivant'));
    const recuEssai = await attendre('the test delivery', () => recepteur.de('/essai').length > avant.essai && recepteur.de('/essai'));
    // A while longer: nothing crosses over.
    await new Promise((r) => setTimeout(r, 1500));
    const aVivant = recepteur
      .de('/vivant')
      .slice(avant.vivant)
      .map((r) => evenement(vivant.secret, r));
    const aEssai = recepteur
      .de('/essai')
      .slice(avant.essai)
      .map((r) => evenement(essai.secret, r));
    expect(aVivant.map((e) => [e.type, e.data.id, e.data.test])).toEqual([['travail.fini', idLive, false]]);
    expect(aEssai.map((e) => [e.type, e.data.id, e.data.test])).toEqual([['travail.fini', idTest, true]]);
    expect(recuVivant.length + recuEssai.length).toBe(avant.vivant + avant.essai + 2);
  });

  it('a test event says which kind of endpoint it reached', async () => {
    for (const [cle, point, chemin] of [
      [live, vivant, '/vivant'],
      [test, essai, '/essai'],
    ] as const) {
      const avant = recepteur.de(chemin).length;
      expect((await appeler(pile.urlBase, 'POST', `/webhooks/${point.id}/test`, { cle })).statut).toBe(202);
      const recus = await attendre('the test event', () => recepteur.de(chemin).length > avant && recepteur.de(chemin));
      expect(evenement(point.secret, recus.at(-1)!)).toMatchObject({ type: 'webhook.test', data: { webhook: point.id, test: point.test } });
    }
  });

  it('test endpoints have their own cap: a test key cannot fill the live places', async () => {
    const { compte: autre, cle: cleLive } = await pile.creerCompte(0);
    const cleTest = (await creerCle(pile.deps, autre, { test: true })).cle;
    for (let i = 0; i < 3; i++) await creer(cleTest, `/cap-${i}`);
    const quatrieme = await appeler(pile.urlBase, 'POST', '/webhooks', { cle: cleTest, json: { url: recepteur.url('/cap-4'), evenements: ['travail.fini'] } });
    expect(quatrieme.statut).toBe(409);
    expect(quatrieme.corps.error).toMatchObject({ code: 'too_many_webhooks', message: expect.stringContaining('3 test webhooks') });
    // The live places are all still there.
    for (let i = 0; i < 10; i++) await creer(cleLive, `/vif-${i}`);
    expect((await appeler(pile.urlBase, 'POST', '/webhooks', { cle: cleLive, json: { url: recepteur.url('/vif-11'), evenements: ['lot.fini'] } })).statut).toBe(
      409,
    );
    expect(compte).not.toBe(autre);
  });
});
