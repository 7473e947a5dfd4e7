/**
 * `fusion` through HTTP on the local stack, as a photographer's client uses it: three exposures of one
 * room sent as files in one multipart request make one job at the stage's price; its result is one photo
 * at the inputs' size, not marked as a preview (no model makes it, so the preview engine delivers the real
 * thing), whose Content Credentials name all three exposures; refusals are refunded with their codes, and
 * what cannot start (one photo, a RAW file) costs nothing.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lancement, Travail } from '../../lambdas/core/modele/enregistrements';
import { creerCle } from '../../lambdas/core/domaine/comptes';
import { lireTypeSource, TYPES_SOURCE } from '../../lambdas/moteurs/commun/provenance';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { appeler, attendreTravail } from '../support/client';
import { pilePartagee, type PileTest } from '../support/pile';

let pile: PileTest;
beforeAll(async () => {
  pile = await pilePartagee();
});
afterAll(async () => pile?.arreter());

// Read as bytes: the service allows libvips its buffer loaders only (moteurs/commun/pixels.ts).
const PHOTO = readFileSync(new URL('../photos/sejour_polyhaven-fireplace-a.jpg', import.meta.url));

/** One exposure of the room at 640 px: `gain` scales the light (×¼ dark, ×4 bright, clipped as a sensor clips). */
const exposition = async (gain: number, largeur = 640): Promise<Buffer> =>
  sharp(PHOTO).resize({ width: largeur }).linear(gain, 0).jpeg({ quality: 92 }).toBuffer();

/** POST /travaux as a form: the files under any field name, as the command and the studio send them. */
const lancerFichiers = async (cle: string, fichiers: Buffer[], outil = 'fusion') => {
  const formulaire = new FormData();
  formulaire.set('outil', outil);
  fichiers.forEach((octets, i) => formulaire.append('image', new Blob([octets], { type: 'image/jpeg' }), `salon-${i + 1}.jpg`));
  const reponse = new Response(formulaire);
  return appeler<Lancement>(pile.urlBase, 'POST', '/travaux', {
    cle,
    corps: Buffer.from(await reponse.arrayBuffer()),
    entetes: { 'Content-Type': reponse.headers.get('content-type')! },
  });
};

const solde = async (cle: string): Promise<number> => (await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits;

describe('fusion on the local stack', () => {
  it('three exposures in one request: one job, 2 credits, one photo at their size, real (not a preview), all three credited', async () => {
    const { cle } = await pile.creerCompte(10);
    const expositions = await Promise.all([exposition(0.25), exposition(1), exposition(4)]);
    const { statut, corps } = await lancerFichiers(cle, expositions);
    expect(statut).toBe(202);
    expect(corps).toMatchObject({ lot: null, outil: 'fusion', cout_total: 2, echecs: [] });
    expect(corps.travaux).toHaveLength(1);
    const travail = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id, 60_000);
    expect(travail).toMatchObject({ statut: 'termine', outil: 'fusion', cout: 2, apercu: false, rembourse: false });
    expect(await solde(cle)).toBe(8);
    const fichier = Buffer.from(await (await fetch(travail.resultats[0]!.url)).arrayBuffer());
    const { width, height } = await sharp(fichier).metadata();
    const attendue = await sharp(expositions[1]).metadata();
    expect([width, height]).toEqual([attendue.width, attendue.height]);
    expect(await lireTypeSource(fichier)).toBe(TYPES_SOURCE.compositeCapture);
    const { erreurs, manifeste } = await verifierC2pa(fichier, 'jpeg', pile.autoriteC2pa);
    expect(erreurs).toEqual([]);
    expect(manifeste.actions.map((a) => [a.action, a.digitalSourceType])).toEqual([
      ['c2pa.opened', undefined],
      ['c2pa.edited', TYPES_SOURCE.compositeCapture],
    ]);
    expect(manifeste.ingredients.map((i) => i.relation).sort()).toEqual(['componentOf', 'componentOf', 'parentOf']);
  });

  it('photos of different sizes: echec vues_differentes, refunded; the same exposure thrice: expositions_identiques, refunded', async () => {
    const { cle } = await pile.creerCompte(10);
    const tailles = await lancerFichiers(cle, [await exposition(0.25, 640), await exposition(4, 480)]);
    const identiques = await lancerFichiers(cle, await Promise.all([exposition(1), exposition(1), exposition(1)]));
    const fins: Travail[] = await Promise.all(
      [tailles, identiques].map((l) => {
        expect(l.statut).toBe(202);
        return attendreTravail(pile.urlBase, cle, l.corps.travaux[0]!.id, 60_000);
      }),
    );
    expect(fins.map((t) => [t.statut, t.erreur?.code, t.rembourse])).toEqual([
      ['echec', 'vues_differentes', true],
      ['echec', 'expositions_identiques', true],
    ]);
    expect(fins[0]!.erreur!.message).toMatch(/not the same size|not of the same view/);
    expect(await solde(cle)).toBe(10);
  });

  it('one photo, or a camera RAW file among them: a 422 that says why, and nothing is charged', async () => {
    const { cle } = await pile.creerCompte(10);
    const une = await lancerFichiers(cle, [await exposition(1)]);
    const refus = une.corps as unknown as { error: { code: string; message: string } };
    expect([une.statut, refus.error.code]).toEqual([422, 'invalid_image']);
    expect(refus.error.message).toContain('fusion needs at least 2');
    const cr2 = Buffer.concat([Buffer.from('II*\0\x10\0\0\0CR\x02\0', 'latin1'), Buffer.alloc(512)]);
    const raw = await lancerFichiers(cle, [await exposition(0.25), cr2]);
    expect(raw.statut).toBe(422);
    expect(JSON.stringify(raw.corps)).toContain('Canon CR2 RAW file, which is not read: export it as JPEG, PNG');
    expect(await solde(cle)).toBe(10);
  });

  it("a test key's fusion is free and marked, since its result is the real one", async () => {
    const { compte } = await pile.creerCompte(0);
    const { cle } = await creerCle(pile.deps, compte, { test: true });
    const { statut, corps } = await lancerFichiers(cle, await Promise.all([exposition(0.25), exposition(4)]));
    expect([statut, corps.cout_total]).toEqual([202, 0]);
    const travail = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id, 60_000);
    expect(travail).toMatchObject({ statut: 'termine', test: true, apercu: true });
  });
});
