/**
 * Webhooks end to end on the local stack (issue 27): a receiver on 127.0.0.1 (the stack started with
 * the loopback allowance, as only tests do) verifies every delivery with the Standard Webhooks
 * library; it sees each event exactly once when it answers 200, the same `webhook-id` again after a
 * 500, the delivery `en_echec` and its endpoint failing once the schedule (shortened here) is used up,
 * and a resend. The pipeline delivers, not the request; the log tells attempts and outcomes.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerPosteur } from '../../lambdas/core/infra/envoi-webhook';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
import { demarrerPileTest } from '../support/pile';
import { attendre, demarrerRecepteur, type Recepteur, type Recu } from '../support/recepteur';

type Livraison = {
  id: string;
  type: string;
  statut: string;
  tentatives: number;
  travail: string | null;
  lot: string | null;
  prochaine_tentative: string | null;
};

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
let recepteur: Recepteur;
let cle: string;

beforeAll(async () => {
  recepteur = await demarrerRecepteur();
  // Four attempts in all, a few hundred milliseconds apart (Standard Webhooks' 5 s, 5 min, … on a stage).
  pile = await demarrerPileTest({ webhooks: { boucleLocale: true, calendrierSecondes: [0.2, 0.3, 0.4] } });
  ({ cle } = await pile.creerCompte(100));
});
afterAll(async () => {
  await pile?.arreter();
  await recepteur?.arreter();
});

const creerWebhook = async (chemin: string, evenements = ['travail.fini', 'lot.fini'], avec = cle) => {
  const r = await appeler(pile.urlBase, 'POST', '/webhooks', { cle: avec, json: { url: recepteur.url(chemin), evenements } });
  expect(r.statut, JSON.stringify(r.corps)).toBe(201);
  return r.corps as { id: string; secret: string; url: string; evenements: string[]; etat: string };
};

const verifier = (secret: string, r: Recu) =>
  new Webhook(secret).verify(r.corps, {
    'webhook-id': String(r.entetes['webhook-id']),
    'webhook-timestamp': String(r.entetes['webhook-timestamp']),
    'webhook-signature': String(r.entetes['webhook-signature']),
  }) as { type: string; timestamp: string; data: Record<string, any> };

const journal = async (id: string): Promise<Livraison[]> => {
  const r = await appeler(pile.urlBase, 'GET', `/webhooks/${id}/livraisons`, { cle });
  expect(r.statut).toBe(200);
  return (r.corps as { livraisons: Livraison[] }).livraisons;
};

describe('webhooks', () => {
  it('delivers travail.fini and lot.fini once each, signed, with the job and batch as GET answers them', async () => {
    const w = await creerWebhook('/tout');
    expect(w).toMatchObject({ url: recepteur.url('/tout'), evenements: ['travail.fini', 'lot.fini'], etat: 'actif' });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const liste = await appeler(pile.urlBase, 'GET', '/webhooks', { cle });
    // The account's other tests add endpoints of their own: this one is read among them, whatever the order.
    expect(liste.corps.webhooks.filter((x: { id: string }) => x.id === w.id)).toEqual([
      { id: w.id, url: w.url, evenements: w.evenements, etat: 'actif', cree_le: expect.any(String), test: false },
    ]);

    const r = await appeler(pile.urlBase, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }, { base64: enBase64(await imageTest(2)) }] },
    });
    expect(r.statut).toBe(202);
    // Nothing is delivered by the request itself.
    expect(recepteur.recus.filter((x) => x.chemin === '/tout')).toHaveLength(0);
    const lot = await attendreLot(pile.urlBase, cle, r.corps.lot);
    const recus = await attendre('three deliveries', () => {
      const l = recepteur.recus.filter((x) => x.chemin === '/tout');
      return l.length >= 3 && l;
    });
    // A while longer: nothing more comes.
    await new Promise((res) => setTimeout(res, 1500));
    expect(recepteur.recus.filter((x) => x.chemin === '/tout')).toHaveLength(3);
    const evenements = recus.map((x) => verifier(w.secret, x));
    expect(evenements.map((e) => e.type).sort()).toEqual(['lot.fini', 'travail.fini', 'travail.fini']);
    expect(new Set(recus.map((x) => x.entetes['webhook-id'])).size).toBe(3);
    const finLot = evenements.find((e) => e.type === 'lot.fini')!;
    expect(finLot.data).toMatchObject({ id: lot.id, statut: 'termine', termines: 2, total: 2 });
    expect(finLot.data.zip.url).toMatch(/^http/);
    for (const e of evenements.filter((x) => x.type === 'travail.fini')) {
      expect(e.data.statut).toBe('termine');
      expect(e.data.resultats[0].url).toMatch(/^http/);
      expect(Date.parse(e.timestamp)).toBeGreaterThan(0);
    }
    // A wrong secret does not verify.
    expect(() => verifier('whsec_' + Buffer.alloc(24, 7).toString('base64'), recus[0]!)).toThrow();
    const log = await journal(w.id);
    expect(log).toHaveLength(3);
    expect(log.every((l) => l.statut === 'reussie' && l.tentatives === 1 && l.prochaine_tentative === null)).toBe(true);
  });

  it('delivers one travail.fini for a fusion: its three exposures make one job, no batch, so no lot.fini', async () => {
    // Its own account: an endpoint of the shared one would receive the later tests' events too.
    const { cle: photographe } = await pile.creerCompte(10);
    const w = await creerWebhook('/fusion', ['travail.fini', 'lot.fini'], photographe);
    // Read as bytes: the service allows libvips its buffer loaders only.
    const photo = readFileSync(new URL('../photos/sejour_polyhaven-fireplace-a.jpg', import.meta.url));
    const expositions = await Promise.all([0.25, 1, 4].map((gain) => sharp(photo).resize({ width: 480 }).linear(gain, 0).jpeg().toBuffer()));
    const r = await appeler(pile.urlBase, 'POST', '/travaux', {
      cle: photographe,
      json: { outil: 'fusion', images: expositions.map((o) => ({ base64: enBase64(o) })) },
    });
    expect(r.statut, JSON.stringify(r.corps)).toBe(202);
    expect(r.corps).toMatchObject({ lot: null, outil: 'fusion' });
    const travail = await attendreTravail(pile.urlBase, photographe, r.corps.travaux[0].id, 60_000);
    const [recu] = await attendre('the fusion delivery', () => {
      const l = recepteur.recus.filter((x) => x.chemin === '/fusion');
      return l.length >= 1 && l;
    });
    await new Promise((res) => setTimeout(res, 1000));
    expect(recepteur.recus.filter((x) => x.chemin === '/fusion')).toHaveLength(1);
    const e = verifier(w.secret, recu!);
    expect(e.type).toBe('travail.fini');
    expect(e.data).toMatchObject({ id: travail.id, outil: 'fusion', statut: 'termine', cout: 2, apercu: false, lot: null });
    expect(e.data.resultats).toHaveLength(1);
    expect(e.data.resultats[0].url).toMatch(/^http/);
  });

  it('tries a 500 again with the same webhook-id, until a 2xx, then never again', async () => {
    recepteur.reponses.set('/instable', [500, 500, 200]);
    const w = await creerWebhook('/instable', ['travail.fini']);
    const r = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(3)) }] } });
    await attendreTravail(pile.urlBase, cle, r.corps.travaux[0].id);
    await attendre('three attempts', () => recepteur.recus.filter((x) => x.chemin === '/instable').length >= 3);
    await new Promise((res) => setTimeout(res, 1500));
    const recus = recepteur.recus.filter((x) => x.chemin === '/instable');
    expect(recus).toHaveLength(3);
    expect(new Set(recus.map((x) => x.entetes['webhook-id'])).size).toBe(1);
    // Each attempt is signed anew (its own timestamp), and verifies.
    for (const x of recus) expect(verifier(w.secret, x).type).toBe('travail.fini');
    expect(recus[1]!.le - recus[0]!.le).toBeGreaterThanOrEqual(150);
    const [l] = await journal(w.id);
    expect(l).toMatchObject({ statut: 'reussie', tentatives: 3, travail: r.corps.travaux[0].id, prochaine_tentative: null });
  });

  it('a failed job is announced too; after the last attempt the delivery fails, the endpoint is marked, and a resend delivers it', async () => {
    recepteur.reponses.set('/panne', [503]);
    const w = await creerWebhook('/panne', ['travail.fini']);
    // An image URL the SSRF guard refuses: the job fails and is refunded.
    const r = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ url: 'https://127.0.0.1/photo.jpg' }] } });
    const travail = await attendreTravail(pile.urlBase, cle, r.corps.travaux[0].id);
    expect(travail.statut).toBe('echec');
    const echouee = await (async () => {
      const fin = Date.now() + 20_000;
      for (;;) {
        const [l] = await journal(w.id);
        if (l?.statut === 'en_echec') return l;
        if (Date.now() > fin) throw new Error(`delivery still ${l?.statut}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    expect(echouee.tentatives).toBe(4);
    expect(recepteur.recus.filter((x) => x.chemin === '/panne')).toHaveLength(4);
    expect(
      verifier(
        w.secret,
        recepteur.recus.find((x) => x.chemin === '/panne')!,
      ).data,
    ).toMatchObject({ statut: 'echec', erreur: { code: 'url_refusee' } });
    const liste = await appeler(pile.urlBase, 'GET', '/webhooks', { cle });
    expect(liste.corps.webhooks.find((x: { id: string }) => x.id === w.id).etat).toBe('en_echec');

    recepteur.reponses.set('/panne', [204]);
    const renvoi = await appeler(pile.urlBase, 'POST', `/webhooks/${w.id}/livraisons/${echouee.id}/renvoyer`, { cle });
    expect(renvoi.statut).toBe(202);
    expect(renvoi.corps).toMatchObject({ id: echouee.id, statut: 'en_attente' });
    await attendre('the resend', () => recepteur.recus.filter((x) => x.chemin === '/panne').length >= 5);
    const dernier = recepteur.recus.filter((x) => x.chemin === '/panne').at(-1)!;
    expect(dernier.entetes['webhook-id']).toBe(echouee.id);
    const fin = Date.now() + 10_000;
    while ((await journal(w.id))[0]!.statut !== 'reussie' && Date.now() < fin) await new Promise((res) => setTimeout(res, 50));
    expect((await journal(w.id))[0]).toMatchObject({ statut: 'reussie', tentatives: 1 });
    const apres = await appeler(pile.urlBase, 'GET', '/webhooks', { cle });
    expect(apres.corps.webhooks.find((x: { id: string }) => x.id === w.id).etat).toBe('actif');
    // Delivered: not sent again.
    const encore = await appeler(pile.urlBase, 'POST', `/webhooks/${w.id}/livraisons/${echouee.id}/renvoyer`, { cle });
    expect([encore.statut, encore.corps.error.code]).toEqual([409, 'delivery_not_failed']);
  });

  it('sends a test event; a rotated secret and the previous one both verify for a day', async () => {
    const w = await creerWebhook('/test', ['lot.fini']);
    const test = await appeler(pile.urlBase, 'POST', `/webhooks/${w.id}/test`, { cle });
    expect(test.statut).toBe(202);
    expect(test.corps).toMatchObject({ type: 'webhook.test', webhook: w.id, statut: 'en_attente' });
    const premier = await attendre('the test event', () => recepteur.recus.find((x) => x.chemin === '/test'));
    expect(verifier(w.secret, premier)).toMatchObject({ type: 'webhook.test', data: { webhook: w.id } });

    const tourne = await appeler(pile.urlBase, 'POST', `/webhooks/${w.id}/secret`, { cle });
    expect(tourne.statut).toBe(200);
    expect(tourne.corps.secret).toMatch(/^whsec_/);
    expect(tourne.corps.secret).not.toBe(w.secret);
    await appeler(pile.urlBase, 'POST', `/webhooks/${w.id}/test`, { cle });
    const second = await attendre('the second test event', () => recepteur.recus.filter((x) => x.chemin === '/test')[1]);
    expect(String(second.entetes['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifier(tourne.corps.secret, second).type).toBe('webhook.test');
    expect(verifier(w.secret, second).type).toBe('webhook.test');
    // The listing never shows a secret.
    expect(JSON.stringify((await appeler(pile.urlBase, 'GET', '/webhooks', { cle })).corps)).not.toContain('whsec_');
  });

  it('refuses bad endpoints and events, caps the count, and keeps accounts apart', async () => {
    const refus = async (json: unknown) => {
      const r = await appeler(pile.urlBase, 'POST', '/webhooks', { cle, json });
      return [r.statut, r.corps.error.code, r.corps.error.message];
    };
    expect(await refus({ url: 'http://example.com/h', evenements: ['travail.fini'] })).toEqual([400, 'invalid_body', 'url must use https.']);
    expect(await refus({ url: 'https://10.0.0.7/h', evenements: ['travail.fini'] })).toEqual([
      400,
      'invalid_body',
      'url must name its host (an IP address is refused).',
    ]);
    expect(await refus({ url: 'https://localhost/h', evenements: ['travail.fini'] })).toEqual([400, 'invalid_body', 'url must name a public host.']);
    expect(await refus({ url: 'https://user:pw@example.com/h', evenements: ['travail.fini'] })).toEqual([
      400,
      'invalid_body',
      'url must not carry credentials.',
    ]);
    expect((await refus({ url: 'https://example.com/h', evenements: ['travail.termine'] }))[1]).toBe('invalid_body');
    expect((await refus({ url: 'https://example.com/h', evenements: [] }))[1]).toBe('invalid_body');
    // http://127.0.0.1 is for this test stack only, never another private address over http.
    expect((await refus({ url: 'http://10.0.0.7/h', evenements: ['travail.fini'] }))[2]).toBe('url must use https.');

    const autre = await pile.creerCompte(0);
    const w = await creerWebhook('/autre', ['travail.fini'], autre.cle);
    for (const [methode, chemin] of [
      ['DELETE', `/webhooks/${w.id}`],
      ['POST', `/webhooks/${w.id}/secret`],
      ['POST', `/webhooks/${w.id}/test`],
      ['GET', `/webhooks/${w.id}/livraisons`],
    ] as const) {
      const r = await appeler(pile.urlBase, methode, chemin, { cle });
      expect([r.statut, r.corps.error.code], `${methode} ${chemin}`).toEqual([404, 'not_found']);
    }
    expect((await appeler(pile.urlBase, 'GET', '/webhooks', { cle })).corps.webhooks.some((x: { id: string }) => x.id === w.id)).toBe(false);

    // At most 10 per account, counted exactly under a burst.
    const reponses = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        appeler(pile.urlBase, 'POST', '/webhooks', { cle: autre.cle, json: { url: `https://example.com/${i}`, evenements: ['lot.fini'] } }),
      ),
    );
    expect(reponses.filter((x) => x.statut === 201)).toHaveLength(9);
    expect(reponses.filter((x) => x.statut === 409).every((x) => x.corps.error.code === 'too_many_webhooks')).toBe(true);
    expect((await appeler(pile.urlBase, 'DELETE', `/webhooks/${w.id}`, { cle: autre.cle })).statut).toBe(204);
    expect((await appeler(pile.urlBase, 'DELETE', `/webhooks/${w.id}`, { cle: autre.cle })).statut).toBe(404);
    expect(
      (await appeler(pile.urlBase, 'POST', '/webhooks', { cle: autre.cle, json: { url: 'https://example.com/x', evenements: ['lot.fini'] } })).statut,
    ).toBe(201);
  });

  it('a queue that fails, or loses a message, delays a delivery but never loses or repeats it', async () => {
    const w = await creerWebhook('/file', ['travail.fini']);
    const file = pile.deps.fileWebhooks!;
    const envoyer = file.envoyer;
    // The queue refuses once: the Enregistrer step fails after the delivery's record, is retried, and sends it then.
    let refus = 1;
    file.envoyer = async (messages, delai) => {
      if (messages.length > 0 && refus-- > 0) throw new Error('SQS is unavailable (injected)');
      return envoyer.call(file, messages, delai);
    };
    const a = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(5)) }] } });
    await attendreTravail(pile.urlBase, cle, a.corps.travaux[0].id);
    await attendre('the first delivery', () => recepteur.recus.some((x) => x.chemin === '/file'));
    expect(refus).toBe(-1);

    // The message is lost (a stack killed with it in memory): the sweeper finds the overdue delivery and queues it again.
    file.envoyer = async () => undefined;
    const b = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(6)) }] } });
    await attendreTravail(pile.urlBase, cle, b.corps.travaux[0].id);
    // The job reads termine before its step has announced it: wait for the step's end.
    await pile.attendreInactivite();
    file.envoyer = envoyer;
    await new Promise((res) => setTimeout(res, 500));
    const ids = () => recepteur.recus.filter((x) => x.chemin === '/file').map((x) => JSON.parse(x.corps).data.id as string);
    expect(ids()).toEqual([a.corps.travaux[0].id]);
    // Not overdue yet (a message may still be on its way); then overdue: queued again, for each endpoint of the account.
    expect((await pile.balayer()).livraisonsRelancees).toBe(0);
    await new Promise((res) => setTimeout(res, 3_200));
    expect((await pile.balayer()).livraisonsRelancees).toBeGreaterThanOrEqual(1);
    await attendre('the second delivery', () => recepteur.recus.filter((x) => x.chemin === '/file').length >= 2);
    // Sent again by a second sweep while the first is delivered: still once.
    await pile.balayer();
    await new Promise((res) => setTimeout(res, 1000));
    const recus = recepteur.recus.filter((x) => x.chemin === '/file');
    expect(recus).toHaveLength(2);
    expect(recus.map((x) => verifier(w.secret, x).data.id).sort()).toEqual([a.corps.travaux[0].id, b.corps.travaux[0].id].sort());
    expect((await journal(w.id)).map((l) => [l.statut, l.tentatives])).toEqual([
      ['reussie', 1],
      ['reussie', 1],
    ]);
  });

  it('the SSRF guard holds at delivery time: a name that resolves to a private address is refused', async () => {
    const poster = creerPosteur();
    // `localhost.` passes the registration's check (a name), and resolves to 127.0.0.1 when delivered.
    expect(await poster(`https://localhost.:9/h`, '{}', {})).toEqual({ statut: null, erreur: expect.stringMatching(/^refused|connection failed/) });
    expect(await poster('http://127.0.0.1:9/h', '{}', {})).toEqual({ statut: null, erreur: 'refused: url must use https.' });
  });
});

describe('a receiver on this machine, refused by a stack started without the loopback allowance (issue 41, point 6a)', () => {
  let sansBoucle: Awaited<ReturnType<typeof demarrerPileTest>>;
  let cleSansBoucle: string;
  beforeAll(async () => {
    sansBoucle = await demarrerPileTest({ webhooks: { boucleLocale: false } });
    ({ cle: cleSansBoucle } = await sansBoucle.creerCompte(0));
  });
  afterAll(async () => {
    await sansBoucle?.arreter();
  });

  const refus = async (url: string) => {
    const r = await appeler(sansBoucle.urlBase, 'POST', '/webhooks', { cle: cleSansBoucle, json: { url, evenements: ['travail.fini'] } });
    expect(r.statut, JSON.stringify(r.corps)).toBe(400);
    expect(r.corps.error.code).toBe('invalid_body');
    expect(r.corps.error.details).toEqual([{ chemin: 'url', message: r.corps.error.message }]);
    return r.corps.error.message as string;
  };

  it('says, locally, how to allow it; other refusals and AWS stay as they are', async () => {
    const commande = 'start the stack with RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1 npm start';
    expect(await refus('http://127.0.0.1:8787/')).toBe(
      'url must use https. Locally, start the stack with RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1 npm start to allow http://127.0.0.1 endpoints (for trying and tests only).',
    );
    // Other names of this machine: the address to use, and the same setting.
    for (const url of ['http://localhost:8787/', 'https://localhost/h', 'https://127.0.0.1/h', 'http://[::1]:8787/']) {
      const message = await refus(url);
      expect(message, url).toContain('http://127.0.0.1:<port>/');
      expect(message, url).toContain('RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1 npm start');
    }
    // Not this machine, or a refusal no setting lifts: as on AWS.
    expect(await refus('http://example.com/h')).toBe('url must use https.');
    expect(await refus('https://10.0.0.7/h')).toBe('url must name its host (an IP address is refused).');
    expect(await refus('http://user:pw@127.0.0.1:8787/')).toBe('url must not carry credentials.');

    // A stack that allows loopback says nothing more (the describe above: 'url must name a public host.'),
    // and on AWS (dependencies built from the environment: no `pileLocale`) the message stays as it is.
    const { creerWebhook } = await import('../../lambdas/core/domaine/webhooks/points');
    const { pileLocale: _, ...commeSurAws } = sansBoucle.deps;
    const surAws = await creerWebhook(commeSurAws, { compte: 'c', test: false }, { url: 'http://127.0.0.1:8787/', evenements: ['travail.fini'] }).catch(
      (e: Error) => e.message,
    );
    expect(surAws).toBe('url must use https.');
    expect(surAws).not.toContain(commande);
  });
});
