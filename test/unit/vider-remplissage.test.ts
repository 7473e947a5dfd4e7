/**
 * No smudge is delivered as done (issue 39, point 2): on the real rooms of test/photos, the vider preview
 * either ends `termine` with a fill whose detail matches its surroundings (qualite-remplissage.ts, the
 * threshold of docs/engines.md) or fails `remplissage_insuffisant` (refunded) saying why. The verdicts are
 * those of the contact sheet in docs/engines.md (`npx tsx bench/vider-reel.ts`), with the bench's seed; a
 * fill near the threshold (`limite`) may go either way with the seed, and is held only to the invariant:
 * delivered, its detail is at least the threshold; refused, it is under it or too large.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { graineDe } from '../../lambdas/moteurs/commun/moteur';
import { decoder, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import { zoneVider } from '../../lambdas/moteurs/commun/zones';
import { detecteurCouleurs, detecteurLocal } from '../../lambdas/moteurs/local/detecteur-local';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { mesurerCopie, mesurerRemplissage, PART_MAX, refuserSiTache, SEUIL_DETAIL, SEUIL_VU } from '../../lambdas/moteurs/local/qualite-remplissage';
import { remplirVider } from '../../lambdas/moteurs/local/vider';
import { rendreScenes } from '../../docs/exemples/scenes';
import { photo } from '../support/verite';

const moteur = creerMoteurLocal();

/** Every room of test/photos, with the verdict of the contact sheet. */
const VERDICTS: [string, 'termine' | 'remplissage_insuffisant' | 'limite' | 'rien_a_retirer'][] = [
  ['chambre_coco403353.jpg', 'remplissage_insuffisant'],
  ['chambre_pxhere-607447.jpg', 'remplissage_insuffisant'],
  ['cuisine-sejour_coco180239.jpg', 'limite'],
  ['cuisine_coco030213.jpg', 'remplissage_insuffisant'],
  ['cuisine_coco175364.jpg', 'remplissage_insuffisant'],
  ['cuisine_coco401416.jpg', 'rien_a_retirer'],
  ['cuisine_coco408805.jpg', 'rien_a_retirer'],
  ['piece-vide_polyhaven-old-hall.jpg', 'rien_a_retirer'],
  ['salle-de-bain_coco006818.jpg', 'rien_a_retirer'],
  ['salle-de-bain_coco229358.jpg', 'rien_a_retirer'],
  ['salle-de-bain_coco403385.jpg', 'rien_a_retirer'],
  ['sejour_polyhaven-fireplace-a.jpg', 'remplissage_insuffisant'],
  // Its detector box took the sofa's seat, not its back: the "floor" around it was the sofa and a blanket,
  // seen nowhere else in the photo; the fill, detailed, was a patchwork of them (vu 0).
  ['sejour_polyhaven-fireplace-b.jpg', 'remplissage_insuffisant'],
  ['sejour_polyhaven-wooden-lounge.jpg', 'remplissage_insuffisant'],
];

/** The photo as PNG (so that the engine answers PNG), its pixels and vider's zone on it. */
const preparer = async (nom: string) => {
  const source = await sharp(photo(nom)).png().toBuffer();
  const base = (await decoder(source)).pixels;
  return { source, base };
};

describe('vider on real rooms: a fill that continues the room, or a refund that says why', () => {
  it.each(VERDICTS)('%s: %s', async (nom, attendu) => {
    const { source, base } = await preparer(nom);
    // The bench's job id, so its seed: the verdicts are the contact sheet's (a borderline fill may flip with the seed).
    const travail = 'vider-reel';
    const issue = moteur.retoucher({ outil: 'vider', valeurs: {}, image: source, travail });
    if (attendu === 'rien_a_retirer') return expect(issue).rejects.toMatchObject({ name: 'rien_a_retirer' });
    const zone = await zoneVider(base, await detecteurLocal.detecter(base));
    const livre = await issue.then(
      (r) => r,
      (e: Error) => e,
    );
    if (attendu !== 'limite') expect(livre instanceof Error ? livre.name : 'termine', nom).toBe(attendu);
    if (livre instanceof Error) {
      expect(livre).toMatchObject({
        name: 'remplissage_insuffisant',
        message: expect.stringMatching(/too large for the preview engine|would show as a blur|would have to invent them/),
      });
      // What was refused is a smudge, most of the room, or a surface seen nowhere else: the measure says so.
      const { qualite } = await remplirVider(base, zone, graineDe(travail));
      expect(qualite.detail < SEUIL_DETAIL || qualite.part > PART_MAX || qualite.vu < SEUIL_VU, JSON.stringify(qualite)).toBe(true);
      return;
    }
    const { image, graine } = livre;
    expect(image.length).toBeGreaterThan(0);
    expect(graine).toEqual(expect.any(Number));
    // The delivered fill, without the preview's mark drawn over it afterwards (its letters are detail too).
    const { resultat, qualite } = await remplirVider(base, zone, graine!);
    const mesure = await mesurerRemplissage(base, { ...base, data: resultat }, zone.masque);
    expect(mesure).toEqual(qualite);
    expect(mesure.detail, JSON.stringify(mesure)).toBeGreaterThanOrEqual(SEUIL_DETAIL);
    expect(mesure.part).toBeLessThanOrEqual(PART_MAX);
    expect(mesure.vu).toBeGreaterThanOrEqual(SEUIL_VU);
  });

  it('a surface rebuilt that the photo shows only around the furniture is not continued but invented: refused', async () => {
    // A 300 × 200 copy, the filled area 80 × 50 in its middle, half floor, half wall.
    const [l, h] = [300, 200];
    const masque = Uint8Array.from({ length: l * h }, (_, p) => (p % l >= 110 && p % l < 190 && ((p / l) | 0) >= 75 && ((p / l) | 0) < 125 ? 1 : 0));
    const rgb = Uint8Array.from({ length: l * h * 3 }, (_, i) => 120 + ((i * 7919) % 13));
    const mesurer = (classes: Uint8Array) => mesurerCopie(rgb, masque, classes, l, h);
    // The floor below row 100 everywhere: seen over far more than its rebuilt area.
    const sol = Uint8Array.from({ length: l * h }, (_, p) => (((p / l) | 0) >= 100 ? 1 : 0));
    expect((await mesurer(sol)).vu).toBeGreaterThan(SEUIL_VU);
    // "Floor" only within 20 px of the area (a sofa's seat and a blanket around a box that took part of it).
    const autour = Uint8Array.from(sol, (v, p) => (v && p % l >= 90 && p % l < 210 && ((p / l) | 0) < 145 ? 1 : 0));
    const q = await mesurer(autour);
    expect(q.vu).toBe(0);
    expect(() => refuserSiTache(q)).toThrow(/would have to invent them/);
    // A sliver of it (under a fifth of the area) is not held to it.
    const mince = Uint8Array.from({ length: l * h }, (_, p) => (((p / l) | 0) >= 120 && p % l >= 90 && p % l < 210 && ((p / l) | 0) < 145 ? 1 : 0));
    expect((await mesurer(mince)).vu).toBeGreaterThan(SEUIL_VU);
  });

  it('a blur of the surroundings, the fill the issue saw, scores under the threshold on every room with furniture found', async () => {
    for (const [nom, attendu] of VERDICTS) {
      if (attendu === 'rien_a_retirer') continue;
      const { base } = await preparer(nom);
      const zone = await zoneVider(base, await detecteurLocal.detecter(base));
      const flou = await sharp(base.data, { raw: { width: base.largeur, height: base.hauteur, channels: 3 } })
        .blur(Math.max(base.largeur, base.hauteur) / 40)
        .raw()
        .toBuffer();
      const tache: Pixels = { ...base, data: Buffer.from(base.data.map((v, i) => (zone.masque[(i / 3) | 0] ? flou[i]! : v))) };
      expect((await mesurerRemplissage(base, tache, zone.masque)).detail, nom).toBeLessThan(SEUIL_DETAIL);
    }
  });

  it('the drawn living room of docs/engines.md: the floor line carried on behind the sofa, its fill keeps the detail; refused only if the area is too large', async () => {
    const salon = (await rendreScenes()).salon;
    const base = (await decoder(salon)).pixels;
    const zone = await zoneVider(base, await detecteurCouleurs.detecter(base));
    const { qualite } = await remplirVider(base, zone, 1);
    expect(qualite.detail).toBeGreaterThanOrEqual(SEUIL_DETAIL);
    const issue = creerMoteurLocal({ detecteur: detecteurCouleurs }).retoucher({ outil: 'vider', valeurs: {}, image: salon, travail: 'salon' });
    if (qualite.part > PART_MAX) await expect(issue).rejects.toMatchObject({ name: 'remplissage_insuffisant', message: expect.stringMatching(/too large/) });
    else expect((await issue).image.length).toBeGreaterThan(0);
  });
});
