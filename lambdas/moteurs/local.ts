/**
 * The local preview engine: deterministic sharp pipelines that show each tool's idea on the real
 * photo, without a model. It is what `npm start` and the tests run, so that every path of the
 * service (inputs, results, ZIPs, links) carries real images a person can look at.
 *
 * Each tool edits a region through a mask and leaves the other pixels exactly as they were, like the
 * production engine composites the model's output into the original.
 */
import { setTimeout as attendre } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';
import { ErreurTravail } from '../core/erreurs';
import type { OutilImage } from '../core/outils';
import { redigerAnnonceLocale } from './annonce-locale';
import type { DemandeRetouche, ImageRetouchee, Moteur } from './moteur';
import { exifDeProvenance } from './provenance';

interface Pixels {
  data: Buffer;
  largeur: number;
  hauteur: number;
}

/** A job's seed: stable for a job id, so a preview can be reproduced byte for byte. */
export const graineDe = (travail: string): number => createHash('sha256').update(travail).digest().readUInt32BE(0);

const luminance = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;
const saturation = (r: number, g: number, b: number) => Math.max(r, g, b) - Math.min(r, g, b);
const borner = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** Sky: bright, not saturated or bluish pixels in the upper part, as long as they connect to the top rows. */
const masqueCiel = ({ data, largeur, hauteur }: Pixels): Uint8Array => {
  const masque = new Uint8Array(largeur * hauteur);
  const limite = Math.floor(hauteur * 0.65);
  for (let x = 0; x < largeur; x++) {
    for (let y = 0; y < limite; y++) {
      const i = (y * largeur + x) * 3;
      const r = data[i]!, g = data[i + 1]!, b = data[i + 2]!;
      const ciel = luminance(r, g, b) > 140 && (b >= r - 10 || saturation(r, g, b) < 40);
      if (!ciel) break; // the sky is what is seen from the top down to the first non-sky pixel
      masque[y * largeur + x] = 1;
    }
  }
  return masque;
};

const ciel = (p: Pixels): Buffer => {
  const sortie = Buffer.from(p.data);
  const masque = masqueCiel(p);
  for (let y = 0; y < p.hauteur; y++) {
    const t = y / Math.max(1, p.hauteur * 0.65);
    const bleu = [borner(40 + 120 * t), borner(110 + 100 * t), borner(215 + 30 * t)];
    for (let x = 0; x < p.largeur; x++) {
      if (!masque[y * p.largeur + x]) continue;
      const i = (y * p.largeur + x) * 3;
      // Keep a little of the original texture (clouds) under the new blue.
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(0.8 * bleu[c]! + 0.2 * p.data[i + c]!);
    }
  }
  return sortie;
};

const saison = (p: Pixels): Buffer => {
  const sortie = Buffer.from(p.data);
  const debut = Math.floor(p.hauteur * 0.4);
  for (let y = debut; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur; x++) {
      const i = (y * p.largeur + x) * 3;
      const r = p.data[i]!, g = p.data[i + 1]!, b = p.data[i + 2]!;
      if (luminance(r, g, b) > 170 && saturation(r, g, b) < 45) {
        // Snow becomes lawn, keeping its light and shade.
        const l = luminance(r, g, b) / 255;
        sortie[i] = borner(70 * l), sortie[i + 1] = borner(150 * l + 20), sortie[i + 2] = borner(55 * l);
      } else {
        // A warmer, greener summer light on the ground.
        sortie[i] = borner(r * 1.06 + 6), sortie[i + 1] = borner(g * 1.12 + 8), sortie[i + 2] = borner(b * 0.88);
      }
    }
  }
  return sortie;
};

/** The floor area where furniture stands in most listing photos. */
const zoneSol = (largeur: number, hauteur: number) => ({
  x: Math.floor(largeur * 0.12),
  y: Math.floor(hauteur * 0.5),
  l: Math.max(1, Math.floor(largeur * 0.76)),
  h: Math.max(1, Math.floor(hauteur * 0.45)),
});

const vider = async (p: Pixels, image: Sharp): Promise<Buffer> => {
  // What is behind furniture is, for a preview, the room's own surfaces smoothed out.
  // Blurred at an eighth of the size then scaled back: the same look, ten times cheaper on 12 MP.
  const petit = { width: Math.max(1, Math.round(p.largeur / 8)), height: Math.max(1, Math.round(p.hauteur / 8)) };
  const sigma = Math.max(0.8, Math.min(petit.width, petit.height) / 25);
  const reduit = await image.clone().resize(petit).blur(sigma).raw().toBuffer();
  const flou = await sharp(reduit, { raw: { ...petit, channels: 3 } }).resize(p.largeur, p.hauteur, { kernel: 'cubic' }).raw().toBuffer();
  const sortie = Buffer.from(p.data);
  const z = zoneSol(p.largeur, p.hauteur);
  for (let y = z.y; y < z.y + z.h; y++) {
    for (let x = z.x; x < z.x + z.l; x++) {
      const i = (y * p.largeur + x) * 3;
      for (let c = 0; c < 3; c++) sortie[i + c] = flou[i + c]!;
    }
  }
  return sortie;
};

const PALETTES: Record<string, [string, string, string]> = {
  modern: ['#d9d9d6', '#3a3a3a', '#c8a165'],
  Scandinavian: ['#efe9df', '#b9a58c', '#7f9c8a'],
  industrial: ['#5b5b5b', '#8a5a3c', '#2f2f2f'],
  'classic elegant': ['#e8dcc3', '#7a1f2b', '#c9a74a'],
  japandi: ['#d8cfc0', '#6b5b4b', '#2f3b2f'],
  'warm bohemian': ['#c8643b', '#e0b25a', '#5c7a4a'],
};

/** Simple silhouettes per room, drawn in the floor area. */
const meubles = (piece: string, l: number, h: number, [clair, fonce, accent]: [string, string, string]): string => {
  const r = (x: number, y: number, w: number, hh: number, c: string, rx = 0.02) =>
    `<rect x="${x * l}" y="${y * h}" width="${w * l}" height="${hh * h}" rx="${rx * l}" fill="${c}"/>`;
  switch (piece) {
    case 'bedroom':
      return r(0.25, 0.6, 0.5, 0.28, clair) + r(0.25, 0.55, 0.5, 0.08, fonce) + r(0.3, 0.62, 0.15, 0.06, accent);
    case "children's bedroom":
      return r(0.15, 0.65, 0.35, 0.22, accent) + r(0.6, 0.7, 0.2, 0.15, clair) + r(0.63, 0.66, 0.05, 0.05, fonce, 0.03);
    case 'kitchen':
      return r(0.3, 0.62, 0.4, 0.22, clair) + r(0.3, 0.6, 0.4, 0.03, fonce) + r(0.34, 0.52, 0.06, 0.08, accent);
    case 'dining room':
      return r(0.3, 0.62, 0.4, 0.05, fonce) + r(0.33, 0.67, 0.03, 0.18, fonce) + r(0.64, 0.67, 0.03, 0.18, fonce) + r(0.22, 0.6, 0.06, 0.25, accent) + r(0.72, 0.6, 0.06, 0.25, accent);
    case 'home office':
      return r(0.3, 0.6, 0.42, 0.04, fonce) + r(0.32, 0.64, 0.03, 0.2, fonce) + r(0.67, 0.64, 0.03, 0.2, fonce) + r(0.45, 0.5, 0.12, 0.09, accent) + r(0.45, 0.7, 0.1, 0.16, clair);
    default:
      return r(0.2, 0.62, 0.45, 0.2, clair) + r(0.2, 0.56, 0.45, 0.08, fonce) + r(0.7, 0.7, 0.12, 0.1, accent) + r(0.3, 0.86, 0.3, 0.05, accent, 0.1);
  }
};

const staging = async (p: Pixels, valeurs: Readonly<Record<string, string>>): Promise<Buffer> => {
  const palette = PALETTES[valeurs.style ?? 'modern'] ?? PALETTES.modern!;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${p.largeur}" height="${p.hauteur}">${meubles(valeurs.piece ?? 'living room', p.largeur, p.hauteur, palette)}</svg>`;
  return sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .composite([{ input: Buffer.from(svg) }])
    .removeAlpha()
    .raw()
    .toBuffer();
};

const TEINTES_RENOVATION: Record<string, [number, number, number]> = {
  contemporary: [236, 238, 240],
  classic: [240, 228, 205],
  'natural materials': [205, 180, 145],
};

const renovation = (p: Pixels, valeurs: Readonly<Record<string, string>>): Buffer => {
  const sortie = Buffer.from(p.data);
  const teinte = TEINTES_RENOVATION[valeurs.style ?? 'contemporary'] ?? TEINTES_RENOVATION.contemporary!;
  const force = valeurs.niveau === 'rafraichissement' ? 0.25 : 0.5;
  // Facade: the building, below the sky line; interior: the walls, above the floor.
  const [debut, fin] = valeurs.zone === 'interieur' ? [0, 0.55] : [0.3, 0.9];
  for (let y = Math.floor(p.hauteur * debut); y < Math.floor(p.hauteur * fin); y++) {
    for (let x = 0; x < p.largeur; x++) {
      const i = (y * p.largeur + x) * 3;
      const l = luminance(p.data[i]!, p.data[i + 1]!, p.data[i + 2]!) / 255;
      // New render in the style's colour, shaded by the original light: walls change, shapes stay.
      for (let c = 0; c < 3; c++) sortie[i + c] = borner((1 - force) * p.data[i + c]! + force * teinte[c]! * (0.55 + 0.6 * l));
    }
  }
  return sortie;
};

const FORMATS = { jpeg: 'jpeg', png: 'png', webp: 'webp' } as const;

export const creerMoteurLocal = (options: { delaiMs?: number } = {}): Moteur => ({
  async retoucher(demande: DemandeRetouche): Promise<ImageRetouchee> {
    if (options.delaiMs) await attendre(options.delaiMs);
    const graine = graineDe(demande.travail);
    let entree: Sharp;
    let format: keyof typeof FORMATS;
    let pixels: Pixels;
    try {
      const meta = await sharp(demande.image).metadata();
      format = meta.format === 'png' || meta.format === 'webp' ? meta.format : 'jpeg';
      entree = sharp(demande.image).rotate().toColourspace('srgb').removeAlpha();
      const { data, info } = await entree.clone().raw().toBuffer({ resolveWithObject: true });
      pixels = { data, largeur: info.width, hauteur: info.height };
    } catch {
      throw new ErreurTravail('image_illisible');
    }
    const traitements: Record<OutilImage, () => Buffer | Promise<Buffer>> = {
      ciel: () => ciel(pixels),
      saison: () => saison(pixels),
      vider: () => vider(pixels, sharp(pixels.data, { raw: { width: pixels.largeur, height: pixels.hauteur, channels: 3 } })),
      staging: () => staging(pixels, demande.valeurs),
      renovation: () => renovation(pixels, demande.valeurs),
    };
    const brut = await traitements[demande.outil]();
    const sortie = sharp(brut, { raw: { width: pixels.largeur, height: pixels.hauteur, channels: 3 } }).withExif(
      exifDeProvenance({ outil: demande.outil, apercu: true, graine }),
    );
    const image = await (format === 'jpeg' ? sortie.jpeg({ quality: 90 }) : format === 'png' ? sortie.png() : sortie.webp({ quality: 90 })).toBuffer();
    return { image, format, graine };
  },

  async rediger(demande) {
    if (options.delaiMs) await attendre(options.delaiMs);
    return { texte: redigerAnnonceLocale(demande.valeurs, demande.images.length) };
  },
});
