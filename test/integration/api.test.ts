/**
 * The whole service through HTTP, as a customer uses it: the real handlers behind the local gateway,
 * the real state machine (ASL) run by the local Step Functions, DynamoDB Local and the local S3.
 */
import sharp from 'sharp';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lancement, Travail } from '../../lambdas/core/modele/enregistrements';
import { SchemaLancement, SchemaOutils, SchemaTravail } from '../../lambdas/core/contrat/openapi/schemas';
import { pilePartagee, type PileTest } from '../support/pile';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest, pieceTest } from '../support/client';
import { lireZip } from '../support/zip';

type Pile = PileTest;
let pile: Pile;
let url: string;

beforeAll(async () => {
  pile = await pilePartagee();
  url = pile.urlBase;
});
afterAll(async () => pile?.arreter());

const solde = async (cle: string): Promise<number> => (await appeler(url, 'GET', '/solde', { cle })).corps.credits;

describe('public documents', () => {
  it('GET /outils needs no key and describes every tool and setting', async () => {
    const { statut, corps } = await appeler(url, 'GET', '/outils');
    expect(statut).toBe(200);
    expect(v.safeParse(SchemaOutils, corps).success).toBe(true);
    expect(corps.outils.map((o: { id: string; cout: number }) => [o.id, o.cout])).toEqual([
      ['vider', 4],
      ['staging', 5],
      ['renovation', 8],
      ['saison', 3],
      ['ciel', 2],
      ['annonce', 3],
      ['fusion', 2],
    ]);
  });

  it('GET /openapi.json serves the OpenAPI 3.1 document without a key', async () => {
    const { statut, corps } = await appeler(url, 'GET', '/openapi.json');
    expect(statut).toBe(200);
    expect(corps.openapi).toBe('3.1.0');
  });

  it('unknown routes and methods answer an Erreur', async () => {
    const inconnu = await appeler(url, 'GET', '/nulle-part');
    expect(inconnu.statut).toBe(404);
    expect(inconnu.corps.error.code).toBe('not_found');
    const methode = await appeler(url, 'DELETE', '/outils');
    expect(methode.statut).toBe(405);
    expect(methode.entetes.get('allow')).toBe('GET');
  });
});

describe('authentication', () => {
  it('401 without a key, with a wrong key, and with a revoked key', async () => {
    expect((await appeler(url, 'GET', '/solde')).statut).toBe(401);
    expect((await appeler(url, 'GET', '/solde', { cle: 'rtch_inconnue' })).statut).toBe(401);
    expect((await appeler(url, 'GET', '/travaux', { entetes: { Authorization: 'Basic abc' } })).statut).toBe(401);
    const { cle } = await pile.creerCompte(10);
    expect(await solde(cle)).toBe(10);
    const { revoquerCle } = await import('../../lambdas/core/domaine/comptes');
    await revoquerCle(pile.deps, cle);
    const refuse = await appeler(url, 'GET', '/solde', { cle });
    expect(refuse.statut).toBe(401);
    expect(refuse.corps.error.code).toBe('unauthorized');
  });
});

describe('one job, from request to download', () => {
  it('runs a ciel job: 202 en_attente, then termine with a signed link to a real image; credits debited once', async () => {
    const { cle } = await pile.creerCompte(10);
    const source = await imageTest(1);
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ base64: enBase64(source), nom: 'jardin.jpg' }] },
    });
    expect(statut).toBe(202);
    expect(v.safeParse(SchemaLancement, corps).issues).toBeUndefined();
    expect(corps).toMatchObject({ lot: null, outil: 'ciel', cout_total: 2, echecs: [] });
    expect(corps.travaux).toHaveLength(1);
    expect(corps.travaux[0]).toMatchObject({ statut: 'en_attente', resultats: [], rembourse: false, nom: 'jardin.jpg', source: 'api', cout: 2 });
    expect(await solde(cle)).toBe(8);

    const fini = await attendreTravail(url, cle, corps.travaux[0]!.id);
    expect(fini.statut).toBe('termine');
    expect(fini.commence_le).not.toBeNull();
    expect(fini.termine_le).not.toBeNull();
    expect(fini.resultats).toHaveLength(1);
    const lien = fini.resultats[0]!;
    const ecart = Date.parse(lien.expire_le) - Date.now();
    expect(ecart).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(ecart).toBeLessThanOrEqual(24 * 3600_000);

    const telechargement = await fetch(lien.url);
    expect(telechargement.status).toBe(200);
    const resultat = Buffer.from(await telechargement.arrayBuffer());
    const meta = await sharp(resultat).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([96, 64, 'jpeg']);
    expect(resultat.equals(source)).toBe(false);
    // The structure check it passed is on the job (our extension); nothing before the job is done.
    expect(fini.structure).toMatchObject({ seuil: 0.6, essais: 1 });
    expect(fini.structure!.score).toBeGreaterThanOrEqual(0.6);
    expect(corps.travaux[0]!.structure).toBeNull();

    const falsifie = new URL(lien.url);
    falsifie.searchParams.set('Expires', String(Number(falsifie.searchParams.get('Expires')) + 3600));
    expect((await fetch(falsifie)).status).toBe(403);
    expect(await solde(cle)).toBe(8);
  });

  it('vider on a photo with nothing to remove ends in echec rien_a_retirer, refunded, instead of repainting the room', async () => {
    const { cle } = await pile.creerCompte(10);
    const ciel = await sharp({ create: { width: 160, height: 120, channels: 3, background: { r: 120, g: 170, b: 230 } } })
      .jpeg()
      .toBuffer();
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json: { outil: 'vider', images: [{ base64: enBase64(ciel) }] } });
    expect(statut).toBe(202);
    // Charged (the balance may already be back: the job can fail and be refunded before the next request).
    expect(corps.cout_total).toBe(4);
    const fini = await attendreTravail(url, cle, corps.travaux[0]!.id);
    expect(fini).toMatchObject({ statut: 'echec', rembourse: true, resultats: [], structure: null });
    expect(fini.erreur).toEqual({ code: 'rien_a_retirer', message: 'No furniture or clutter was found in this photo: there is nothing to remove.' });
    expect(await solde(cle)).toBe(10);
  });

  it('an annonce job writes a Markdown listing in the requested language', async () => {
    const { cle } = await pile.creerCompte(10);
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'annonce', valeurs: { lieu: 'Gent', langue: 'French', atouts: 'jardin, terrasse' } },
    });
    expect(statut).toBe(202);
    expect(corps.travaux[0]!.valeurs).toEqual({ lieu: 'Gent', langue: 'French', atouts: 'jardin, terrasse' });
    const fini = await attendreTravail(url, cle, corps.travaux[0]!.id);
    expect(fini.statut).toBe('termine');
    expect(fini.texte).toContain('Gent');
    expect(fini.texte).toContain('terrasse');
    // Said on the job, for platforms that must show it: machine-written, and by what.
    expect(fini.redaction).toEqual({ automatique: true, intelligence_artificielle: false, modele: 'retouche-modele-local (template, no AI model)' });
    expect(corps.travaux[0]!.redaction).toBeNull();
    expect(fini.structure).toBeNull();
    expect(await solde(cle)).toBe(7);
  });

  it('a job whose image URL is refused (SSRF) fails with its erreur and is refunded', async () => {
    const { cle } = await pile.creerCompte(10);
    const { corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'vider', images: [{ url: 'https://localhost/latest/meta-data/iam' }] },
    });
    // The debit happened (the job may already be refunded by the time the balance is read).
    expect(corps.cout_total).toBe(4);
    const fini = await attendreTravail(url, cle, corps.travaux[0]!.id);
    expect(fini).toMatchObject({ statut: 'echec', rembourse: true, resultats: [] });
    expect(fini.erreur?.code).toBe('url_refusee');
    expect(await solde(cle)).toBe(10);
  });
});

describe('batches', () => {
  it('a batch runs one job per image and ends termine with a ZIP of every result', async () => {
    const { cle } = await pile.creerCompte(100);
    const images = await Promise.all([1, 2, 3].map((g) => pieceTest(g)));
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'staging', valeurs: { style: 'japandi' }, images: images.map((i, n) => ({ base64: enBase64(i), nom: `piece-${n}.jpg` })) },
    });
    expect(statut).toBe(202);
    expect(corps.lot).not.toBeNull();
    expect(corps.cout_total).toBe(15);
    expect(corps.travaux.every((t) => t.lot === corps.lot && t.valeurs.style === 'japandi' && t.valeurs.piece === 'living room')).toBe(true);

    const lot = await attendreLot(url, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'termine', total: 3, termines: 3, echecs: 0, en_cours: 0 });
    expect(lot.travaux.map((t) => t.nom)).toEqual(['piece-0.jpg', 'piece-1.jpg', 'piece-2.jpg']);
    const zip = await fetch(lot.zip!.url);
    expect(zip.status).toBe(200);
    const entrees = await lireZip(Buffer.from(await zip.arrayBuffer()));
    expect([...entrees.keys()]).toHaveLength(3);
    for (const octets of entrees.values()) expect((await sharp(octets).metadata()).width).toBe(96);
    expect(await solde(cle)).toBe(85);
  });

  it('a batch with a failed job ends partiel: counters exact, the failed job refunded, the ZIP holds the rest', async () => {
    const { cle } = await pile.creerCompte(100);
    const { corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: {
        outil: 'saison',
        images: [{ base64: enBase64(await imageTest(4)) }, { url: 'https://127.0.0.1/interdit.jpg' }, { base64: enBase64(await imageTest(5, 'png')) }],
      },
    });
    expect(corps.cout_total).toBe(9);
    const lot = await attendreLot(url, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'partiel', total: 3, termines: 2, echecs: 1, en_cours: 0 });
    expect(lot.travaux[1]).toMatchObject({ statut: 'echec', rembourse: true });
    const entrees = await lireZip(Buffer.from(await (await fetch(lot.zip!.url)).arrayBuffer()));
    expect(entrees.size).toBe(2);
    expect(await solde(cle)).toBe(94);
  });

  it('unreadable images are listed in echecs and cost nothing; the others start', async () => {
    const { cle } = await pile.creerCompte(100);
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ base64: enBase64(Buffer.from('pas une image')) }, { base64: enBase64(await imageTest(6)) }] },
    });
    expect(statut).toBe(202);
    expect(corps.echecs).toEqual([{ index: 0, code: 'invalid_image', message: expect.any(String) }]);
    expect(corps.travaux).toHaveLength(1);
    expect(corps.cout_total).toBe(2);
    expect(await solde(cle)).toBe(98);
    const lot = await attendreLot(url, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'termine', total: 1 });
  });
});

describe('multipart', () => {
  it('takes files under any part name, repeated image_url and settings as parts', async () => {
    const { cle } = await pile.creerCompte(100);
    const formulaire = new FormData();
    formulaire.append('outil', 'renovation');
    formulaire.append('zone', 'interieur');
    formulaire.append('photo', new Blob([await imageTest(7)]), 'cuisine.jpg');
    formulaire.append('autre', new Blob([await imageTest(8, 'webp')]), 'salle de bain.webp');
    formulaire.append('image_url', 'https://127.0.0.2/a.jpg');
    formulaire.append('image_url', 'https://[::1]/b.jpg');
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', { cle, corps: formulaire });
    expect(statut).toBe(202);
    expect(corps.travaux.map((t) => t.nom)).toEqual(['cuisine.jpg', 'salle de bain.webp', 'a.jpg', 'b.jpg']);
    expect(corps.travaux[0]!.valeurs).toEqual({ zone: 'interieur', niveau: 'complete', style: 'contemporary', floutage: 'none' });
    expect(corps.cout_total).toBe(32);
    const lot = await attendreLot(url, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'partiel', termines: 2, echecs: 2 });
    expect(await solde(cle)).toBe(84);
  });

  it('refuses an unknown setting part and a malformed form', async () => {
    const { cle } = await pile.creerCompte(100);
    const formulaire = new FormData();
    formulaire.append('outil', 'ciel');
    formulaire.append('couleur', 'rose');
    formulaire.append('f', new Blob([await imageTest(9)]), 'a.jpg');
    const inconnu = await appeler(url, 'POST', '/travaux', { cle, corps: formulaire });
    expect(inconnu.statut).toBe(422);
    expect(inconnu.corps.error.code).toBe('invalid_settings');
    const casse = await appeler(url, 'POST', '/travaux', {
      cle,
      corps: '--x\r\nContent-Disposition: form-data; name="outil"\r\n\r\nciel',
      entetes: { 'Content-Type': 'multipart/form-data; boundary=x' },
    });
    expect(casse.statut).toBe(400);
    expect(await solde(cle)).toBe(100);
  });
});

describe('bad requests cost nothing', () => {
  let cle: string;
  beforeAll(async () => {
    ({ cle } = await pile.creerCompte(5));
  });

  const attendu = async (statut: number, code: string, appel: Parameters<typeof appeler>[3]) => {
    const reponse = await appeler(url, 'POST', '/travaux', { cle, ...appel });
    expect(reponse.statut, JSON.stringify(reponse.corps)).toBe(statut);
    expect(reponse.corps.error.code).toBe(code);
    expect(await solde(cle)).toBe(5);
  };

  it('400 for a body that is not JSON', () => attendu(400, 'invalid_body', { corps: '{"outil":', entetes: { 'Content-Type': 'application/json' } }));
  it('415 for an unsupported content type', () => attendu(415, 'unsupported_media_type', { corps: 'outil=ciel', entetes: { 'Content-Type': 'text/plain' } }));
  it('422 for an unknown tool', () => attendu(422, 'invalid_tool', { json: { outil: 'peinture', images: [] } }));
  it('422 for an unknown setting', async () =>
    attendu(422, 'invalid_settings', { json: { outil: 'vider', valeurs: { style: 'modern' }, images: [{ base64: enBase64(await imageTest()) }] } }));
  it('422 for an http URL', () => attendu(422, 'invalid_image', { json: { outil: 'vider', images: [{ url: 'http://exemple.com/a.jpg' }] } }));
  it('422 when the only image is not an image', () =>
    attendu(422, 'invalid_image', { json: { outil: 'vider', images: [{ base64: enBase64(Buffer.from('GIF89a....')) }] } }));
  it('413 for more than 50 images', () =>
    attendu(413, 'too_many_images', { json: { outil: 'ciel', images: Array.from({ length: 51 }, () => ({ url: 'https://exemple.com/a.jpg' })) } }));
  it('413 for an image over 15 MB', () =>
    attendu(413, 'image_too_large', { json: { outil: 'ciel', images: [{ base64: Buffer.alloc(15 * 1024 * 1024 + 10, 0xff).toString('base64') }] } }));
  it('402 insufficient_credits when the whole request costs more than the balance, and nothing starts', async () => {
    const images = await Promise.all([1, 2].map((g) => imageTest(g)));
    await attendu(402, 'insufficient_credits', {
      json: { outil: 'ciel', images: images.map((i) => ({ base64: enBase64(i) })).concat({ base64: enBase64(images[0]!) }) },
    });
    expect((await appeler(url, 'GET', '/travaux', { cle })).corps.travaux).toEqual([]);
  });
});

describe('reading jobs', () => {
  it('GET /travaux lists newest first, honours limite and filters by tool before the limit', async () => {
    const { cle } = await pile.creerCompte(100);
    const ids: string[] = [];
    for (const outil of ['ciel', 'vider', 'vider', 'ciel', 'ciel']) {
      const { corps } = await appeler<Lancement>(url, 'POST', '/travaux', {
        cle,
        json: { outil, images: [{ base64: enBase64(await imageTest(ids.length)) }] },
      });
      ids.push(corps.travaux[0]!.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const tous = await appeler<{ travaux: Travail[] }>(url, 'GET', '/travaux', { cle });
    expect(tous.corps.travaux.map((t) => t.id)).toEqual([...ids].reverse());
    for (const t of tous.corps.travaux) expect(v.safeParse(SchemaTravail, t).issues).toBeUndefined();
    const deux = await appeler<{ travaux: Travail[] }>(url, 'GET', '/travaux?limite=2', { cle });
    expect(deux.corps.travaux.map((t) => t.id)).toEqual([ids[4], ids[3]]);
    const vider = await appeler<{ travaux: Travail[] }>(url, 'GET', '/travaux?outil=vider&limite=2', { cle });
    expect(vider.corps.travaux.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    for (const mauvais of ['limite=0', 'limite=101', 'limite=abc', 'outil=peinture']) {
      const r = await appeler(url, 'GET', `/travaux?${mauvais}`, { cle });
      expect(r.statut).toBe(400);
      expect(r.corps.error.code).toBe('invalid_parameter');
    }
  });

  it("another account's job or batch is a 404, like one that does not exist", async () => {
    const a = await pile.creerCompte(100);
    const b = await pile.creerCompte(100);
    const images = [{ base64: enBase64(await imageTest(1)) }, { base64: enBase64(await imageTest(2)) }];
    const { corps } = await appeler<Lancement>(url, 'POST', '/travaux', { cle: a.cle, json: { outil: 'ciel', images } });
    expect((await appeler(url, 'GET', `/travaux/${corps.travaux[0]!.id}`, { cle: b.cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', `/lots/${corps.lot}`, { cle: b.cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', `/travaux/${crypto.randomUUID()}`, { cle: a.cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', '/travaux/pas-un-uuid', { cle: a.cle })).statut).toBe(404);
    expect((await appeler(url, 'GET', `/lots/${crypto.randomUUID()}`, { cle: a.cle })).corps.error.code).toBe('not_found');
    expect((await appeler(url, 'GET', `/travaux/${corps.travaux[0]!.id}`, { cle: a.cle })).statut).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  it('a retried request returns the first answer and is charged once; another body with the same key is refused', async () => {
    const { cle } = await pile.creerCompte(20);
    const json = { outil: 'ciel', images: [{ base64: enBase64(await imageTest(3)) }] };
    const entetes = { 'Idempotency-Key': 'commande-42' };
    const premier = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json, entetes });
    const second = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json, entetes });
    expect(premier.statut).toBe(202);
    expect(second.statut).toBe(202);
    expect(second.corps.travaux[0]!.id).toBe(premier.corps.travaux[0]!.id);
    expect(await solde(cle)).toBe(18);
    const autre = await appeler(url, 'POST', '/travaux', { cle, json: { ...json, outil: 'vider' }, entetes });
    expect(autre.statut).toBe(422);
    expect(autre.corps.error.code).toBe('idempotency_key_reused');
    expect(await solde(cle)).toBe(18);
  });
});

describe('a stage that withdraws tools (-c outils, e.g. an EU stage offering annonce only)', () => {
  it('GET /outils lists only what it offers; POST /travaux with another tool is a 422 invalid_tool that charges nothing', async () => {
    const { creer } = await import('../../lambdas/http/outils');
    const reponse = await creer({ RETOUCHE_OUTILS: 'annonce' })({ path: '/api/v1/outils' } as never, {} as never);
    expect(JSON.parse(reponse.body).outils.map((o: { id: string }) => o.id)).toEqual(['annonce']);
    expect(() => creer({ RETOUCHE_OUTILS: 'annonce,peinture' })).toThrow(/RETOUCHE_OUTILS names no tool: peinture/);

    const { cle, compte } = await pile.creerCompte(10);
    const { lancer } = await import('../../lambdas/core/domaine/lancement');
    const corps = Buffer.from(JSON.stringify({ outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] }));
    await expect(lancer(pile.deps, { compte, contentType: 'application/json', corps, cleIdempotence: undefined, outils: ['annonce'] })).rejects.toMatchObject({
      code: 'invalid_tool',
      statut: 422,
      message: 'This stage does not offer the tool ciel; it offers annonce (GET /outils).',
    });
    expect(await solde(cle)).toBe(10);
  });
});
