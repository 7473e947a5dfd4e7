/**
 * Every result is marked as AI-edited the way the law and the platforms read it: a signed C2PA
 * manifest, read back here by an independent implementation (test/support/c2pa-verificateur.ts,
 * c2pa-ts, not the c2pa-rs that signed), which checks the manifest, the signature up to the data
 * folder's test CA, and the hash binding: a byte changed after signing fails it.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lancement, Travail } from '../../lambdas/core/modele/enregistrements';
import { creerPkiTest } from '../../lambdas/moteurs/c2pa/certificats';
import { TYPES_SOURCE } from '../../lambdas/moteurs/commun/provenance';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest, pieceTest } from '../support/client';
import { pilePartagee, type PileTest } from '../support/pile';
import { lireZip } from '../support/zip';

type Pile = PileTest;
let pile: Pile;

beforeAll(async () => {
  pile = await pilePartagee();
});
afterAll(async () => pile?.arreter());

const telecharger = async (url: string): Promise<Buffer> => Buffer.from(await (await fetch(url)).arrayBuffer());

const resultatDe = async (cle: string, outil: string, entree: Buffer, nom: string): Promise<{ travail: Travail; fichier: Buffer }> => {
  const { statut, corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil, images: [{ base64: enBase64(entree), nom }] } });
  expect(statut).toBe(202);
  const travail = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
  expect(travail.statut).toBe('termine');
  return { travail, fichier: await telecharger(travail.resultats[0]!.url) };
};

describe('C2PA Content Credentials in every result', () => {
  it.each(['vider', 'staging', 'renovation', 'saison', 'ciel'])('%s: a signed manifest, read back by an independent implementation', async (outil) => {
    const { cle } = await pile.creerCompte(20);
    // staging furnishes rooms seen from inside: the drawn room, not the drawn garden.
    const entree = await (outil === 'staging' ? pieceTest : imageTest)(3);
    const { fichier } = await resultatDe(cle, outil, entree, 'salon.jpg');
    const verification = await verifierC2pa(fichier, 'jpeg', pile.autoriteC2pa);
    expect(verification.erreurs).toEqual([]);
    expect(verification.valide).toBe(true);
    const { manifeste } = verification;
    expect(manifeste.generateur).toMatch(/^Retouche/);
    expect(manifeste.signataire).toContain('Retouche local test (not trusted)');
    // The local preview: the photo opened, then edited by ordinary algorithms, said as such.
    expect(manifeste.actions.map((a) => a.action)).toEqual(['c2pa.opened', 'c2pa.edited']);
    const edition = manifeste.actions[1]!;
    expect(edition.digitalSourceType).toBe(TYPES_SOURCE.compositeSynthetic);
    expect(edition.softwareAgent).toEqual({ name: `Retouche ${outil} (local preview)`, version: '1.0.0' });
    expect(edition.parameters).toEqual({ 'fr.retouche': { outil, moteur: 'local' } });
    // The input photo, by its hash: none of its pixels.
    expect(manifeste.ingredients).toEqual([
      expect.objectContaining({ titre: 'salon.jpg', relation: 'parentOf', instanceId: `sha256:${createHash('sha256').update(entree).digest('hex')}` }),
    ]);
    // The file is still an ordinary JPEG with the input's dimensions.
    expect(await sharp(fichier).metadata()).toMatchObject({ format: 'jpeg', width: 96, height: 64 });
  });

  it.each(['png', 'webp'] as const)('a %s photo gives a signed %s result', async (format) => {
    const { cle } = await pile.creerCompte(20);
    const { fichier } = await resultatDe(cle, 'ciel', await imageTest(4, format), `jardin.${format}`);
    expect((await sharp(fichier).metadata()).format).toBe(format);
    const verification = await verifierC2pa(fichier, format, pile.autoriteC2pa);
    expect(verification.erreurs).toEqual([]);
    expect(verification.valide).toBe(true);
  });

  it('every file inside a batch ZIP is the signed result itself', async () => {
    const { cle } = await pile.creerCompte(20);
    const images = [{ base64: enBase64(await imageTest(5)) }, { base64: enBase64(await imageTest(6, 'png')) }];
    const { corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
    const lot = await attendreLot(pile.urlBase, cle, corps.lot!);
    const fichiers = await lireZip(await telecharger(lot.zip!.url));
    expect(fichiers.size).toBe(2);
    for (const [nom, octets] of fichiers) {
      const verification = await verifierC2pa(octets, nom.endsWith('.png') ? 'png' : 'jpeg', pile.autoriteC2pa);
      expect(verification.erreurs, nom).toEqual([]);
    }
  });

  it('a result changed after signing, or checked against another authority, fails the validation', async () => {
    const { cle } = await pile.creerCompte(20);
    const { fichier } = await resultatDe(cle, 'ciel', await imageTest(7), 'facade.jpg');
    // A byte of the image data (the end of a JPEG is entropy-coded pixels, outside the manifest).
    const altere = Buffer.from(fichier);
    altere[altere.length - 100]! ^= 0x01;
    const verification = await verifierC2pa(altere, 'jpeg', pile.autoriteC2pa);
    expect(verification.valide).toBe(false);
    expect(verification.erreurs.join(' ')).toMatch(/dataHash\.mismatch/);
    const autre = await creerPkiTest('Another authority');
    expect((await verifierC2pa(fichier, 'jpeg', autre.autorite)).valide).toBe(false);
    // Stripped of its metadata by a re-save, it carries no manifest at all: the marking is in the file, not beside it.
    expect((await verifierC2pa(await sharp(fichier).jpeg().toBuffer(), 'jpeg', pile.autoriteC2pa)).valide).toBe(false);
  });
});

describe('floutage: faces and plates blurred after the edit, before the signature', () => {
  it('blurs the face and the plate of a street photo, says so in the signed manifest, and leaves the rest as the same job without blurring', async () => {
    const { cle } = await pile.creerCompte(20);
    const { scenePersonnes, encoder } = await import('../support/scenes-personnes');
    const scene = scenePersonnes({ largeur: 1280, hauteur: 853, graine: 7 });
    const photo = await encoder(scene.pixels, 'png');
    const lancer = async (floutage: string) => {
      const { corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', {
        cle,
        json: { outil: 'ciel', valeurs: { floutage }, images: [{ base64: enBase64(photo), nom: 'rue.png' }] },
      });
      const travail = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
      expect(travail).toMatchObject({ statut: 'termine', valeurs: { floutage } });
      // The job says what was found and blurred: the drawn face and plate, or null when no blur was asked.
      expect(travail.floutage).toEqual(floutage === 'none' ? null : { reglage: floutage, visages: 1, plaques: 1 });
      return telecharger(travail.resultats[0]!.url);
    };
    const [net, floue] = [await lancer('none'), await lancer('faces and plates')];

    const verification = await verifierC2pa(floue, 'png', pile.autoriteC2pa);
    expect(verification.erreurs).toEqual([]);
    expect(verification.manifeste.actions.map((a) => a.action)).toEqual(['c2pa.opened', 'c2pa.edited', 'c2pa.filtered']);
    expect(verification.manifeste.actions[2]!.parameters).toMatchObject({ 'fr.retouche': { floutage: 'faces and plates', visages: 1, plaques: 1 } });
    expect((await verifierC2pa(net, 'png', pile.autoriteC2pa)).manifeste.actions.map((a) => a.action)).toEqual(['c2pa.opened', 'c2pa.edited']);

    const [a, b] = await Promise.all([net, floue].map((f) => sharp(f).raw().toBuffer({ resolveWithObject: true })));
    const [L, H] = [a!.info.width, a!.info.height];
    // Inside each drawn box the blurred result keeps a fraction of the detail; far from them it is the same image, bit for bit.
    const ecart = (x0: number, y0: number, x1: number, y1: number, donnees: Buffer) => {
      let s = 0;
      let n = 0;
      for (let y = Math.ceil(y0 * H); y < Math.floor(y1 * H); y++) {
        for (let x = Math.ceil(x0 * L) + 1; x < Math.floor(x1 * L); x++) {
          for (let k = 0; k < 3; k++) s += Math.abs(donnees[(y * L + x) * 3 + k]! - donnees[(y * L + x - 1) * 3 + k]!);
          n += 3;
        }
      }
      return s / n;
    };
    for (const r of [...scene.visages, ...scene.plaques])
      expect(ecart(r.x0, r.y0, r.x1, r.y1, b!.data) / ecart(r.x0, r.y0, r.x1, r.y1, a!.data)).toBeLessThan(0.2);
    let differents = 0;
    const loin = (x: number, y: number) =>
      [...scene.visages, ...scene.plaques].every((r) => {
        // Far = more than 1.5 boxes away: a detector's box may be wider than the drawing's (BlazeFace's takes
        // in the hair), and the blur grows it by its margin.
        const [mx, my] = [1.5 * (r.x1 - r.x0), 1.5 * (r.y1 - r.y0)];
        return x < (r.x0 - mx) * L || x > (r.x1 + mx) * L || y < (r.y0 - my) * H || y > (r.y1 + my) * H;
      });
    for (let y = 0; y < H; y++)
      for (let x = 0; x < L; x++)
        if (loin(x, y) && a!.data.compare(b!.data, (y * L + x) * 3, (y * L + x) * 3 + 3, (y * L + x) * 3, (y * L + x) * 3 + 3) !== 0) differents++;
    expect(differents).toBe(0);
  });
});
