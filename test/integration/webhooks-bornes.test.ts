/**
 * Webhooks cannot be used to flood (issue 38, point 3), on the local stack, whose queue runs its
 * consumer's batches with the deployed event source's bound (CONCURRENCE_MAX_LIVREUR): an account whose
 * receivers never answer holds at most EN_VOL_PAR_WEBHOOK attempts per endpoint and EN_VOL_PAR_COMPTE
 * in all, the rest waiting in the queue without a worker, so another tenant's delivery arrives within
 * its normal delay; test events are throttled per endpoint; a place whose attempt died frees itself.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as creneaux from '../../lambdas/core/depots/creneaux';
import * as webhooksDepot from '../../lambdas/core/depots/webhooks';
import { idAleatoire, livrerA } from '../../lambdas/core/domaine/webhooks/annonces';
import { parPaquets } from '../../lambdas/core/infra/paquets';
import { EN_VOL_PAR_COMPTE, EN_VOL_PAR_WEBHOOK, TESTS_PAR_MINUTE } from '../../lambdas/core/modele/webhooks';
import { appeler } from '../support/client';
import { horlogeTenable } from '../support/horloge';
import { demarrerPileTest } from '../support/pile';
import { demarrerRecepteur, type Recepteur } from '../support/recepteur';

/** A receiver that reads each request and never answers it: the worst an endpoint can do. */
const demarrerMuet = async () => {
  const enCours = new Map<string, number>();
  const maxParChemin = new Map<string, number>();
  let total = 0;
  let maxTotal = 0;
  const sockets = new Set<Socket>();
  const serveur = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chemin = req.url ?? '/';
    total++;
    maxTotal = Math.max(maxTotal, total);
    enCours.set(chemin, (enCours.get(chemin) ?? 0) + 1);
    maxParChemin.set(chemin, Math.max(maxParChemin.get(chemin) ?? 0, enCours.get(chemin)!));
    res.on('close', () => {
      total--;
      enCours.set(chemin, enCours.get(chemin)! - 1);
    });
    req.resume();
  });
  serveur.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => serveur.listen(0, '127.0.0.1', r));
  const port = (serveur.address() as AddressInfo).port;
  return {
    url: (chemin: string) => `http://127.0.0.1:${port}${chemin}`,
    maxParChemin,
    maxTotal: () => maxTotal,
    arreter: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => serveur.close(() => r()));
    },
  };
};

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
let recepteur: Recepteur;
let muet: Awaited<ReturnType<typeof demarrerMuet>>;
/** The stack's clock, held still while test events are counted. */
const { horloge, dansUneMinute } = horlogeTenable();

beforeAll(async () => {
  recepteur = await demarrerRecepteur();
  muet = await demarrerMuet();
  pile = await demarrerPileTest({ webhooks: { boucleLocale: true }, horloge });
});
afterAll(async () => {
  await muet?.arreter();
  await pile?.arreter();
  await recepteur?.arreter();
});

const creer = async (cle: string, url: string) => {
  const r = await appeler(pile.urlBase, 'POST', '/webhooks', { cle, json: { url, evenements: ['travail.fini'] } });
  expect(r.statut, JSON.stringify(r.corps)).toBe(201);
  return r.corps.id as string;
};

describe('webhooks cannot be used to flood', () => {
  it("a tenant whose receivers never answer holds a few workers at most; another tenant's delivery arrives within its normal delay", async () => {
    const a = await pile.creerCompte(0);
    const morts = [await creer(a.cle, muet.url('/mort-1')), await creer(a.cle, muet.url('/mort-2')), await creer(a.cle, muet.url('/mort-3'))];
    // 300 deliveries due now to the dead receivers: 30 batches, more than the queue's 20 workers.
    const points = await Promise.all(morts.map(async (id) => (await webhooksDepot.lire(pile.deps, id))!));
    const maintenant = new Date().toISOString();
    await parPaquets(
      Array.from({ length: 100 }, () => points).flat(),
      8,
      async (point) =>
        void (await livrerA(pile.deps, [point], { id: idAleatoire(), compte: a.compte, type: 'webhook.test', sujet: null, evenement_le: maintenant })),
    );
    // The dead receivers are being tried, as many at once as the account's places allow.
    await expect.poll(() => muet.maxTotal(), { timeout: 5000 }).toBe(EN_VOL_PAR_COMPTE);
    await new Promise((r) => setTimeout(r, 500));

    const b = await pile.creerCompte(0);
    const sain = await creer(b.cle, recepteur.url('/sain'));
    const envoi = await appeler(pile.urlBase, 'POST', `/webhooks/${sain}/test`, { cle: b.cle });
    expect(envoi.statut).toBe(202);
    await expect.poll(() => recepteur.de('/sain').length, { timeout: 10_000, interval: 20 }).toBe(1);
    // From the delivery's creation (its record's date, this machine's clock), not from before the request: the
    // queue's delay is what is measured, not how long a loaded test machine took to answer the POST.
    const delai = recepteur.de('/sain')[0]!.le - Date.parse((envoi.corps as { cree_le: string }).cree_le);
    // Its normal delay: the queue's next turn, 50 ms alone on this machine, 3 s once on CI with both cores busy
    // (the dead tenant's 300 messages being deferred through DynamoDB Local meanwhile); a dead tenant's attempts
    // take 15 s each, so a third of that still tells the two apart.
    expect(delai).toBeLessThan(5000);

    // The dead tenant's attempts in flight: never more than its places. An endpoint may not have been tried at all
    // (the account's places are first come: two endpoints can hold all four), so never seen counts as 0.
    for (const chemin of ['/mort-1', '/mort-2', '/mort-3']) expect(muet.maxParChemin.get(chemin) ?? 0).toBeLessThanOrEqual(EN_VOL_PAR_WEBHOOK);
    expect(muet.maxTotal()).toBeLessThanOrEqual(EN_VOL_PAR_COMPTE);
    expect(muet.maxTotal()).toBeGreaterThan(0);
    // The others wait in the queue, put off for want of a place: none lost, none attempted.
    const journal = (await appeler(pile.urlBase, 'GET', `/webhooks/${morts[0]}/livraisons`, { cle: a.cle })).corps.livraisons as { statut: string }[];
    expect(journal.length).toBe(50);
    expect(journal.every((l) => l.statut === 'en_attente')).toBe(true);
  }, 60_000);

  it('test events are throttled per endpoint: a 429 with Retry-After beyond the minute’s few', async () => {
    const { cle } = await pile.creerCompte(0);
    const id = await creer(cle, recepteur.url('/essais'));
    const statuts: number[] = [];
    let refus: { corps: any; entetes: Headers } | undefined;
    await dansUneMinute(async () => {
      for (let i = 0; i <= TESTS_PAR_MINUTE; i++) {
        const r = await appeler(pile.urlBase, 'POST', `/webhooks/${id}/test`, { cle });
        statuts.push(r.statut);
        if (r.statut === 429) refus = r;
      }
    });
    expect(statuts).toEqual([...Array(TESTS_PAR_MINUTE).fill(202), 429]);
    expect(refus?.corps.error).toMatchObject({ code: 'rate_limited', retry_after: expect.any(Number) });
    expect(refus?.corps.error.message).toContain(`${TESTS_PAR_MINUTE} test events per minute`);
    expect(Number(refus?.entetes.get('retry-after'))).toBeGreaterThan(0);
  });

  it("a place is taken with the account's, given back after the attempt, and freed once its lease has passed", async () => {
    const places = { parPoint: 2, parCompte: 3 };
    const dans = (ms: number) => new Date(Date.now() + ms).toISOString();
    const a = (compte: string, webhook: string, livraison: string, jusqua = dans(60_000)) => ({ compte, webhook, livraison, jusqua });
    const p1 = await creneaux.prendre(pile.deps, a('compte-1', 'wh_1', 'm1'), places);
    expect(await creneaux.prendre(pile.deps, a('compte-1', 'wh_1', 'm2'), places)).toBeTruthy();
    // The endpoint is full; another endpoint of the account takes the account's last place.
    expect(await creneaux.prendre(pile.deps, a('compte-1', 'wh_1', 'm3'), places)).toBeUndefined();
    expect(await creneaux.prendre(pile.deps, a('compte-1', 'wh_2', 'm4'), places)).toBeTruthy();
    expect(await creneaux.prendre(pile.deps, a('compte-1', 'wh_3', 'm5'), places)).toBeUndefined();
    // Given back: free again. Another account has places of its own.
    await creneaux.rendre(pile.deps, p1!);
    expect(await creneaux.prendre(pile.deps, a('compte-1', 'wh_3', 'm5'), places)).toBeTruthy();
    expect(await creneaux.prendre(pile.deps, a('compte-2', 'wh_9', 'm9'), places)).toBeTruthy();

    // A worker that died keeps its places until their lease ends, then anyone takes them; its late
    // give-back does not free what another holds by then.
    const morts = [
      await creneaux.prendre(pile.deps, a('compte-3', 'wh_1', 'm1'), places),
      await creneaux.prendre(pile.deps, a('compte-3', 'wh_1', 'm2'), places),
    ];
    expect(morts.every(Boolean)).toBe(true);
    const plusTard = { ...pile.deps, horloge: () => new Date(Date.now() + 61_000) };
    expect(await creneaux.prendre(pile.deps, a('compte-3', 'wh_1', 'm3'), places)).toBeUndefined();
    expect(await creneaux.prendre(plusTard, a('compte-3', 'wh_1', 'm3', dans(120_000)), places)).toBeTruthy();
    await creneaux.rendre(pile.deps, morts[0]!);
    expect(await creneaux.prendre(plusTard, a('compte-3', 'wh_1', 'm4', dans(120_000)), places)).toBeTruthy();
    expect(await creneaux.prendre(plusTard, a('compte-3', 'wh_1', 'm5', dans(120_000)), places)).toBeUndefined();
  });
});
