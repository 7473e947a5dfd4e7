/**
 * The local preview engine: deterministic sharp pipelines that show each tool's idea on the real
 * photo, without a model. It is what `npm start` and the tests run, so that every path of the
 * service (inputs, results, ZIPs, links) carries real images a person can look at.
 *
 * It runs the production engine's rules with a stand-in where the models are: objects are found by
 * the local detector (detecteur-local.ts) instead of Rekognition; vider and staging edit the area
 * built from them by the same code (zones.ts: furniture boxes without windows, doors and radiators;
 * the free floor) and say so the same way when there is nothing to edit; every result passes the
 * same structure check (controle.ts). Pixels outside the edited area are exactly the photo's, as the
 * production engine composites the model's answer into the original; `ciel`, as in production, first
 * corrects the light and verticals of the whole photo. Results say in their metadata that they are
 * previews (resultat.ts).
 */
import { setTimeout as attendre } from 'node:timers/promises';
import sharp from 'sharp';
import type { OutilImage } from '../core/outils';
import { redigerAnnonceLocale } from './annonce-locale';
import { boiteDuMasque, recomposer } from './commun/masques';
import { adoucir, trouverCiel } from './commun/ciel-masque';
import { avecControle, regionStructure } from './commun/controle';
import { detecteurLocal } from './detecteur-local';
import { detecteurPersonnesLocal } from './personnes-local';
import type { DetecteurPersonnes } from './commun/personnes';
import type { Detecteur } from './commun/detection';
import { graineDe, type DemandeRetouche, type ImageRetouchee, type Moteur, type Redaction } from './commun/moteur';
import { decoder, depuisPixels, luminance, type Pixels } from './commun/pixels';
import { redresser } from './commun/redressement';
import { fichierResultat } from './commun/resultat';
import { masqueFixes, zoneStaging, zoneVider, type ZoneOutil } from './commun/zones';

/** The preview writes from a fixed template, not a model: said as such on the job. */
export const REDACTION_LOCALE: Redaction = { automatique: true, intelligence_artificielle: false, modele: 'retouche-modele-local (template, no AI model)' };

const saturation = (r: number, g: number, b: number) => Math.max(r, g, b) - Math.min(r, g, b);
const borner = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** Per pixel weight 0–1 of a feathered 0–255 mask: 0 from the sky's edge (alpha 128) outwards, 1 inside. */
const dansCiel = (alpha: number) => Math.min(1, alpha / 128);

/** The sky of the corrected photo becomes blue, through the feathered mask: no seam at the roofline. */
const ciel = async (p: Pixels): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const { alpha } = await trouverCiel(p);
  // The gradient runs from the top to the lowest sky row: a horizon that is the photo's own.
  let bas = 1;
  for (let i = alpha.length - 1; i >= 0; i--)
    if (alpha[i]! >= 128) {
      bas = Math.floor(i / p.largeur) + 1;
      break;
    }
  for (let y = 0; y < p.hauteur; y++) {
    const t = Math.min(1, y / bas);
    const bleu = [40 + 120 * t, 110 + 100 * t, 215 + 30 * t];
    for (let x = 0; x < p.largeur; x++) {
      const a = alpha[y * p.largeur + x]! / 255;
      if (a === 0) continue;
      const i = (y * p.largeur + x) * 3;
      // Keep a little of the original texture (clouds) under the new blue.
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + a * (0.8 * bleu[c]! + 0.2 * p.data[i + c]! - p.data[i + c]!));
    }
  }
  return sortie;
};

/**
 * Snow on the ground, on the analysis copy: snow-like pixels (grey to cool, not saturated) grown from
 * the bottom of the frame through smooth steps only, outside the sky; kept only if, as a whole, it is
 * among the brightest of the photo (grey asphalt or a concrete yard is not snow). No fixed row: the
 * snow ends where the photo says, not at a line across the frame.
 */
const neigeAnalyse = ({ data, largeur: l, hauteur: h }: Pixels, ciel: Uint8Array): Uint8Array => {
  const n = l * h;
  const L = new Float32Array(n);
  for (let p = 0; p < n; p++) L[p] = luminance(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!);
  const neigeuse = (p: number) => {
    const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
    return !ciel[p] && L[p]! >= 80 && saturation(r, g, b) <= 35 && (b - r >= 2 || L[p]! >= 200);
  };
  const masque = new Uint8Array(n);
  const pile: number[] = [];
  for (let x = 0; x < l; x++) if (neigeuse((h - 1) * l + x)) ((masque[(h - 1) * l + x] = 1), pile.push((h - 1) * l + x));
  while (pile.length) {
    const p = pile.pop()!;
    const [x, y] = [p % l, (p / l) | 0];
    for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
      if (q < 0 || masque[q] || Math.abs(L[q]! - L[p]!) > 8 || !neigeuse(q)) continue;
      masque[q] = 1;
      pile.push(q);
    }
  }
  const hors = [...L.filter((_, p) => !ciel[p])].sort((a, b) => a - b);
  const p90 = hors[Math.floor(hors.length * 0.9)] ?? 255;
  let [aire, somme] = [0, 0];
  for (let p = 0; p < n; p++) if (masque[p]) (aire++, (somme += L[p]!));
  return aire > n * 0.01 && somme / aire >= 0.75 * p90 ? masque : new Uint8Array(n);
};

/** A per-pixel value in [0, 1) from its position: grass texture that is the same on every run. */
const hachage = (x: number, y: number) => {
  let v = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1);
  v = Math.imul(v ^ (v >>> 15), 0x85ebca6b);
  return ((v ^ (v >>> 13)) >>> 0) / 2 ** 32;
};

/** Where saison paints lawn (0–255, feathered) and where the sky is (0–255): exported for the tests and the bench. */
export const zonesSaison = async (p: Pixels): Promise<{ pelouse: Buffer; ciel: Buffer }> => {
  const { analyse, masqueAnalyse, alpha } = await trouverCiel(p);
  const neige = neigeAnalyse(analyse, masqueAnalyse);
  // Feathered over a couple of analysis pixels: grass tufts in the snow are covered, the edge is soft.
  return { pelouse: await adoucir(neige, analyse, p, 1.5), ciel: alpha };
};

const saison = async (p: Pixels): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const { pelouse, ciel } = await zonesSaison(p);
  // The snow's own mean light: the lawn keeps its light and shade whatever the exposure.
  let [somme, n] = [0, 0];
  for (let q = 0; q < pelouse.length; q++) if (pelouse[q]! >= 128) ((somme += luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!)), n++);
  const reference = n ? somme / n : 180;
  for (let y = 0; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur; x++) {
      const q = y * p.largeur + x;
      // Nothing of the sky changes; the edit fades out towards it.
      const hors = 1 - dansCiel(ciel[q]!);
      if (hors === 0) continue;
      const i = q * 3;
      const r = p.data[i]!,
        g = p.data[i + 1]!,
        b = p.data[i + 2]!;
      const w = pelouse[q]! / 255;
      // A warmer summer light on the ground and the house, lawn where the snow was, with a blade-scale variation.
      const chaud = [r * 1.04 + 4, g * 1.04 + 3, b * 0.94];
      const l = (0.8 + 0.45 * (luminance(r, g, b) / reference - 1)) * (0.88 + 0.24 * hachage(x, y));
      const herbe = [92 * l, 142 * l, 56 * l];
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + hors * (chaud[c]! + w * (herbe[c]! - chaud[c]!) - p.data[i + c]!));
    }
  }
  return sortie;
};

/** Long edge of the copy the vider preview fills: the fill is smooth, so more pixels would add nothing. */
const COTE_REMPLISSAGE = 640;

/**
 * Pull-push: each hole takes the mean of the known pixels around it at the finest scale where there are
 * any, blended up level by level (bilinear), so a floor or a wall continues smoothly across the hole
 * from every side at once — no rows, no streaks. `connu` is 1 where the pixel is the photo's.
 */
const tirerPousser = (data: Float32Array, connu: Float32Array, l: number, h: number): void => {
  if (l <= 1 && h <= 1) return;
  const [l2, h2] = [Math.ceil(l / 2), Math.ceil(h / 2)];
  const d2 = new Float32Array(l2 * h2 * 3);
  const w2 = new Float32Array(l2 * h2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const [i, j] = [y * l + x, (y >> 1) * l2 + (x >> 1)];
      const w = connu[i]!;
      if (!w) continue;
      w2[j]! += w;
      for (let c = 0; c < 3; c++) d2[j * 3 + c]! += data[i * 3 + c]! * w;
    }
  }
  for (let j = 0; j < w2.length; j++) {
    if (!w2[j]) continue;
    for (let c = 0; c < 3; c++) d2[j * 3 + c]! /= w2[j]!;
    w2[j] = 1;
  }
  tirerPousser(d2, w2, l2, h2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const i = y * l + x;
      if (connu[i]) continue;
      // Bilinear from the coarser level, centres aligned.
      const [u, v] = [Math.min(l2 - 1, Math.max(0, (x - 0.5) / 2)), Math.min(h2 - 1, Math.max(0, (y - 0.5) / 2))];
      const [x0, y0] = [Math.floor(u), Math.floor(v)];
      const [x1, y1] = [Math.min(l2 - 1, x0 + 1), Math.min(h2 - 1, y0 + 1)];
      const [tx, ty] = [u - x0, v - y0];
      for (let c = 0; c < 3; c++) {
        const a = d2[(y0 * l2 + x0) * 3 + c]! * (1 - tx) + d2[(y0 * l2 + x1) * 3 + c]! * tx;
        const b = d2[(y1 * l2 + x0) * 3 + c]! * (1 - tx) + d2[(y1 * l2 + x1) * 3 + c]! * tx;
        data[i * 3 + c] = a * (1 - ty) + b * ty;
      }
    }
  }
};

/**
 * What is behind furniture is, for a preview, the room's own surfaces continued: the masked pixels are
 * filled from the known ones around them on a small copy (pull-push), scaled back, with a seeded grain
 * so the fill does not look painted, and blended in through the feathered mask. Nothing of the covered
 * pixels is used: no ghost of the furniture.
 */
const vider = async (p: Pixels, zone: ZoneOutil, graine: number): Promise<Buffer> => {
  const { largeur: l, hauteur: h } = p;
  const echelle = Math.min(1, COTE_REMPLISSAGE / Math.max(l, h));
  const [lp, hp] = [Math.max(1, Math.round(l * echelle)), Math.max(1, Math.round(h * echelle))];
  const petit = await depuisPixels(p).resize(lp, hp, { fit: 'fill' }).raw().toBuffer();
  const masque = await sharp(zone.masque, { raw: { width: l, height: h, channels: 1 } })
    .resize(lp, hp, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const data = Float32Array.from(petit);
  // A pixel of the small copy half covered by the mask carries some furniture: treated as unknown.
  const connu = Float32Array.from(masque, (m) => (m > 0 ? 0 : 1));
  tirerPousser(data, connu, lp, hp);
  const rempli = await sharp(Buffer.from(Uint8Array.from(data, (v) => borner(v))), { raw: { width: lp, height: hp, channels: 3 } })
    .resize(l, h, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
  let alea = graine || 1;
  const bruit = () => ((alea = (Math.imul(alea, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 6;
  for (let q = 0; q < zone.masque.length; q++) {
    if (!zone.masque[q]) continue;
    const grain = bruit();
    for (let c = 0; c < 3; c++) rempli[q * 3 + c] = borner(rempli[q * 3 + c]! + grain);
  }
  return recomposer(p, { data: rempli, largeur: l, hauteur: h }, zone.alpha);
};

const PALETTES: Record<string, [string, string, string]> = {
  modern: ['#d9d9d6', '#3a3a3a', '#c8a165'],
  Scandinavian: ['#efe9df', '#b9a58c', '#7f9c8a'],
  industrial: ['#5b5b5b', '#8a5a3c', '#2f2f2f'],
  'classic elegant': ['#e8dcc3', '#7a1f2b', '#c9a74a'],
  japandi: ['#d8cfc0', '#6b5b4b', '#2f3b2f'],
  'warm bohemian': ['#c8643b', '#e0b25a', '#5c7a4a'],
};

/**
 * Furniture per room, in fractions of the frame, standing in the staging zone. Each part is shaded
 * top-light to bottom-dark and casts a soft contact shadow, so the preview reads as objects in the
 * room rather than flat stickers.
 */
const meubles = (piece: string, l: number, h: number, [clair, fonce, accent]: [string, string, string]): string => {
  const X = (v: number) => (v * l).toFixed(1);
  const Y = (v: number) => (v * h).toFixed(1);
  const bloc = (x: number, y: number, w: number, hh: number, c: string, rayon = 0.008) =>
    `<rect x="${X(x)}" y="${Y(y)}" width="${X(w)}" height="${Y(hh)}" rx="${X(rayon)}" fill="${c}"/>` +
    `<rect x="${X(x)}" y="${Y(y)}" width="${X(w)}" height="${Y(hh)}" rx="${X(rayon)}" fill="url(#relief)"/>`;
  const ombre = (cx: number, cy: number, rx: number, ry: number) =>
    `<ellipse cx="${X(cx)}" cy="${Y(cy)}" rx="${X(rx)}" ry="${Y(ry)}" fill="#000" fill-opacity="0.35" filter="url(#flou)"/>`;
  const pieds = (x0: number, x1: number, y: number, hh: number) => bloc(x0, y, 0.008, hh, '#2a2622', 0.002) + bloc(x1 - 0.008, y, 0.008, hh, '#2a2622', 0.002);
  const plante = (x: number, y: number) =>
    ombre(x, y + 0.02, 0.035, 0.012) +
    bloc(x - 0.022, y - 0.07, 0.044, 0.09, '#5a5550', 0.006) +
    [
      [0, -0.16, 0.05],
      [-0.03, -0.12, 0.035],
      [0.03, -0.11, 0.035],
      [0, -0.22, 0.03],
    ]
      .map(([dx, dy, r]) => `<ellipse cx="${X(x + dx!)}" cy="${Y(y + dy!)}" rx="${X(r!)}" ry="${Y(r! * 1.3)}" fill="#4f7a45"/>`)
      .join('');
  const lampe = (x: number, y: number) =>
    ombre(x, y + 0.005, 0.025, 0.008) + bloc(x - 0.003, y - 0.3, 0.006, 0.3, '#2a2622', 0.002) + bloc(x - 0.03, y - 0.36, 0.06, 0.07, '#f2ead8', 0.004);
  switch (piece) {
    case 'bedroom':
    case "children's bedroom": {
      const enfant = piece !== 'bedroom';
      const [x, w] = enfant ? [0.2, 0.32] : [0.27, 0.46];
      return (
        ombre(x + w / 2, 0.93, w / 1.8, 0.03) +
        bloc(x, 0.5, w, 0.2, fonce) +
        bloc(x, 0.66, w, 0.25, clair) +
        bloc(x, 0.74, w, 0.17, enfant ? accent : clair) +
        bloc(x + 0.03, 0.63, w / 2 - 0.05, 0.07, '#f7f5f0', 0.02) +
        bloc(x + w / 2 + 0.02, 0.63, w / 2 - 0.05, 0.07, '#f7f5f0', 0.02) +
        (enfant
          ? ombre(0.72, 0.88, 0.1, 0.02) + bloc(0.62, 0.66, 0.2, 0.04, clair) + pieds(0.63, 0.81, 0.7, 0.17) + bloc(0.68, 0.6, 0.05, 0.06, accent)
          : ombre(0.2, 0.86, 0.05, 0.012) +
            bloc(0.15, 0.72, 0.09, 0.13, fonce) +
            lampe(0.195, 0.72) +
            ombre(0.8, 0.86, 0.05, 0.012) +
            bloc(0.76, 0.72, 0.09, 0.13, fonce) +
            lampe(0.805, 0.72))
      );
    }
    case 'kitchen':
    case 'dining room': {
      const chaises = [0.3, 0.42, 0.54, 0.66]
        .map((x) => ombre(x + 0.03, 0.95, 0.04, 0.01) + bloc(x, 0.62, 0.06, 0.12, accent) + bloc(x, 0.74, 0.06, 0.03, accent) + pieds(x, x + 0.06, 0.77, 0.16))
        .join('');
      return (
        ombre(0.5, 0.92, 0.25, 0.03) +
        bloc(0.25, 0.68, 0.5, 0.035, fonce, 0.004) +
        pieds(0.27, 0.73, 0.715, 0.19) +
        chaises +
        (piece === 'dining room' ? plante(0.85, 0.85) : '')
      );
    }
    case 'home office':
      return (
        ombre(0.5, 0.9, 0.22, 0.025) +
        bloc(0.3, 0.64, 0.4, 0.03, fonce, 0.003) +
        pieds(0.31, 0.69, 0.67, 0.22) +
        bloc(0.44, 0.52, 0.12, 0.1, '#1f1f1f', 0.004) +
        ombre(0.5, 0.95, 0.06, 0.012) +
        bloc(0.45, 0.7, 0.1, 0.1, accent, 0.02) +
        bloc(0.455, 0.8, 0.09, 0.03, accent) +
        pieds(0.47, 0.53, 0.83, 0.11) +
        ombre(0.86, 0.9, 0.06, 0.015) +
        bloc(0.8, 0.46, 0.12, 0.43, clair, 0.004) +
        plante(0.14, 0.88)
      );
    default:
      return (
        `<ellipse cx="${X(0.5)}" cy="${Y(0.86)}" rx="${X(0.3)}" ry="${Y(0.08)}" fill="${accent}" fill-opacity="0.55"/>` +
        ombre(0.45, 0.8, 0.26, 0.03) +
        bloc(0.2, 0.55, 0.5, 0.13, clair, 0.015) +
        bloc(0.2, 0.66, 0.5, 0.1, clair) +
        bloc(0.17, 0.6, 0.05, 0.18, clair) +
        bloc(0.68, 0.6, 0.05, 0.18, clair) +
        bloc(0.26, 0.59, 0.08, 0.07, accent, 0.01) +
        bloc(0.56, 0.59, 0.08, 0.07, accent, 0.01) +
        ombre(0.48, 0.93, 0.13, 0.018) +
        bloc(0.36, 0.82, 0.24, 0.025, fonce, 0.003) +
        pieds(0.37, 0.59, 0.845, 0.07) +
        lampe(0.8, 0.8) +
        plante(0.88, 0.9)
      );
  }
};

/** The gradients and blur the furniture refers to. */
const defsMeubles = (largeur: number) =>
  '<defs><linearGradient id="relief" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="0.18"/>' +
  '<stop offset="1" stop-color="#000" stop-opacity="0.28"/></linearGradient>' +
  `<filter id="flou"><feGaussianBlur stdDeviation="${Math.max(1, largeur * 0.006).toFixed(1)}"/></filter></defs>`;

/**
 * The furniture is laid out in the free floor's box (the edited area found in the photo), then
 * blended through its feathered mask: where a window, a door or a radiator is, the photo stays, as
 * in production.
 */
const staging = async (p: Pixels, zone: ZoneOutil, valeurs: Readonly<Record<string, string>>): Promise<Buffer> => {
  const palette = PALETTES[valeurs.style ?? 'modern'] ?? PALETTES.modern!;
  // Never empty: zoneStaging refuses a photo without free floor (sol_introuvable).
  const b = boiteDuMasque(zone.masque, p.largeur, p.hauteur) ?? { gauche: 0, haut: 0, largeur: p.largeur, hauteur: p.hauteur };
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${p.largeur}" height="${p.hauteur}">${defsMeubles(b.largeur)}` +
    `<g transform="translate(${b.gauche} ${b.haut})">${meubles(valeurs.piece ?? 'living room', b.largeur, b.hauteur, palette)}</g></svg>`;
  const dessine = await depuisPixels(p)
    .composite([{ input: Buffer.from(svg) }])
    .removeAlpha()
    .raw()
    .toBuffer();
  return recomposer(p, { data: dessine, largeur: p.largeur, hauteur: p.hauteur }, zone.alpha);
};

const TEINTES_RENOVATION: Record<string, [number, number, number]> = {
  contemporary: [236, 238, 240],
  classic: [240, 228, 205],
  'natural materials': [205, 180, 145],
};

/**
 * The walls the preview re-renders, on the analysis copy: not sky, not snow on the ground, not
 * foliage or bare branches, not glass (dark and cool), not blown highlights; for a facade, what stands between 25%
 * and 92% of the height, for an interior the upper 55% (the walls above the floor). The band's ends
 * and the mask's edges are feathered.
 */
export const zoneRenovation = async (p: Pixels, zone: string | undefined): Promise<Buffer> => {
  const { analyse, masqueAnalyse } = await trouverCiel(p);
  const { data, largeur: l, hauteur: h } = analyse;
  const interieur = zone === 'interieur';
  const ciel = interieur ? new Uint8Array(l * h) : masqueAnalyse;
  const neige = interieur ? ciel : neigeAnalyse(analyse, ciel);
  const [debut, fin] = interieur ? [0, 0.55] : [0.25, 0.92];
  const masque = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) {
    const fy = (y + 0.5) / h;
    if (fy < debut || fy >= fin) continue;
    for (let x = 0; x < l; x++) {
      const p0 = y * l + x;
      const [r, g, b] = [data[p0 * 3]!, data[p0 * 3 + 1]!, data[p0 * 3 + 2]!];
      const lu = luminance(r, g, b);
      const feuillage = g > r + 6 && g > b + 6;
      const vitre = b > r + 8 && lu < 130;
      // Bare winter trees: dark, grey and busy, where a wall, even of brick (saturated), is not.
      const voisin = (dx: number, dy: number) => {
        const q = Math.min(h - 1, Math.max(0, y + dy)) * l + Math.min(l - 1, Math.max(0, x + dx));
        return luminance(data[q * 3]!, data[q * 3 + 1]!, data[q * 3 + 2]!);
      };
      const agite = Math.abs(voisin(1, 0) - voisin(-1, 0)) + Math.abs(voisin(0, 1) - voisin(0, -1)) > 10;
      const branches = agite && lu < 125 && saturation(r, g, b) < 40;
      if (ciel[p0] || neige[p0] || feuillage || vitre || branches || lu < 45 || lu > 245) continue;
      masque[p0] = 1;
    }
  }
  const alpha = await adoucir(masque, analyse, p, 1.5);
  // The band's ends ramp over 5% of the height: no line across the photo.
  const rampe = 0.05 * p.hauteur;
  for (let y = 0; y < p.hauteur; y++) {
    const k = Math.max(0, Math.min(1, (y - debut * p.hauteur) / rampe, (fin * p.hauteur - y) / rampe));
    if (k === 1) continue;
    for (let x = 0; x < p.largeur; x++) alpha[y * p.largeur + x] = Math.round(alpha[y * p.largeur + x]! * k);
  }
  return alpha;
};

/** `fixes`: the windows and doors found (zones.ts masqueFixes): the openings stay as they are, as production's structure control keeps them. */
const renovation = async (p: Pixels, valeurs: Readonly<Record<string, string>>, fixes: Buffer): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const teinte = TEINTES_RENOVATION[valeurs.style ?? 'contemporary'] ?? TEINTES_RENOVATION.contemporary!;
  const force = valeurs.niveau === 'rafraichissement' ? 0.45 : 0.85;
  const alpha = await zoneRenovation(p, valeurs.zone);
  for (let q = 0; q < alpha.length; q++) if (fixes[q]) alpha[q] = 0;
  // The walls' own median light: the new render keeps their shading relative to it.
  const histo = new Float64Array(256);
  let n = 0;
  for (let q = 0; q < alpha.length; q++) if (alpha[q]! >= 128) (histo[Math.round(luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!))]!++, n++);
  let [cumul, mediane] = [0, 128];
  for (let v = 0; v < 256 && n; v++)
    if ((cumul += histo[v]!) >= n / 2) {
      mediane = Math.max(1, v);
      break;
    }
  const lt = luminance(...teinte);
  // Part of the way from the old wall's brightness to the new colour's (a repainted wall, not a white
  // veil), by at most a quarter: brightening further washed a facade into the sky above it, and the
  // structure check (controle.ts) rightly read the lost roofline as a changed outline.
  const niveau = Math.min(1.25, Math.sqrt(lt / mediane));
  for (let q = 0; q < alpha.length; q++) {
    if (!alpha[q]) continue;
    const w = (force * alpha[q]!) / 255;
    const i = q * 3;
    const lu = luminance(p.data[i]!, p.data[i + 1]!, p.data[i + 2]!);
    const k = (lu * niveau) / lt;
    for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + w * (teinte[c]! * k - p.data[i + c]!));
  }
  return sortie;
};

/**
 * `detecteur` and `personnes`: the local stand-ins by default (detecteur-local.ts, personnes-local.ts); a
 * bench or a test may give the boxes itself, as Rekognition would.
 */
export const creerMoteurLocal = (options: { delaiMs?: number; detecteur?: Detecteur; personnes?: DetecteurPersonnes } = {}): Moteur => ({
  nom: 'local',
  async retoucher(demande: DemandeRetouche): Promise<ImageRetouchee> {
    if (options.delaiMs) await attendre(options.delaiMs);
    const { pixels, format } = await decoder(demande.image);
    // As in production: light and verticals corrected first, then everything works on the corrected photo.
    const base = demande.outil === 'ciel' ? await redresser(pixels) : pixels;
    const objets = await (options.detecteur ?? detecteurLocal).detecter(base);
    const zone = demande.outil === 'vider' ? await zoneVider(base, objets) : demande.outil === 'staging' ? await zoneStaging(base, objets) : null;
    const region = await regionStructure(demande.outil, base, objets, zone?.masque ?? null);
    const traitements: Record<OutilImage, (graine: number) => Promise<Buffer>> = {
      ciel: () => ciel(base),
      saison: () => saison(base),
      vider: (graine) => vider(base, zone!, graine),
      staging: () => staging(base, zone!, demande.valeurs),
      renovation: () => renovation(base, demande.valeurs, masqueFixes(base.largeur, base.hauteur, objets)),
    };
    const {
      pixels: resultat,
      graine,
      structure,
    } = await avecControle(base, region, async (essai) => {
      const graine = graineDe(demande.travail) + essai - 1;
      return { pixels: { ...base, data: await traitements[demande.outil](graine) }, graine };
    });
    const { fichier, floutage } = await fichierResultat(resultat, format, {
      outil: demande.outil,
      valeurs: demande.valeurs,
      apercu: true,
      graine,
      personnes: options.personnes ?? detecteurPersonnesLocal,
      avant: base,
    });
    return { image: fichier, format, graine, structure, floutage };
  },

  async rediger(demande) {
    if (options.delaiMs) await attendre(options.delaiMs);
    return { texte: redigerAnnonceLocale(demande.valeurs, demande.images.length), redaction: REDACTION_LOCALE };
  },
});
