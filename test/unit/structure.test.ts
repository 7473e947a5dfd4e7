/**
 * The structure check (structure.ts) on the synthetic rooms and house fronts of
 * test/support/scenes-structure.ts: faithful edits (repainted walls, a new floor, re-encoding, a softer
 * or brighter result, a 1 px shift, furniture outside the region) pass SEUIL_STRUCTURE; results that
 * move, hide or add a window or a door, raise the roof, or shift or rescale the photo by 3 % fail it.
 * The figures of every case: npm run bench:structure.
 */
import { describe, expect, it } from 'vitest';
import { ARETES_MIN, mesurerStructure, SEUIL_STRUCTURE } from '../../lambdas/moteurs/commun/structure';
import { casRegion, casStructure, dessinerPiece, LARGEUR, HAUTEUR, PIECE, regionBoites } from '../support/scenes-structure';

const [cas, regions] = await Promise.all([casStructure(), casRegion()]);
const fideles = cas.filter((c) => c.fidele).map((c) => [c.description, c] as const);
const infideles = cas.filter((c) => !c.fidele).map((c) => [c.description, c] as const);
const mesure = (nom: string) => {
  const c = cas.find((k) => k.nom === nom)!;
  return mesurerStructure(c.avant, c.apres, c.region);
};

describe('structure check (structure.ts)', () => {
  it('the threshold lies strictly between 0 and 1', () => {
    expect(SEUIL_STRUCTURE).toBeGreaterThan(0);
    expect(SEUIL_STRUCTURE).toBeLessThan(1);
  });

  it.each(['identique', 'facade-identique'])('%s: the same photo scores exactly 1, with edges to compare', async (nom) => {
    const m = await mesure(nom);
    expect(m).toMatchObject({ score: 1, rappel: 1, precision: 1 });
    expect(m.aretes).toBeGreaterThan(1000);
  });

  it.each(fideles)('passes: %s', async (_, c) => {
    const m = await mesurerStructure(c.avant, c.apres, c.region);
    expect(m.score).toBeGreaterThanOrEqual(SEUIL_STRUCTURE);
    expect(m.aretes).toBeGreaterThanOrEqual(ARETES_MIN);
  });

  it.each(infideles)('fails: %s', async (_, c) => {
    const m = await mesurerStructure(c.avant, c.apres, c.region);
    expect(m.score).toBeLessThan(SEUIL_STRUCTURE);
  });

  it('a window painted over lowers the recall (its lines are gone), a window added the precision (new lines)', async () => {
    const muree = await mesure('fenetre-muree');
    expect(muree.rappel).toBeLessThan(0.9);
    expect(muree.precision).toBeGreaterThan(0.98);
    const ajoutee = await mesure('fenetre-ajoutee');
    expect(ajoutee.precision).toBeLessThan(0.95);
    expect(ajoutee.rappel).toBeGreaterThan(0.98);
  });
});

describe('region', () => {
  it.each(regions.map((c) => [c.description, c] as const))('%s', async (_, c) => {
    const m = await mesurerStructure(c.avant, c.apres, c.region);
    if (c.fidele) expect(m).toMatchObject({ score: 1, rappel: 1, precision: 1 });
    else expect(m.score).toBeLessThan(SEUIL_STRUCTURE);
    expect(m.aretes).toBeGreaterThanOrEqual(ARETES_MIN);
  });

  // A bare stretch of the back wall between the window and the door.
  const mur = regionBoites([{ x0: 0.515, x1: 0.605, y0: 0.24, y1: 0.53 }], LARGEUR, HAUTEUR, 0);
  const avant = dessinerPiece();

  it('a region without lines is nothing to compare: score 1, and the count says so', async () => {
    const m = await mesurerStructure(avant, dessinerPiece({ grain: 2 }), mur);
    expect(m.score).toBe(1);
    expect(m.aretes).toBeLessThan(ARETES_MIN);
  });

  it('but a window drawn into that bare wall fails', async () => {
    const apres = dessinerPiece({ grain: 2, fenetres: [...PIECE.fenetres, { x0: 0.52, x1: 0.6, y0: 0.27, y1: 0.5 }] });
    const m = await mesurerStructure(avant, apres, mur);
    expect(m.aretes).toBeGreaterThanOrEqual(ARETES_MIN);
    expect(m.precision).toBeLessThan(0.1);
    expect(m.score).toBeLessThan(SEUIL_STRUCTURE);
  });

  it('accepts a Buffer region with any non-zero value, and refuses a region or images of another size', async () => {
    const c = cas.find((k) => k.nom === 'meubles-ajoutes')!;
    const octets = Buffer.from(c.region!.map((v) => (v ? 255 : 0)));
    expect(await mesurerStructure(c.avant, c.apres, octets)).toEqual(await mesurerStructure(c.avant, c.apres, c.region));
    await expect(mesurerStructure(c.avant, c.apres, new Uint8Array(10))).rejects.toThrow(/size/);
    await expect(mesurerStructure(c.avant, dessinerPiece({}, 600, 400), null)).rejects.toThrow(/size/);
  });
});
