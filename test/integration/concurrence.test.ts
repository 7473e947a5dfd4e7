/**
 * Money and limits under pressure: concurrent requests on one balance, the pending-jobs limit, the
 * per-key rate limit. Everything goes through HTTP and the real DynamoDB transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lancement } from '../../lambdas/core/modele/enregistrements';
import type { Moteur } from '../../lambdas/moteurs/commun/moteur';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { detecteurCouleurs } from '../../lambdas/moteurs/local/detecteur-local';
import { lire as lireCompte } from '../../lambdas/core/depots/comptes';
import { demarrerPileTest, pilePartagee } from '../support/pile';
import { appeler, attendreTravail, enBase64, imageTest } from '../support/client';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;

/** An engine that holds every job until the test lets them go: pending jobs stay pending. */
const moteurRetenu = () => {
  let liberer: () => void = () => {};
  const barriere = new Promise<void>((r) => (liberer = r));
  const local = creerMoteurLocal({ detecteur: detecteurCouleurs });
  const moteur: Moteur = {
    nom: 'local',
    retoucher: async (demande) => {
      await barriere;
      return local.retoucher(demande);
    },
    rediger: async (demande) => {
      await barriere;
      return local.rediger(demande);
    },
  };
  return { moteur, liberer: () => liberer() };
};

describe('concurrent requests on one balance', () => {
  let pile: Pile;
  beforeAll(async () => {
    pile = await pilePartagee();
  });
  afterAll(async () => pile?.arreter());

  it('24 simultaneous POSTs on a balance for 10 jobs: exactly 10 start, 14 get 402, never an overdraft', async () => {
    const { cle, compte: id } = await pile.creerCompte(40);
    const json = { outil: 'vider', images: [{ base64: enBase64(await imageTest(2)) }] };
    const reponses = await Promise.all(Array.from({ length: 24 }, () => appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json })));
    const statuts = reponses.map((r) => r.statut).sort();
    expect(statuts.filter((s) => s === 202)).toHaveLength(10);
    expect(statuts.filter((s) => s === 402)).toHaveLength(14);
    for (const r of reponses.filter((r) => r.statut === 402)) expect(r.corps).toMatchObject({ error: { code: 'insufficient_credits' } });
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits).toBe(0);
    const ids = reponses.filter((r) => r.statut === 202).map((r) => r.corps.travaux[0]!.id);
    const fins = await Promise.all(ids.map((id) => attendreTravail(pile.urlBase, cle, id)));
    expect(fins.every((t) => t.statut === 'termine')).toBe(true);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits).toBe(0);
    expect((await lireCompte(pile.deps, id))?.travaux_ouverts).toBe(0);
  });
});

describe('pending jobs limit', () => {
  let pile: Pile;
  const retenu = moteurRetenu();
  beforeAll(async () => {
    pile = await demarrerPileTest({ moteur: retenu.moteur });
  });
  afterAll(async () => pile?.arreter());

  it('at most 50 pending jobs per account: the 51st is a 429 with Retry-After, free of charge', async () => {
    const { cle, compte } = await pile.creerCompte(1000);
    const image = { base64: enBase64(await imageTest(3)) };
    const lot = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: Array.from({ length: 49 }, () => image) } });
    expect(lot.statut).toBe(202);
    const cinquantieme = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [image] } });
    expect(cinquantieme.statut).toBe(202);
    const refuse = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [image] } });
    expect(refuse.statut).toBe(429);
    expect(refuse.corps.error.code).toBe('too_many_pending_jobs');
    expect(Number(refuse.entetes.get('retry-after'))).toBeGreaterThan(0);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits).toBe(1000 - 50 * 2);

    retenu.liberer();
    await attendreTravail(pile.urlBase, cle, cinquantieme.corps.travaux[0]!.id);
    await pile.attendreInactivite();
    expect((await lireCompte(pile.deps, compte))?.travaux_ouverts).toBe(0);
    const encore = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [image] } });
    expect(encore.statut).toBe(202);
  });
});

describe('rate limit', () => {
  let pile: Pile;
  // A fixed clock in the middle of a minute: the 120 requests cannot straddle two windows.
  const horloge = () => new Date('2026-11-23T10:00:30.000Z');
  beforeAll(async () => {
    pile = await demarrerPileTest({ horloge });
  });
  afterAll(async () => pile?.arreter());

  it('120 requests per minute per key; the 121st is a 429 with Retry-After; another key is not affected', async () => {
    const { cle, compte } = await pile.creerCompte(10);
    for (let paquet = 0; paquet < 12; paquet++) {
      const statuts = await Promise.all(Array.from({ length: 10 }, () => appeler(pile.urlBase, 'GET', '/solde', { cle }).then((r) => r.statut)));
      expect(statuts.every((s) => s === 200)).toBe(true);
    }
    const refuse = await appeler(pile.urlBase, 'GET', '/travaux', { cle });
    expect(refuse.statut).toBe(429);
    expect(refuse.corps.error.code).toBe('rate_limited');
    expect(refuse.entetes.get('retry-after')).toBe('30');
    const { creerCle } = await import('../../lambdas/core/domaine/comptes');
    const autre = await creerCle(pile.deps, compte);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: autre.cle })).statut).toBe(200);
  });
});
