/**
 * Is a blurred face (or plate) still recognisable? Measured as an attacker would try: by matching it
 * against a gallery of candidates, each blurred the same way (the "parrot" attack, which defeats light
 * blurs and mosaics), and against the candidates as they are.
 *
 * 40 drawn identities (test/support/scenes-personnes.ts: features differ, skin and hair do not, so a
 * match must rest on the features). Each has a gallery picture and a probe: the same person, another
 * light, 4 % larger, off by a pixel. The matcher: the face's box, grey, 24 × 30, normalised, nearest
 * neighbour — it identifies every clear probe, so a low score below is the blur's doing. Plates: 40
 * plate numbers, the same way. Chance is 1 in 40 (2.5 %).
 *
 *   npm run bench:floutage
 */
import sharp from 'sharp';
import type { Rectangle } from '../lambdas/moteurs/commun/masques';
import { flouterEnPlace } from '../lambdas/moteurs/commun/floutage';
import type { Genre } from '../lambdas/moteurs/commun/personnes';
import type { Pixels } from '../lambdas/moteurs/commun/pixels';
import { dessinerPlaque, dessinerVisage, textePlaque } from '../test/support/scenes-personnes';

const N = 40;
const MUR = [214, 204, 184];

const toile = (l: number, h: number): Pixels => {
  const data = Buffer.alloc(l * h * 3);
  for (let i = 0; i < l * h; i++) data.set(MUR, i * 3);
  return { data, largeur: l, hauteur: h };
};

type Flou = (p: Pixels, b: Rectangle, genre: Genre) => Promise<Pixels>;

/** The box, grey, 24 × 30 (or 60 × 13 for a plate), zero mean and unit norm: what the matcher compares. */
const signature = async (p: Pixels, b: Rectangle, genre: Genre): Promise<Float64Array> => {
  const [l, h] = genre === 'visage' ? [24, 30] : [60, 13];
  const region = {
    left: Math.floor(b.x0 * p.largeur),
    top: Math.floor(b.y0 * p.hauteur),
    width: Math.ceil((b.x1 - b.x0) * p.largeur),
    height: Math.ceil((b.y1 - b.y0) * p.hauteur),
  };
  const gris = await sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .extract(region)
    .resize(l, h, { fit: 'fill' })
    .greyscale()
    .raw()
    .toBuffer();
  const v = Float64Array.from(gris);
  const moyenne = v.reduce((a, x) => a + x, 0) / v.length;
  let norme = 0;
  for (let i = 0; i < v.length; i++) norme += (v[i]! - moyenne) ** 2;
  return v.map((x) => (x - moyenne) / Math.sqrt(norme || 1));
};

const distance = (a: Float64Array, b: Float64Array) => a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0);

/** A person or a plate, drawn: the gallery picture (variante 0) or the probe (variante 1). */
const dessiner = (genre: Genre, identite: number, variante: 0 | 1, taille: number): { p: Pixels; b: Rectangle } => {
  const p = toile(taille * 3, taille * 3);
  const b =
    genre === 'visage'
      ? dessinerVisage(p, { cx: taille * 1.5 + variante, cy: taille * 1.5, largeur: taille * (1 + 0.04 * variante), identite, lumiere: variante ? 0.92 : 1 })
      : dessinerPlaque(p, {
          x: taille * 0.5 + variante,
          y: taille * 1.3,
          largeur: taille * 2 * (1 + 0.04 * variante),
          texte: textePlaque(identite),
          lumiere: variante ? 0.92 : 1,
        });
  return { p, b };
};

/** Share of probes whose nearest gallery entry is their own identity. */
const identifies = async (genre: Genre, taille: number, flouSonde: Flou | null, flouGalerie: Flou | null): Promise<number> => {
  const galerie: Float64Array[] = [];
  for (let i = 0; i < N; i++) {
    const { p, b } = dessiner(genre, 100 + i, 0, taille);
    galerie.push(await signature(flouGalerie ? await flouGalerie(p, b, genre) : p, b, genre));
  }
  let justes = 0;
  for (let i = 0; i < N; i++) {
    const { p, b } = dessiner(genre, 100 + i, 1, taille);
    const s = await signature(flouSonde ? await flouSonde(p, b, genre) : p, b, genre);
    const proche = galerie.map((g, j) => [distance(s, g), j] as const).sort((a, c) => a[0] - c[0])[0]![1];
    if (proche === i) justes++;
  }
  return justes / N;
};

/** A light Gaussian blur of the box (sigma a twentieth of its width), as many tools do: the baseline. */
const gaussienLeger: Flou = async (p, b) => {
  const r = {
    left: Math.floor(b.x0 * p.largeur),
    top: Math.floor(b.y0 * p.hauteur),
    width: Math.ceil((b.x1 - b.x0) * p.largeur),
    height: Math.ceil((b.y1 - b.y0) * p.hauteur),
  };
  const floue = await sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .extract(r)
    .blur(Math.max(0.3, r.width / 20))
    .raw()
    .toBuffer();
  const data = Buffer.from(p.data);
  for (let y = 0; y < r.height; y++) floue.copy(data, ((r.top + y) * p.largeur + r.left) * 3, y * r.width * 3, (y + 1) * r.width * 3);
  return { ...p, data };
};

/** A 12-cell mosaic of the box (the usual "pixelation"). */
const mosaique: Flou = async (p, b) => {
  const r = {
    left: Math.floor(b.x0 * p.largeur),
    top: Math.floor(b.y0 * p.hauteur),
    width: Math.ceil((b.x1 - b.x0) * p.largeur),
    height: Math.ceil((b.y1 - b.y0) * p.hauteur),
  };
  const petite = await sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .extract(r)
    .resize(12, Math.max(1, Math.round((12 * r.height) / r.width)), { kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const floue = await sharp(petite.data, { raw: { width: petite.info.width, height: petite.info.height, channels: 3 } })
    .resize(r.width, r.height, { kernel: 'nearest' })
    .raw()
    .toBuffer();
  const data = Buffer.from(p.data);
  for (let y = 0; y < r.height; y++) floue.copy(data, ((r.top + y) * p.largeur + r.left) * 3, y * r.width * 3, (y + 1) * r.width * 3);
  return { ...p, data };
};

/** Ours (lambdas/moteurs/floutage.ts), on the detected box. */
const retouche: Flou = async (p, b, genre) => flouterEnPlace({ ...p, data: Buffer.from(p.data) }, [{ genre, boite: b, confiance: 1 }]);

const pct = (x: number) => `${(100 * x).toFixed(0).padStart(3)} %`;
console.log(`identification of ${N} identities by nearest neighbour (chance ${pct(1 / N)}); "parrot": the gallery blurred the same way`);
console.log('what                      size    clear   light Gaussian (parrot)   12-cell mosaic (parrot)   Retouche (parrot)   Retouche (vs clear)');
for (const [genre, tailles] of [
  ['visage', [64, 128, 256]],
  ['plaque', [60, 120]],
] as const) {
  for (const taille of tailles) {
    const clair = await identifies(genre, taille, null, null);
    const leger = await identifies(genre, taille, gaussienLeger, gaussienLeger);
    const mos = await identifies(genre, taille, mosaique, mosaique);
    const nous = await identifies(genre, taille, retouche, retouche);
    const nousClair = await identifies(genre, taille, retouche, null);
    console.log(
      `${genre === 'visage' ? 'face, width' : 'plate, height ×2'}`.padEnd(26) +
        `${String(taille).padStart(4)} px ${pct(clair)}   ${pct(leger).padStart(22)}   ${pct(mos).padStart(22)}   ${pct(nous).padStart(17)}   ${pct(nousClair).padStart(19)}`,
    );
  }
}
