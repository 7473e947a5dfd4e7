/**
 * The pages of GET /travaux (our extension: `suivant`, `?apres=`) on the local stack: 250 jobs of an
 * account, some sharing their creation time as a batch's do, read page after page, each exactly once
 * and newest first, with and without a tool's filter; jobs started meanwhile do not disturb a listing;
 * a cursor altered, another account's, or sent with another filter is a 400.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elementCreer, nouveau } from '../../lambdas/core/depots/travaux';
import type { IdOutil } from '../../lambdas/core/modele/outils';
import { pilePartagee, type PileTest } from '../support/pile';

type Travail = { id: string; outil: string; cree_le: string };
type Page = { travaux: Travail[]; suivant: string | null };

let pile: PileTest;
let cle: string;
let compte: string;
/** The account's jobs as written, newest first as the listing orders them (creation time, then id). */
let attendus: Travail[] = [];

/** Ended jobs, written as POST /travaux writes them, minus the sweeper's index (nothing to start). */
const ecrire = async (travaux: Travail[]) => {
  for (let i = 0; i < travaux.length; i += 25) {
    const items = travaux.slice(i, i + 25).map((t) => {
      const record = nouveau({
        id: t.id,
        compte,
        outil: t.outil as IdOutil,
        cout: 2,
        valeurs: {},
        lot: null,
        index: 0,
        nom: null,
        source: 'api',
        cree_le: t.cree_le,
        entrees: [],
      });
      const {
        gsi3pk: _pk,
        gsi3sk: _sk,
        ...item
      } = elementCreer(pile.deps.table, { ...record, statut: 'termine' }, { idempotence: undefined, expire_a: 4_000_000_000 }).Put.Item;
      return { PutRequest: { Item: item } };
    });
    await pile.deps.ddb.send(new BatchWriteCommand({ RequestItems: { [pile.deps.table]: items } }));
  }
};

const lire = async (requete: string, avec = cle): Promise<{ statut: number; corps: Page & { error?: { code: string; parametre?: string } } }> => {
  const reponse = await fetch(`${pile.urlBase}/travaux${requete}`, { headers: { Authorization: `Bearer ${avec}` } });
  return { statut: reponse.status, corps: (await reponse.json()) as Page & { error?: { code: string; parametre?: string } } };
};

/** Every page of a listing, by its cursors: the ids in the order read, and how many pages. */
const parcourir = async (limite: number, outil?: string) => {
  const ids: string[] = [];
  let pages = 0;
  let apres: string | null = null;
  do {
    const filtre: string = `?limite=${limite}${outil ? `&outil=${outil}` : ''}${apres ? `&apres=${encodeURIComponent(apres)}` : ''}`;
    const { statut, corps } = await lire(filtre);
    expect(statut).toBe(200);
    ids.push(...corps.travaux.map((t) => t.id));
    apres = corps.suivant;
    pages++;
  } while (apres);
  return { ids, pages };
};

beforeAll(async () => {
  pile = await pilePartagee();
  ({ cle, compte } = await pile.creerCompte(0));
  const outils: IdOutil[] = ['ciel', 'vider', 'annonce'];
  // 250 jobs over 50 instants: five at a time share their creation time, as a batch's jobs do.
  const travaux = Array.from({ length: 250 }, (_, i) => ({
    id: randomUUID(),
    outil: outils[i % 3]!,
    cree_le: new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 5) * 60_000).toISOString(),
  }));
  await ecrire(travaux);
  const rang = (t: Travail) => `${t.cree_le}#${t.id}`;
  attendus = [...travaux].sort((a, b) => (rang(a) < rang(b) ? 1 : -1));
});
afterAll(async () => {
  await pile?.arreter();
});

describe('GET /travaux, page after page', () => {
  it('gives 250 jobs each exactly once, newest first, whatever the page size', async () => {
    for (const limite of [100, 7]) {
      const { ids, pages } = await parcourir(limite);
      expect(ids).toEqual(attendus.map((t) => t.id));
      expect(pages).toBe(Math.ceil(attendus.length / limite));
    }
  });

  it('keeps the filter of its first page: one tool, each of its jobs once', async () => {
    const { ids } = await parcourir(9, 'vider');
    expect(ids).toEqual(attendus.filter((t) => t.outil === 'vider').map((t) => t.id));
    // The cursor holds the filter: outil repeated is fine, changed is refused.
    const premiere = await lire('?limite=9&outil=vider');
    expect((await lire(`?limite=9&apres=${premiere.corps.suivant}`)).corps.travaux.every((t) => t.outil === 'vider')).toBe(true);
    const changee = await lire(`?limite=9&outil=ciel&apres=${premiere.corps.suivant}`);
    expect(changee.statut).toBe(400);
    expect(changee.corps.error).toMatchObject({ code: 'invalid_parameter', parametre: 'outil' });
  });

  it('says null on the last page, and a listing read while jobs start lists each job it started from once', async () => {
    const tout = await lire('?limite=100&outil=annonce');
    expect(tout.corps.travaux).toHaveLength(attendus.filter((t) => t.outil === 'annonce').length);
    expect(tout.corps.suivant).toBeNull();
    const premiere = await lire('?limite=50');
    // Newer jobs arrive between two pages: they are at the top of a new listing, not in this one's pages.
    const nouveaux = Array.from({ length: 3 }, (_, i) => ({ id: randomUUID(), outil: 'ciel', cree_le: new Date(Date.now() + i).toISOString() }));
    await ecrire(nouveaux);
    const ids = premiere.corps.travaux.map((t) => t.id);
    let apres = premiere.corps.suivant;
    while (apres) {
      const page = await lire(`?limite=50&apres=${apres}`);
      ids.push(...page.corps.travaux.map((t) => t.id));
      apres = page.corps.suivant;
    }
    expect(ids).toEqual(attendus.map((t) => t.id));
    // From now on they are the account's newest: the other tests, in whatever order they run, list them first.
    attendus = [...nouveaux.reverse(), ...attendus];
  });

  it("refuses a cursor altered, cut or another account's: 400 invalid_parameter, nothing of anyone's", async () => {
    const { suivant } = (await lire('?limite=10')).corps;
    const [charge, signature] = suivant!.split('.') as [string, string];
    const autreCompte = await pile.creerCompte(0);
    const falsifie = Buffer.from(JSON.stringify({ v: 1, o: null, t: '2099-01-01T00:00:00.000Z', i: randomUUID() })).toString('base64url');
    for (const [requete, avec] of [
      [`?apres=${falsifie}.${signature}`, cle],
      [`?apres=${charge}.${signature.slice(0, 10)}`, cle],
      [`?apres=${charge}`, cle],
      [`?apres=${suivant}`, autreCompte.cle],
      ['?apres=', cle],
    ] as const) {
      const { statut, corps } = await lire(requete, avec);
      expect(statut, requete).toBe(400);
      expect(corps.error).toMatchObject({ code: 'invalid_parameter', parametre: 'apres' });
    }
  });
});
