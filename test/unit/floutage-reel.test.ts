/**
 * The `floutage` setting on the developers' street photos (test/photos: sources and licences in
 * SOURCES.md, faces and plates drawn by hand in verite.json), through the local engine as a job runs
 * it: every face of 24 px or more and every legible plate loses its detail, and a photo with neither
 * says 0 blurred. A job is run twice, without and with the blur, with a tool that keeps the photo's
 * geometry (renovation; ciel straightens it), so the truth's boxes lie on the same pixels in both
 * results and only the blur differs between them.
 */
import { describe, expect, it } from 'vitest';
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';
import { decoder, luminance, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { photo, rectangle, verite } from '../support/verite';

/** Variance of the Laplacian of luminance inside a box: the fine detail that identifies a face or a plate. */
const detail = (p: Pixels, b: Rectangle): number => {
  const [x0, y0] = [Math.max(1, Math.ceil(b.x0 * p.largeur)), Math.max(1, Math.ceil(b.y0 * p.hauteur))];
  const [x1, y1] = [Math.min(p.largeur - 1, Math.floor(b.x1 * p.largeur)), Math.min(p.hauteur - 1, Math.floor(b.y1 * p.hauteur))];
  const y = (x: number, ligne: number) => {
    const i = (ligne * p.largeur + x) * 3;
    return luminance(p.data[i]!, p.data[i + 1]!, p.data[i + 2]!);
  };
  const valeurs: number[] = [];
  for (let j = y0; j < y1; j++) for (let i = x0; i < x1; i++) valeurs.push(4 * y(i, j) - y(i - 1, j) - y(i + 1, j) - y(i, j - 1) - y(i, j + 1));
  const moyenne = valeurs.reduce((s, v) => s + v, 0) / valeurs.length;
  return valeurs.reduce((s, v) => s + (v - moyenne) ** 2, 0) / valeurs.length;
};

const moteur = creerMoteurLocal();
const travail = async (nom: string, floutage: string) => {
  const r = await moteur.retoucher({ outil: 'renovation', valeurs: { niveau: 'rafraichissement', floutage }, image: photo(nom), travail: 'floutage-reel' });
  return { pixels: (await decoder(r.image)).pixels, floutage: r.floutage };
};

const truth = verite();
const RUES = Object.keys(truth).filter((n) => n.startsWith('rue-') || n.startsWith('voiture-plaque'));

describe('floutage on the street photos', () => {
  it.each(RUES)('%s: every face of 24 px or more and every legible plate loses its detail', async (nom) => {
    const [net, flou] = [await travail(nom, 'none'), await travail(nom, 'faces and plates')];
    const { largeur: l, hauteur: h } = net.pixels;
    const aFlouter = truth[nom]!.objets.filter(
      (o) =>
        (o.classe === 'visage' && Math.min((o.boite[2] - o.boite[0]) * l, (o.boite[3] - o.boite[1]) * h) >= 24) ||
        (o.classe === 'plaque' && o.lisible === true),
    );
    for (const o of aFlouter) {
      const b = rectangle(o.boite);
      // Measured 0.000–0.003: what is left is the smooth light of a few averages.
      expect(detail(flou.pixels, b) / detail(net.pixels, b), `${o.classe} ${o.boite.join(', ')}`).toBeLessThan(0.05);
    }
    const [visages, plaques] = ['visage', 'plaque'].map((c) => aFlouter.filter((o) => o.classe === c).length);
    // The job counts at least what the truth holds (pedestrians too small for the truth, a plate read as illegible, may add to it).
    expect(flou.floutage!.visages).toBeGreaterThanOrEqual(visages!);
    expect(flou.floutage!.plaques).toBeGreaterThanOrEqual(plaques!);
  });

  // Photos where BlazeFace's first pass or the colour rules once saw a face (woodwork, a facade's window, a lit window, a kitchen's clutter), and a street of parked cars.
  it.each([
    'piece-vide_polyhaven-old-hall.jpg',
    'facade-ciel-blanc_polyhaven-cambridge-a.jpg',
    'cuisine-sejour_coco180239.jpg',
    'facade-nuit_polyhaven-hansaplatz.jpg',
    'facade-ciel-bleu_polyhaven-palermo.jpg',
  ])('%s: no face and no plate to blur, so the job says 0 and blurs nothing', async (nom) => {
    const objets = truth[nom]!.objets;
    expect(objets.filter((o) => o.classe === 'visage' || o.classe === 'plaque')).toEqual([]);
    const [net, flou] = [await travail(nom, 'none'), await travail(nom, 'faces and plates')];
    expect(flou.floutage).toEqual({ reglage: 'faces and plates', visages: 0, plaques: 0 });
    expect(flou.pixels.data.equals(net.pixels.data)).toBe(true);
  });
});
