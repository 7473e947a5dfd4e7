/**
 * Faults between two steps: a refund whose answer is lost and that is retried, an execution that
 * cannot start after the debit, a request that dies between the debit and the start, a model that is
 * briefly unavailable. Credits, pending counts and batch counters must come out exact every time.
 */
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lireCompte } from '../../lambdas/core/comptes';
import { lireEnregistrementLot, lireEnregistrementTravail } from '../../lambdas/core/consultation';
import type { Dependances } from '../../lambdas/core/dependances';
import { ErreurTravail } from '../../lambdas/core/erreurs';
import { lancer } from '../../lambdas/core/lancement';
import type { Lancement } from '../../lambdas/core/modele';
import { creerMoteurLocal } from '../../lambdas/moteurs/local';
import type { Moteur } from '../../lambdas/moteurs/moteur';
import { creer as creerEnregistrer } from '../../lambdas/pipeline/enregistrer';
import { creer as creerRembourser } from '../../lambdas/pipeline/rembourser';
import { relancer } from '../../lambdas/pipeline/relancer';
import { demarrerPileTest } from '../support/pile';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;

const contexte = { awsRequestId: 'test', getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

/**
 * A DynamoDB client whose chosen writes take effect but whose answer is lost once: what a Lambda
 * sees when the network drops right after DynamoDB committed.
 */
const ddbQuiPerdUneReponse = (d: Dependances, cible: (nom: string) => boolean): Dependances['ddb'] => {
  let perdue = false;
  return new Proxy(d.ddb, {
    get(client, propriete, recepteur) {
      if (propriete !== 'send') return Reflect.get(client, propriete, recepteur);
      return async (commande: { constructor: { name: string } }) => {
        const resultat = await client.send(commande as never);
        if (!perdue && cible(commande.constructor.name)) {
          perdue = true;
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        }
        return resultat;
      };
    },
  });
};

let tentatives = 0;
/** Refuses the first job's content; every other call works. */
const moteurCapricieux: Moteur = {
  ...creerMoteurLocal(),
  retoucher: async (demande) => {
    if (demande.valeurs.piece === "children's bedroom") throw new ErreurTravail('contenu_refuse', 'The model refused this image.');
    if (demande.valeurs.piece === 'home office' && tentatives++ < 2) throw new ErreurTravail('moteur_indisponible');
    return creerMoteurLocal().retoucher(demande);
  },
};

describe('faults in the pipeline', () => {
  let pile: Pile;
  beforeAll(async () => {
    pile = await demarrerPileTest({ moteur: moteurCapricieux });
  });
  afterAll(async () => pile?.arreter());

  it('a refused content fails the job with its code; a refund step retried after its answer was lost credits once', async () => {
    const { cle, compte } = await pile.creerCompte(20);
    const json = { outil: 'staging', valeurs: { piece: "children's bedroom" }, images: [{ base64: enBase64(await imageTest(1)) }] };
    const { corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json });
    const id = corps.travaux[0]!.id;
    const fini = await attendreTravail(pile.urlBase, cle, id);
    expect(fini).toMatchObject({ statut: 'echec', rembourse: true, erreur: { code: 'contenu_refuse', message: 'The model refused this image.' } });
    expect((await lireCompte(pile.deps, compte))).toMatchObject({ credits: 20, en_attente: 0 });

    // The Catch branch again, twice, the first answer lost after the commit: nothing moves.
    const etat = { travail: id, compte, lot: null, outil: 'staging' as const, echec: { Error: 'contenu_refuse', Cause: '{}' } };
    const deps = { ...pile.deps, ddb: ddbQuiPerdUneReponse(pile.deps, (nom) => nom === 'TransactWriteCommand') };
    const rembourser = creerRembourser(async () => deps);
    await rembourser(etat, contexte);
    await rembourser(etat, contexte);
    expect((await lireCompte(pile.deps, compte))).toMatchObject({ credits: 20, en_attente: 0 });
  });

  it('a refund whose first attempt committed but lost its answer is credited once when Step Functions retries it', async () => {
    const { compte } = await pile.creerCompte(20);
    const d: Dependances = { ...pile.deps, sfn: { send: async () => ({}) } as unknown as Dependances['sfn'] };
    const lancement = await lancer(d, {
      compte,
      contentType: 'application/json',
      corps: Buffer.from(JSON.stringify({ outil: 'vider', images: [{ base64: enBase64(await imageTest(2)) }] })),
      cleIdempotence: undefined,
    });
    const id = lancement.travaux[0]!.id;
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 16, en_attente: 1 });
    const etat = { travail: id, compte, lot: null, outil: 'vider' as const, echec: { Error: 'moteur_indisponible', Cause: '{}' } };
    const rembourser = creerRembourser(async () => ({ ...pile.deps, ddb: ddbQuiPerdUneReponse(pile.deps, (nom) => nom === 'TransactWriteCommand') }));
    await expect(rembourser(etat, contexte)).rejects.toMatchObject({ name: 'erreur_transitoire' });
    await rembourser(etat, contexte);
    await rembourser(etat, contexte);
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 20, en_attente: 0 });
    expect(await lireEnregistrementTravail(pile.deps, id)).toMatchObject({ statut: 'echec', rembourse: true, erreur: { code: 'moteur_indisponible' } });
  });

  it('a model briefly unavailable is retried by the state machine and the job ends termine', async () => {
    const { cle, compte } = await pile.creerCompte(20);
    const json = { outil: 'staging', valeurs: { piece: 'home office' }, images: [{ base64: enBase64(await imageTest(3)) }] };
    const { corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json });
    const fini = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
    expect(fini.statut).toBe('termine');
    expect(tentatives).toBeGreaterThanOrEqual(3);
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 15, en_attente: 0 });
  });

  it('recording a result twice (an answer lost after the commit) counts the job once in its batch', async () => {
    const { cle, compte } = await pile.creerCompte(20);
    const images = [{ base64: enBase64(await imageTest(4)) }, { base64: enBase64(await imageTest(5)) }];
    const { corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
    const lot = await attendreLot(pile.urlBase, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'termine', termines: 2, echecs: 0 });
    const enregistrer = creerEnregistrer(async () => pile.deps);
    const premier = corps.travaux[0]!.id;
    const sortie = { resultats: [], texte: null, graine: null };
    await enregistrer({ travail: premier, compte, lot: corps.lot, outil: 'ciel', sortie }, contexte);
    expect(await lireEnregistrementLot(pile.deps, corps.lot!)).toMatchObject({ termines: 2, echecs: 0, restants: 0, statut: 'termine' });
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 16, en_attente: 0 });
    expect((await lireEnregistrementTravail(pile.deps, premier))?.resultats).toHaveLength(1);
  });
});

describe('starting executions', () => {
  let pile: Pile;
  beforeAll(async () => {
    pile = await demarrerPileTest({ echecDemarrage: () => true });
  });
  afterAll(async () => pile?.arreter());

  it('when no execution can start after the debit, the jobs fail and every credit comes back; the batch closes', async () => {
    const { cle, compte } = await pile.creerCompte(10);
    const images = [{ base64: enBase64(await imageTest(1)) }, { base64: enBase64(await imageTest(2)) }];
    const { statut, corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
    expect(statut).toBe(202);
    expect(corps.travaux.map((t) => [t.statut, t.rembourse, t.erreur?.code])).toEqual([
      ['echec', true, 'demarrage_impossible'],
      ['echec', true, 'demarrage_impossible'],
    ]);
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 10, en_attente: 0 });
    const lot = await attendreLot(pile.urlBase, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'echec', echecs: 2, termines: 0, zip: null });
  });
});

describe('a request that dies between the debit and the start', () => {
  let pile: Pile;
  beforeAll(async () => {
    pile = await demarrerPileTest();
  });
  afterAll(async () => pile?.arreter());

  it('leaves a debited en_attente job that the reconciler starts later: charged once, done once', async () => {
    const { cle, compte } = await pile.creerCompte(10);
    // The process "dies" right after the commit: no execution starts and no refund happens.
    let transactions = 0;
    const mort: Dependances = {
      ...pile.deps,
      sfn: { send: async () => Promise.reject(new Error('process killed')) } as unknown as Dependances['sfn'],
      ddb: new Proxy(pile.deps.ddb, {
        get(client, p, r) {
          if (p !== 'send') return Reflect.get(client, p, r);
          return async (commande: { constructor: { name: string } }) => {
            if (commande.constructor.name === 'TransactWriteCommand' && transactions++ > 0) throw new Error('process killed');
            return client.send(commande as never);
          };
        },
      }),
    };
    const lancement = await lancer(mort, {
      compte,
      contentType: 'application/json',
      corps: Buffer.from(JSON.stringify({ outil: 'ciel', images: [{ base64: enBase64(await imageTest(6)) }] })),
      cleIdempotence: undefined,
    });
    const id = lancement.travaux[0]!.id;
    expect(await lireEnregistrementTravail(pile.deps, id)).toMatchObject({ statut: 'en_attente' });
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 8, en_attente: 1 });

    // Too young: the reconciler leaves it to its own request.
    expect((await relancer(pile.deps)).relances).toBe(0);
    const plusTard = { ...pile.deps, horloge: () => new Date(Date.now() + 3 * 60_000) };
    expect((await relancer(plusTard)).relances).toBe(1);
    const fini = await attendreTravail(pile.urlBase, cle, id);
    expect(fini.statut).toBe('termine');
    expect((await relancer(plusTard)).relances).toBe(0);
    expect(await lireCompte(pile.deps, compte)).toMatchObject({ credits: 8, en_attente: 0 });
  });
});
