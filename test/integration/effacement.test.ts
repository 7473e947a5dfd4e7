/**
 * Erasure on request, through HTTP and the real state machine: after it, the bucket and the table are
 * listed and nothing of the erased work is left; links answer 403 or 404; credits do not move.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as webhooksDepot from '../../lambdas/core/depots/webhooks';
import { effacerCompte } from '../../lambdas/core/domaine/effacement/compte';
import type { Lancement, Lot, Travail } from '../../lambdas/core/modele/enregistrements';
import { demarrerPileTest } from '../support/pile';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
import { lireZip } from '../support/zip';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;

const objets = async (pile: Pile): Promise<string[]> => {
  const cles: string[] = [];
  let suite: string | undefined;
  do {
    const page = await pile.deps.s3.send(new ListObjectsV2Command({ Bucket: pile.deps.bucket, ContinuationToken: suite }));
    cles.push(...(page.Contents ?? []).map((o) => o.Key!));
    suite = page.NextContinuationToken;
  } while (suite);
  return cles;
};

const elements = async (pile: Pile): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let depart: Record<string, unknown> | undefined;
  do {
    const page = await pile.deps.ddb.send(new ScanCommand({ TableName: pile.deps.table, ExclusiveStartKey: depart }));
    items.push(...(page.Items ?? []));
    depart = page.LastEvaluatedKey;
  } while (depart);
  return items;
};

/**
 * Every stored file and record that mentions one of these ids (job, batch, upload, account). An erased
 * job's movements stay (issue 41, point 2: the account's movements add up to its balance), as MOUVEMENT#
 * items that name the account, a date, the tool and the credits, and never the job or its batch: so this
 * scan for the job's and batch's ids still finds nothing, on purpose (a movement carrying the job id would
 * fail it). Tests below check those items themselves.
 */
const traces = async (pile: Pile, ids: string[]) => ({
  fichiers: (await objets(pile)).filter((cle) => ids.some((id) => cle.includes(id))),
  enregistrements: (await elements(pile)).filter((item) => ids.some((id) => JSON.stringify(item).includes(id))).map((item) => String(item.pk)),
});

/** How far the stacks' clock is ahead of the real one: a test moves it to see what happens minutes later. */
let decalage = 0;
const plusTard = async <T>(ms: number, fn: () => Promise<T>): Promise<T> => {
  decalage = ms;
  try {
    return await fn();
  } finally {
    decalage = 0;
  }
};

/** One stack per describe block, its sweeper with no minimum age, handed to the block once started. */
const pileDeTest = (prendre: (pile: Pile) => void, options: Parameters<typeof demarrerPileTest>[0] = {}) => {
  let courante: Pile | undefined;
  beforeAll(async () => {
    courante = await demarrerPileTest({ ageMinimumBalayageMs: 0, horloge: () => new Date(Date.now() + decalage), ...options });
    prendre(courante);
  });
  afterAll(async () => courante?.arreter());
};

const telecharger = async (lien: string) => (await fetch(lien.replace('localhost', '127.0.0.1'))).status;

describe('erasure of ended work', () => {
  let pile: Pile;
  let url: string;
  pileDeTest((p) => ([pile, url] = [p, p.urlBase]));

  const solde = async (cle: string): Promise<number> => (await appeler(url, 'GET', '/solde', { cle })).corps.credits;

  it('DELETE /travaux/{id}: inputs, result, record and the request replay go; links die; credits stay; a replay of its key is a 409', async () => {
    const { cle, compte } = await pile.creerCompte(20);
    const requete = { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)), nom: 'facade-lilas.jpg' }] };
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', { cle, entetes: { 'Idempotency-Key': 'vente-12-rue-des-lilas' }, json: requete });
    expect(lance.statut).toBe(202);
    const id = lance.corps.travaux[0]!.id;
    const fini = await attendreTravail(url, cle, id);
    expect(fini.statut).toBe('termine');
    expect(await telecharger(fini.resultats[0]!.url)).toBe(200);
    const avant = await traces(pile, [id]);
    expect(avant.fichiers.length).toBe(2); // its input and its result
    expect(avant.enregistrements.sort()).toEqual([`IDEM#${compte}#vente-12-rue-des-lilas`, `TRAVAIL#${id}`].sort());
    const credits = await solde(cle);

    // Another account's key sees nothing to erase, and erases nothing.
    const autre = await pile.creerCompte(1);
    expect((await appeler(url, 'DELETE', `/travaux/${id}`, { cle: autre.cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', `/travaux/${id}`, { cle })).statut).toBe(200);

    const { statut, corps } = await appeler(url, 'DELETE', `/travaux/${id}`, { cle });
    expect(statut).toBe(200);
    expect(corps).toMatchObject({ travaux: [id], lots: [], zips_refaits: [], fichiers: 2 });
    expect(await traces(pile, [id])).toEqual({ fichiers: [], enregistrements: [] });
    expect([403, 404]).toContain(await telecharger(fini.resultats[0]!.url));
    expect((await appeler(url, 'GET', `/travaux/${id}`, { cle })).statut).toBe(404);
    expect((await appeler(url, 'DELETE', `/travaux/${id}`, { cle })).statut).toBe(404);
    expect(await solde(cle)).toBe(credits);

    // The key outlives the erasure, without its answer (which named the job and the photo): a replay
    // within its 24 hours starts and charges nothing (issue 21, point 4).
    const cle_ = `IDEM#${compte}#vente-12-rue-des-lilas`;
    const idem = (await elements(pile)).find((item) => item.pk === cle_);
    expect(idem).toMatchObject({ efface_le: expect.any(String) });
    expect(idem).not.toHaveProperty('reponse');
    expect(JSON.stringify(await elements(pile))).not.toContain('facade-lilas');
    // Its debit stays, anonymous: the account, when, the tool, the credits; nothing that leads to the job.
    const mouvements = (await elements(pile)).filter((item) => String(item.pk).startsWith('MOUVEMENT#') && item.compte === compte);
    expect(mouvements).toEqual([expect.objectContaining({ nature: 'debit', credits: -2, outil: 'ciel', date: fini.cree_le })]);
    expect(Object.keys(mouvements[0]!).sort()).toEqual(['compte', 'credits', 'date', 'expire_a', 'gsi1pk', 'gsi1sk', 'nature', 'outil', 'pk', 'sk', 'type']);
    const rejeu = await appeler(url, 'POST', '/travaux', { cle, entetes: { 'Idempotency-Key': 'vente-12-rue-des-lilas' }, json: requete });
    expect(rejeu.statut).toBe(409);
    expect(rejeu.corps.error).toMatchObject({ code: 'work_erased', efface_le: idem!.efface_le });
    expect(idem!.efface_le).toBe(corps.efface_le);
    await pile.attendreInactivite();
    expect(await solde(cle)).toBe(credits);
    expect((await appeler(url, 'GET', '/travaux', { cle })).corps.travaux).toEqual([]);
  });

  it('a job from a direct upload: the upload object and its record go too', async () => {
    const { cle } = await pile.creerCompte(10);
    const photo = await imageTest(2);
    const annonce = await appeler(url, 'POST', '/televersements', {
      cle,
      json: { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: photo.length }] },
    });
    const t = annonce.corps.televersements[0];
    const depot = await fetch(t.url.replace('localhost', '127.0.0.1'), { method: 'PUT', headers: t.entetes, body: photo });
    expect(depot.status).toBe(200);
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ televersement: t.id }] } });
    const id = lance.corps.travaux[0]!.id;
    expect((await attendreTravail(url, cle, id)).statut).toBe('termine');
    expect((await traces(pile, [id, t.id])).fichiers.some((f) => f.startsWith('televersements/'))).toBe(true);
    expect((await appeler(url, 'DELETE', `/travaux/${id}`, { cle })).statut).toBe(200);
    // The upload's URL still lives: its record stays, nameless, until the URL is dead (issue 21, point 6).
    expect(await traces(pile, [id, t.id])).toEqual({ fichiers: [], enregistrements: [`TELEVERSEMENT#${t.id}`] });
    const pierre = (await elements(pile)).find((item) => item.pk === `TELEVERSEMENT#${t.id}`)!;
    expect(pierre).toMatchObject({ statut: 'efface' });
    expect(pierre).not.toHaveProperty('nom');
    // A file PUT with that URL after the erasure is stored by S3, and named by no job…
    expect((await fetch(t.url.replace('localhost', '127.0.0.1'), { method: 'PUT', headers: t.entetes, body: photo })).status).toBe(200);
    expect((await traces(pile, [t.id])).fichiers).toHaveLength(1);
    // …and removed with the record once the URL is dead, by the sweep that follows.
    expect((await pile.balayer()).televersementsRetires).toBe(0);
    expect(await plusTard(20 * 60_000, () => pile.balayer())).toMatchObject({ televersementsRetires: 1 });
    expect(await traces(pile, [id, t.id])).toEqual({ fichiers: [], enregistrements: [] });
  });

  it('a job of a batch leaves it; the batch ZIP is written again without it; then DELETE /lots erases the rest', async () => {
    const { cle, compte } = await pile.creerCompte(20);
    const images = await Promise.all([1, 2, 3].map(async (n) => ({ base64: enBase64(await imageTest(n)), nom: `piece-${n}.jpg` })));
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
    const lotId = lance.corps.lot!;
    const [a, b, c] = lance.corps.travaux.map((t) => t.id) as [string, string, string];
    const lot = await attendreLot(url, cle, lotId);
    expect(lot.statut).toBe('termine');
    const ancienZip = lot.zip!.url;
    const credits = await solde(cle);

    const un = await appeler(url, 'DELETE', `/travaux/${b}`, { cle });
    expect(un.statut).toBe(200);
    expect(un.corps).toMatchObject({ travaux: [b], lots: [], zips_refaits: [lotId], fichiers: 3 });
    expect(await traces(pile, [b])).toEqual({ fichiers: [], enregistrements: [] });
    expect((await objets(pile)).filter((k) => k.startsWith(`zips/${compte}/`))).toEqual([]);
    const pendant = (await appeler<Lot>(url, 'GET', `/lots/${lotId}`, { cle })).corps;
    expect(pendant).toMatchObject({ statut: 'termine', total: 2, termines: 2, echecs: 0, en_cours: 0, zip: null });
    expect(pendant.travaux.map((t) => t.id)).toEqual([a, c]);

    // The sweeper writes the ZIP again, from the two jobs left.
    expect((await pile.balayer()).lotsFinalises).toBe(1);
    const refait = (await appeler<Lot>(url, 'GET', `/lots/${lotId}`, { cle })).corps;
    expect(refait.statut).toBe('termine');
    const contenu = async (lien: string) => lireZip(Buffer.from(await (await fetch(lien.replace('localhost', '127.0.0.1'))).arrayBuffer()));
    const zip = [...(await contenu(refait.zip!.url)).keys()];
    expect(zip).toEqual(['01-piece-1-ciel.jpg', '03-piece-3-ciel.jpg']);
    // A link signed before the erasure names the same key: it now serves the ZIP without the erased photo.
    expect((await contenu(ancienZip)).size).toBe(2);

    const tout = await appeler(url, 'DELETE', `/lots/${lotId}`, { cle });
    expect(tout.statut).toBe(200);
    expect(tout.corps).toMatchObject({ travaux: [a, c], lots: [lotId], zips_refaits: [], fichiers: 5 });
    expect(await traces(pile, [a, b, c, lotId])).toEqual({ fichiers: [], enregistrements: [] });
    expect([403, 404]).toContain(await telecharger(refait.zip!.url));
    expect((await appeler(url, 'GET', `/lots/${lotId}`, { cle })).statut).toBe(404);
    expect(await solde(cle)).toBe(credits);
  });

  it('a failed, refunded job is erasable; the batch is written again as it now is; its last job takes the batch with it', async () => {
    const { cle } = await pile.creerCompte(20);
    // A flat photo has nothing to remove: that job fails (rien_a_retirer) and is refunded.
    const plate = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#8a8a8a' } })
      .jpeg()
      .toBuffer();
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: {
        outil: 'vider',
        images: [
          { base64: enBase64(await imageTest(1)), nom: 'a.jpg' },
          { base64: enBase64(plate), nom: 'b.jpg' },
        ],
      },
    });
    const lotId = lance.corps.lot!;
    const lot = await attendreLot(url, cle, lotId);
    expect(lot.statut).toBe('partiel');
    const [x, y] = lot.travaux as [Travail, Travail];
    expect([x.statut, y.statut, y.rembourse]).toEqual(['termine', 'echec', true]);
    const credits = await solde(cle);

    expect((await appeler(url, 'DELETE', `/travaux/${y.id}`, { cle })).corps).toMatchObject({ travaux: [y.id], zips_refaits: [lotId], fichiers: 2 }); // its input and the batch's ZIP
    await pile.balayer();
    expect((await appeler<Lot>(url, 'GET', `/lots/${lotId}`, { cle })).corps).toMatchObject({ statut: 'termine', total: 1, termines: 1, echecs: 0 });
    const dernier = await appeler(url, 'DELETE', `/travaux/${x.id}`, { cle });
    expect(dernier.corps).toMatchObject({ travaux: [x.id], lots: [lotId], zips_refaits: [] });
    expect(await traces(pile, [x.id, y.id, lotId])).toEqual({ fichiers: [], enregistrements: [] });
    expect(await solde(cle)).toBe(credits);
  });
});

describe('erasure under races and faults', () => {
  let pile: Pile;
  let url: string;
  pileDeTest((p) => ([pile, url] = [p, p.urlBase]));

  const batch = async (cle: string, n: number) => {
    const images = await Promise.all(Array.from({ length: n }, async (_, i) => ({ base64: enBase64(await imageTest(i + 1)), nom: `p${i}.jpg` })));
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
    const lot = await attendreLot(url, cle, lance.corps.lot!);
    return { lotId: lot.id, ids: lot.travaux.map((t) => t.id) };
  };

  it('every job of a batch erased at once: each answer is 200 (or 409, then the sweeper), and nothing is left', async () => {
    // Several rounds: the interleavings differ from one to the next (two removals of different jobs from
    // one list once both passed, and the batch outlived its last job).
    for (let tour = 0; tour < 4; tour++) {
      const { cle } = await pile.creerCompte(20);
      const { lotId, ids } = await batch(cle, 5);
      const reponses = await Promise.all(ids.map((id) => appeler(url, 'DELETE', `/travaux/${id}`, { cle })));
      expect(
        reponses.every((r) => r.statut === 200 || r.statut === 409),
        JSON.stringify(reponses.map((r) => r.corps)),
      ).toBe(true);
      // Exactly one erasure took the batch with it, unless the last ones were left to the sweeper.
      expect(reponses.filter((r) => r.statut === 200 && r.corps.lots.length === 1).length).toBeLessThanOrEqual(1);
      await pile.balayer();
      expect(await traces(pile, [...ids, lotId]), `round ${tour}`).toEqual({ fichiers: [], enregistrements: [] });
    }
  });

  it('a job cannot leave a batch while its ZIP is being written: 409, then erased once the claim is gone', async () => {
    const { cle } = await pile.creerCompte(20);
    const { lotId, ids } = await batch(cle, 2);
    // A ZIP writer holds the batch (core/domaine/lots.ts).
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const lots = await import('../../lambdas/core/depots/lots');
    const tenir = (jusqua: number) =>
      pile.deps.ddb.send(
        new UpdateCommand({
          TableName: pile.deps.table,
          Key: lots.cleItem(lotId),
          UpdateExpression: 'SET finaliseur = :f, reclame_jusqua = :j',
          ExpressionAttributeValues: { ':f': 'FinaliserLot', ':j': jusqua },
        }),
      );
    await tenir(Date.now() + 60_000);
    expect((await appeler(url, 'DELETE', `/travaux/${ids[0]}`, { cle })).statut).toBe(409);
    expect((await appeler(url, 'DELETE', `/lots/${lotId}`, { cle })).statut).toBe(409);
    expect(await pile.balayer()).toMatchObject({ effacements: 0 });
    expect((await appeler(url, 'GET', `/travaux/${ids[0]}`, { cle })).statut).toBe(200);
    // The writer died; its claim expires; the next sweep does both erasures.
    await tenir(Date.now() - 1);
    expect((await pile.balayer()).effacements).toBeGreaterThanOrEqual(1);
    await pile.balayer();
    expect(await traces(pile, [...ids, lotId])).toEqual({ fichiers: [], enregistrements: [] });
  });

  it('an erasure cut short (storage fails midway, or the process dies between records) is finished by the same call repeated', async () => {
    const { cle } = await pile.creerCompte(20);
    const seul = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] } });
    const id = seul.corps.travaux[0]!.id;
    await attendreTravail(url, cle, id);
    const { effacerTravailEnregistre } = await import('../../lambdas/core/domaine/effacement/travail');
    const { effacerLotEnregistre } = await import('../../lambdas/core/domaine/effacement/lot');
    const { lire: lireEnregistrementTravail } = await import('../../lambdas/core/depots/travaux');
    const { lire: lireEnregistrementLot } = await import('../../lambdas/core/depots/lots');

    // S3 deletes one key, then fails: the record still names everything, the job still answers.
    const panneS3 = {
      ...pile.deps,
      objets: {
        ...pile.deps.objets,
        supprimer: async (c: readonly string[]) => {
          await pile.deps.objets.supprimer(c.slice(0, 1));
          throw new Error('S3 down');
        },
      },
    };
    await expect(effacerTravailEnregistre(panneS3, (await lireEnregistrementTravail(pile.deps, id))!)).rejects.toThrow('S3 down');
    expect((await appeler(url, 'GET', `/travaux/${id}`, { cle })).statut).toBe(200);
    expect((await appeler(url, 'DELETE', `/travaux/${id}`, { cle })).statut).toBe(200);
    expect(await traces(pile, [id])).toEqual({ fichiers: [], enregistrements: [] });

    // A batch erasure dies after its first job's records: the batch stays claimed by the erasure, and the next one takes over.
    const { lotId, ids } = await batch(cle, 3);
    let transactions = 0;
    const envoyer = pile.deps.ddb.send.bind(pile.deps.ddb);
    const panneDdb = {
      ...pile.deps,
      ddb: {
        send: (commande: { constructor: { name: string } }) => {
          if (commande.constructor.name === 'TransactWriteCommand' && ++transactions === 2) throw new Error('process died');
          return envoyer(commande as never);
        },
      } as unknown as typeof pile.deps.ddb,
    };
    await expect(effacerLotEnregistre(panneDdb, (await lireEnregistrementLot(pile.deps, lotId))!)).rejects.toThrow('process died');
    expect((await appeler(url, 'GET', `/lots/${lotId}`, { cle })).statut).toBe(200);
    const fin = await appeler(url, 'DELETE', `/lots/${lotId}`, { cle });
    expect(fin.statut).toBe(200);
    expect(await traces(pile, [...ids, lotId])).toEqual({ fichiers: [], enregistrements: [] });
  });
});

describe('an erasure and a ZIP writer, in every order (issue 21, point 5)', () => {
  let pile: Pile;
  let url: string;
  pileDeTest((p) => ([pile, url] = [p, p.urlBase]));

  const lot3 = async (cle: string, cleIdempotence?: string) => {
    const images = await Promise.all([1, 2, 3].map(async (n) => ({ base64: enBase64(await imageTest(n)), nom: `piece-${n}.jpg` })));
    const requete = { outil: 'ciel', images };
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: requete,
      ...(cleIdempotence ? { entetes: { 'Idempotency-Key': cleIdempotence } } : {}),
    });
    const lot = await attendreLot(url, cle, lance.corps.lot!);
    expect(lot.statut).toBe('termine');
    return { lotId: lot.id, ids: lot.travaux.map((t) => t.id) as [string, string, string], requete };
  };
  const lireLot = async (id: string) => {
    const { lire: lireEnregistrementLot } = await import('../../lambdas/core/depots/lots');
    return lireEnregistrementLot(pile.deps, id);
  };
  const contenuZip = async (cle: string, lotId: string) => {
    const lot = (await appeler<Lot>(url, 'GET', `/lots/${lotId}`, { cle })).corps;
    if (!lot.zip) return null;
    return [...(await lireZip(Buffer.from(await (await fetch(lot.zip.url.replace('localhost', '127.0.0.1'))).arrayBuffer()))).keys()];
  };
  const finaliser = async (lotId: string, d = pile.deps) => (await import('../../lambdas/core/domaine/lots')).finaliserLot(d, lotId, 'balayeur');
  const effacerTravail = async (id: string, d = pile.deps) => {
    const { effacerTravailEnregistre } = await import('../../lambdas/core/domaine/effacement/travail');
    const { lire: lireEnregistrementTravail } = await import('../../lambdas/core/depots/travaux');
    return effacerTravailEnregistre(d, (await lireEnregistrementTravail(pile.deps, id))!);
  };

  it('the erasure takes the batch before deleting a file: a ZIP writer that comes meanwhile writes nothing, and the ZIP comes back without the job', async () => {
    const { cle } = await pile.creerCompte(20);
    const { lotId, ids } = await lot3(cle);
    // A first erasure leaves the batch to be written again; the second is held after its claim, inside its S3 deletes.
    expect((await appeler(url, 'DELETE', `/travaux/${ids[0]}`, { cle })).statut).toBe(200);
    let reprendre!: () => void;
    const reprise = new Promise<void>((r) => (reprendre = r));
    let enPause!: () => void;
    const pause = new Promise<void>((r) => (enPause = r));
    const lente = {
      ...pile.deps,
      objets: {
        ...pile.deps.objets,
        supprimer: async (c: readonly string[]) => {
          enPause();
          await reprise;
          await pile.deps.objets.supprimer(c);
        },
      },
    };
    const effacement = effacerTravail(ids[1], lente);
    await pause;
    expect((await lireLot(lotId))?.finaliseur).toBe(`effacement:${ids[1]}`);
    expect(await finaliser(lotId)).toEqual({ finalise: false });
    reprendre();
    expect(await effacement).toMatchObject({ statut: 'efface' });
    expect((await lireLot(lotId))?.finaliseur).toBeUndefined();
    await pile.balayer();
    expect(await contenuZip(cle, lotId)).toEqual(['03-piece-3-ciel.jpg']);
    expect(await traces(pile, [ids[0], ids[1]])).toEqual({ fichiers: [], enregistrements: [] });
  });

  it('an erasure cut short after its files leaves its request and its claim: the sweeper finishes it, then the ZIP comes back', async () => {
    const { cle } = await pile.creerCompte(20);
    const { lotId, ids } = await lot3(cle);
    const envoyer = pile.deps.ddb.send.bind(pile.deps.ddb);
    const meurt = {
      ...pile.deps,
      ddb: {
        send: (c: { constructor: { name: string } }) =>
          c.constructor.name === 'TransactWriteCommand' ? Promise.reject(new Error('process died')) : envoyer(c as never),
      } as unknown as typeof pile.deps.ddb,
    };
    await expect(effacerTravail(ids[1], meurt)).rejects.toThrow('process died');
    // Its files are gone, its record and the batch's list still name it; the claim is the erasure's.
    expect((await traces(pile, [ids[1]])).enregistrements.sort()).toEqual([`EFFACEMENT#${ids[1]}`, `LOT#${lotId}`, `TRAVAIL#${ids[1]}`]);
    expect((await lireLot(lotId))?.finaliseur).toBe(`effacement:${ids[1]}`);
    expect(await finaliser(lotId)).toEqual({ finalise: false });
    expect(await pile.balayer()).toMatchObject({ effacements: 1 });
    await pile.balayer();
    expect(await contenuZip(cle, lotId)).toEqual(['01-piece-1-ciel.jpg', '03-piece-3-ciel.jpg']);
    expect(await traces(pile, [ids[1]])).toEqual({ fichiers: [], enregistrements: [] });
    expect(await lireLot(lotId)).toMatchObject({ total: 2, termines: 2, restants: 0, statut: 'termine' });
  });

  it('a writer that takes over the expired claim of a dead erasure leaves its job out instead of failing on its missing files; nothing waits for ever', async () => {
    const { cle } = await pile.creerCompte(20);
    const { lotId, ids } = await lot3(cle);
    // An earlier erasure asked for the ZIP to be written again; this one dies after its files.
    expect((await appeler(url, 'DELETE', `/travaux/${ids[0]}`, { cle })).statut).toBe(200);
    const envoyer = pile.deps.ddb.send.bind(pile.deps.ddb);
    const meurt = {
      ...pile.deps,
      ddb: {
        send: (c: { constructor: { name: string } }) =>
          c.constructor.name === 'TransactWriteCommand' ? Promise.reject(new Error('process died')) : envoyer(c as never),
      } as unknown as typeof pile.deps.ddb,
    };
    await expect(effacerTravail(ids[1], meurt)).rejects.toThrow('process died');
    // 13 minutes on, the erasure's claim has expired: a writer takes the batch and writes the ZIP from what is whole.
    await plusTard(13 * 60_000, async () => expect(await finaliser(lotId)).toEqual({ finalise: true }));
    expect(await contenuZip(cle, lotId)).toEqual(['03-piece-3-ciel.jpg']);
    // The recorded erasure is finished by the next sweep, which has the ZIP written again: three sweeps at most.
    for (let i = 0; i < 3; i++) await pile.balayer();
    expect(await traces(pile, [ids[0], ids[1]])).toEqual({ fichiers: [], enregistrements: [] });
    expect(await lireLot(lotId)).toMatchObject({ total: 1, statut: 'termine' });
    expect((await lireLot(lotId))?.finaliseur).toBeUndefined();
    expect(await contenuZip(cle, lotId)).toEqual(['03-piece-3-ciel.jpg']);
  });

  it('a ZIP attempt that fails gives its claim back at once: an erasure then goes through, not 409', async () => {
    const { cle } = await pile.creerCompte(20);
    const { lotId, ids } = await lot3(cle);
    expect((await appeler(url, 'DELETE', `/travaux/${ids[0]}`, { cle })).statut).toBe(200);
    const envoyerS3 = pile.deps.s3.send.bind(pile.deps.s3);
    const s3EnPanne = {
      send: (c: { constructor: { name: string } }) =>
        c.constructor.name === 'GetObjectCommand' ? Promise.reject(new Error('S3 down')) : envoyerS3(c as never),
    } as unknown as typeof pile.deps.s3;
    await expect(finaliser(lotId, { ...pile.deps, s3: s3EnPanne })).rejects.toThrow('S3 down');
    expect((await lireLot(lotId))?.finaliseur).toBeUndefined();
    expect((await appeler(url, 'DELETE', `/travaux/${ids[1]}`, { cle })).statut).toBe(200);
    await pile.balayer();
    expect(await contenuZip(cle, lotId)).toEqual(['03-piece-3-ciel.jpg']);
  });

  it('erasing one job of a batch keeps its Idempotency-Key: the replay is a 409 work_erased, nothing started or charged', async () => {
    const { cle } = await pile.creerCompte(20);
    const { ids, requete } = await lot3(cle, 'lot-rue-haute');
    const credits = (await appeler(url, 'GET', '/solde', { cle })).corps.credits;
    expect((await appeler(url, 'DELETE', `/travaux/${ids[2]}`, { cle })).statut).toBe(200);
    for (let i = 0; i < 2; i++) {
      const rejeu = await appeler(url, 'POST', '/travaux', { cle, entetes: { 'Idempotency-Key': 'lot-rue-haute' }, json: requete });
      expect(rejeu).toMatchObject({ statut: 409, corps: { error: { code: 'work_erased' } } });
    }
    // Another body with that key is still a 422: the key stays bound to its request.
    expect(
      (await appeler(url, 'POST', '/travaux', { cle, entetes: { 'Idempotency-Key': 'lot-rue-haute' }, json: { ...requete, images: requete.images.slice(1) } }))
        .statut,
    ).toBe(422);
    await pile.attendreInactivite();
    expect((await appeler(url, 'GET', '/solde', { cle })).corps.credits).toBe(credits);
    expect((await appeler(url, 'GET', '/travaux?limite=100', { cle })).corps.travaux).toHaveLength(2);
  });
});

describe('erasure of work still running', () => {
  let pile: Pile;
  let url: string;
  pileDeTest((p) => ([pile, url] = [p, p.urlBase]), { delaiMoteurMs: 1500 });

  it('a running job answers 409 and is erased by the sweeper once it has ended; so is a running batch', async () => {
    const { cle } = await pile.creerCompte(20);
    const seul = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] } });
    const id = seul.corps.travaux[0]!.id;
    const lot = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(2)) }, { base64: enBase64(await imageTest(3)) }] },
    });
    const lotId = lot.corps.lot!;
    const ids = [id, lotId, ...lot.corps.travaux.map((t) => t.id)];

    const refus = await appeler(url, 'DELETE', `/travaux/${id}`, { cle });
    expect(refus.statut).toBe(409);
    expect(refus.corps.error).toMatchObject({ code: 'still_running', effacement: 'programme' });
    expect((await appeler(url, 'DELETE', `/lots/${lotId}`, { cle })).statut).toBe(409);
    // Asked twice: still one erasure.
    expect((await appeler(url, 'DELETE', `/travaux/${id}`, { cle })).statut).toBe(409);

    // Nothing is erased before the work ends: the job runs to its end and is charged as usual.
    expect((await attendreTravail(url, cle, id)).statut).toBe('termine');
    expect((await attendreLot(url, cle, lotId)).statut).toBe('termine');
    const bilan = await pile.balayer();
    expect(bilan.effacements).toBe(2);
    expect(await traces(pile, ids)).toEqual({ fichiers: [], enregistrements: [] });
    expect((await appeler(url, 'GET', `/travaux/${id}`, { cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', `/lots/${lotId}`, { cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', '/solde', { cle })).corps.credits).toBe(20 - 3 * 2);
  });

  it('an erasure that waits past its bound is counted late by the sweep (it alarms), then done once its work has ended', async () => {
    const { cle, compte } = await pile.creerCompte(10);
    const lance = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(2)) }] } });
    const id = lance.corps.travaux[0]!.id;
    // Recorded three hours ago, as if its job had been stuck all that time.
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { OUVERTS } = await import('../../lambdas/core/depots/table');
    const effacements = await import('../../lambdas/core/depots/effacements');
    const { BORNE_EFFACEMENT_MS } = await import('../../lambdas/core/domaine/balayage');
    const demande_le = new Date(Date.now() - 3 * 3600_000).toISOString();
    expect(3 * 3600_000).toBeGreaterThan(BORNE_EFFACEMENT_MS);
    await pile.deps.ddb.send(
      new PutCommand({
        TableName: pile.deps.table,
        Item: {
          ...effacements.cleItem(id),
          type: 'effacement',
          quoi: 'travail',
          id,
          compte,
          demande_le,
          gsi3pk: OUVERTS.effacements,
          gsi3sk: `${demande_le}#${id}`,
        },
      }),
    );
    expect(await pile.balayer()).toMatchObject({ effacements: 0, effacementsEnRetard: 1 });
    await attendreTravail(url, cle, id);
    expect(await pile.balayer()).toMatchObject({ effacements: 1, effacementsEnRetard: 0 });
    expect((await appeler(url, 'GET', `/travaux/${id}`, { cle })).statut).toBe(404);
  });

  it('a whole account: everything ended goes at once, unused uploads too; running work goes when it ends', async () => {
    const { cle, compte } = await pile.creerCompte(30);
    // Webhooks, and so deliveries (to a host this machine cannot reach: attempts that fail, logged): one kept
    // until the erasure, one removed before it, one whose removal was cut short before its deliveries went.
    const webhook = async () => {
      const r = await appeler(url, 'POST', '/webhooks', { cle, json: { url: 'https://example.com/hook', evenements: ['travail.fini', 'lot.fini'] } });
      expect(r.statut).toBe(201);
      return r.corps.id as string;
    };
    const [, retire, coupe] = [await webhook(), await webhook(), await webhook()];
    const fini = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] } });
    const lot = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(2)) }, { base64: enBase64(await imageTest(3)) }] },
    });
    await attendreTravail(url, cle, fini.corps.travaux[0]!.id);
    await attendreLot(url, cle, lot.corps.lot!);
    const photo = await imageTest(2);
    const annonce = await appeler(url, 'POST', '/televersements', {
      cle,
      json: { fichiers: [{ nom: 'jamais-servi.jpg', type: 'image/jpeg', taille: photo.length }] },
    });
    const t = annonce.corps.televersements[0];
    await fetch(t.url.replace('localhost', '127.0.0.1'), { method: 'PUT', headers: t.entetes, body: photo });
    const enCours = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] } });
    const enCoursId = enCours.corps.travaux[0]!.id;
    const credits = (await appeler(url, 'GET', '/solde', { cle })).corps.credits;
    const idsTravaux = [fini.corps.travaux[0]!.id, ...lot.corps.travaux.map((t) => t.id), lot.corps.lot!];

    // An endpoint removed takes its deliveries with it, at once.
    const livraisonsDe = async (w: string) => (await elements(pile)).filter((item) => item.genre === 'livraison' && item.webhook === w);
    expect((await livraisonsDe(retire)).length).toBeGreaterThanOrEqual(2);
    expect((await appeler(url, 'DELETE', `/webhooks/${retire}`, { cle })).statut).toBe(204);
    expect(await livraisonsDe(retire)).toEqual([]);
    // A removal cut short between the endpoint and its deliveries: they are left, naming the account and its jobs.
    await webhooksDepot.supprimer(pile.deps, (await webhooksDepot.lire(pile.deps, coupe))!);
    expect((await livraisonsDe(coupe)).length).toBeGreaterThanOrEqual(2);

    const lister = async (prefixe: string) => (await objets(pile)).filter((k) => k.startsWith(prefixe));
    const bilan = await effacerCompte(pile.deps, compte, lister);
    expect(bilan).toMatchObject({ compte, travaux: 3, lots: 1, televersements: 1, webhooks: 1, differes: [enCoursId] });
    // What the running job needs is still there; nothing else of the account is.
    expect((await objets(pile)).filter((k) => k.includes(compte)).every((k) => k.includes(enCoursId))).toBe(true);
    expect(await attendreTravail(url, cle, enCoursId)).toMatchObject({ statut: 'termine' });
    await pile.balayer();
    expect((await objets(pile)).filter((k) => k.includes(compte))).toEqual([]);
    // The unused upload's URL may still put a file for a few minutes: its record waits, nameless, for that.
    const pierres = (await elements(pile)).filter((item) => JSON.stringify(item).includes(compte) && String(item.pk).startsWith('TELEVERSEMENT#'));
    expect(pierres).toEqual([expect.objectContaining({ statut: 'efface' })]);
    expect(JSON.stringify(pierres)).not.toContain('jamais-servi');
    await plusTard(20 * 60_000, () => pile.balayer());
    const restes = (await elements(pile)).filter((item) => JSON.stringify(item).includes(compte)).map((item) => String(item.pk).split('#')[0]);
    // The account, its key and the record of its credits stay (and the balance is untouched): the account is not
    // closed, its work is erased. Its erased jobs' movements stay too, anonymous (MOUVEMENT#: date, tool, credits),
    // so its movements still add up to its balance; the scan below checks that none names a job or batch.
    expect([...new Set(restes)].sort()).toEqual(['APPORT', 'CLE', 'COMPTE', 'MOUVEMENT']);
    // And nothing names its jobs or batches: no delivery, no erasure request, no stored answer.
    expect((await traces(pile, [...idsTravaux, enCoursId])).enregistrements).toEqual([]);
    expect((await appeler(url, 'GET', '/solde', { cle })).corps.credits).toBe(credits);
    // Its upload no longer counts against the cap of outstanding uploads.
    expect((await elements(pile)).find((item) => item.pk === `COMPTE#${compte}`)).toMatchObject({ televersements_ouverts: 0 });
  });
});
