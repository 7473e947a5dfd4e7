/**
 * The local preview engine: deterministic sharp pipelines that show each tool's idea on the real
 * photo, without a model. It is what `npm start` and the tests run, so that every path of the
 * service (inputs, results, ZIPs, links) carries real images a person can look at.
 *
 * Each tool edits the region its production recipe edits (the same zones) and leaves the other
 * pixels exactly as they were, as the production engine composites the model's answer into the
 * original; `ciel`, as in production, first corrects the light and verticals of the whole photo.
 * Results say in their metadata that they are previews (resultat.ts).
 */
import { setTimeout as attendre } from 'node:timers/promises';
import type { OutilImage } from '../core/outils';
import { redigerAnnonceLocale } from './annonce-locale';

/** The preview writes from a fixed template, not a model: said as such on the job. */
export const REDACTION_LOCALE: Redaction = { automatique: true, intelligence_artificielle: false, modele: 'retouche-modele-local (template, no AI model)' };
import { ZONE_STAGING } from './bedrock/staging';
import { bornesRectangle } from './bedrock/masques';
import { ZONE_VIDER } from './bedrock/vider';
import { graineDe, type DemandeRetouche, type ImageRetouchee, type Moteur, type Redaction } from './moteur';
import { decoder, depuisPixels, luminance, type Pixels } from './pixels';
import { adoucir, trouverCiel } from './ciel-masque';
import { redresser } from './redressement';
import { fichierResultat } from './resultat';

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
  for (let i = alpha.length - 1; i >= 0; i--) if (alpha[i]! >= 128) { bas = Math.floor(i / p.largeur) + 1; break; }
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
  for (let x = 0; x < l; x++) if (neigeuse((h - 1) * l + x)) (masque[(h - 1) * l + x] = 1), pile.push((h - 1) * l + x);
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
  for (let p = 0; p < n; p++) if (masque[p]) aire++, (somme += L[p]!);
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
  for (let q = 0; q < pelouse.length; q++) if (pelouse[q]! >= 128) somme += luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!), n++;
  const reference = n ? somme / n : 180;
  for (let y = 0; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur; x++) {
      const q = y * p.largeur + x;
      // Nothing of the sky changes; the edit fades out towards it.
      const hors = 1 - dansCiel(ciel[q]!);
      if (hors === 0) continue;
      const i = q * 3;
      const r = p.data[i]!, g = p.data[i + 1]!, b = p.data[i + 2]!;
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

/**
 * What is behind furniture is, for a preview, the room's own surfaces continued: each row of the zone
 * runs from the pixels just left of it to those just right of it (a floor or a wall continues across
 * the room), blended near the top edge into the pixels just above so there is no seam. A seeded grain
 * keeps the fill from looking painted. Nothing of the covered pixels is used: no ghost of the furniture.
 */
const vider = (p: Pixels, graine: number): Buffer => {
  const { largeur: l, hauteur: h, data } = p;
  const sortie = Buffer.from(data);
  const z = bornesRectangle(l, h, ZONE_VIDER);
  const px = (x: number, y: number) => (Math.min(h - 1, Math.max(0, y)) * l + Math.min(l - 1, Math.max(0, x))) * 3;
  // A few pixels averaged on each side: one pixel of the border can be an edge or noise.
  const bord = (x: number, y: number, sens: number, c: number) => {
    let somme = 0;
    for (let k = 0; k < 4; k++) somme += data[px(x + sens * k, y) + c]!;
    return somme / 4;
  };
  const fondu = Math.max(2, Math.round(h * 0.04));
  let alea = graine || 1;
  const bruit = () => ((alea = (Math.imul(alea, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 6;
  for (let y = z.y0; y < z.y1; y++) {
    const haut = Math.max(0, 1 - (y - z.y0) / fondu);
    const [gauche, droite] = [-1, 1].map((sens) => [0, 1, 2].map((c) => bord(sens < 0 ? z.x0 - 1 : z.x1, y, sens, c))) as [number[], number[]];
    for (let x = z.x0; x < z.x1; x++) {
      const t = (x - z.x0 + 0.5) / (z.x1 - z.x0);
      const i = (y * l + x) * 3;
      const grain = bruit();
      for (let c = 0; c < 3; c++) {
        const ligne = (1 - t) * gauche[c]! + t * droite[c]!;
        sortie[i + c] = borner(haut === 0 ? ligne + grain : (1 - haut) * ligne + haut * data[px(x, z.y0 - 1) + c]! + grain);
      }
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
    ombre(x, y + 0.02, 0.035, 0.012) + bloc(x - 0.022, y - 0.07, 0.044, 0.09, '#5a5550', 0.006) +
    [[0, -0.16, 0.05], [-0.03, -0.12, 0.035], [0.03, -0.11, 0.035], [0, -0.22, 0.03]]
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
        ombre(x + w / 2, 0.93, w / 1.8, 0.03) + bloc(x, 0.5, w, 0.2, fonce) + bloc(x, 0.66, w, 0.25, clair) + bloc(x, 0.74, w, 0.17, enfant ? accent : clair) +
        bloc(x + 0.03, 0.63, w / 2 - 0.05, 0.07, '#f7f5f0', 0.02) + bloc(x + w / 2 + 0.02, 0.63, w / 2 - 0.05, 0.07, '#f7f5f0', 0.02) +
        (enfant
          ? ombre(0.72, 0.88, 0.1, 0.02) + bloc(0.62, 0.66, 0.2, 0.04, clair) + pieds(0.63, 0.81, 0.7, 0.17) + bloc(0.68, 0.6, 0.05, 0.06, accent)
          : ombre(0.2, 0.86, 0.05, 0.012) + bloc(0.15, 0.72, 0.09, 0.13, fonce) + lampe(0.195, 0.72) +
            ombre(0.8, 0.86, 0.05, 0.012) + bloc(0.76, 0.72, 0.09, 0.13, fonce) + lampe(0.805, 0.72))
      );
    }
    case 'kitchen':
    case 'dining room': {
      const chaises = [0.3, 0.42, 0.54, 0.66].map((x) => ombre(x + 0.03, 0.95, 0.04, 0.01) + bloc(x, 0.62, 0.06, 0.12, accent) + bloc(x, 0.74, 0.06, 0.03, accent) + pieds(x, x + 0.06, 0.77, 0.16)).join('');
      return ombre(0.5, 0.92, 0.25, 0.03) + bloc(0.25, 0.68, 0.5, 0.035, fonce, 0.004) + pieds(0.27, 0.73, 0.715, 0.19) + chaises + (piece === 'dining room' ? plante(0.85, 0.85) : '');
    }
    case 'home office':
      return (
        ombre(0.5, 0.9, 0.22, 0.025) + bloc(0.3, 0.64, 0.4, 0.03, fonce, 0.003) + pieds(0.31, 0.69, 0.67, 0.22) + bloc(0.44, 0.52, 0.12, 0.1, '#1f1f1f', 0.004) +
        ombre(0.5, 0.95, 0.06, 0.012) + bloc(0.45, 0.7, 0.1, 0.1, accent, 0.02) + bloc(0.455, 0.8, 0.09, 0.03, accent) + pieds(0.47, 0.53, 0.83, 0.11) +
        ombre(0.86, 0.9, 0.06, 0.015) + bloc(0.8, 0.46, 0.12, 0.43, clair, 0.004) + plante(0.14, 0.88)
      );
    default:
      return (
        `<ellipse cx="${X(0.5)}" cy="${Y(0.86)}" rx="${X(0.3)}" ry="${Y(0.08)}" fill="${accent}" fill-opacity="0.55"/>` +
        ombre(0.45, 0.8, 0.26, 0.03) + bloc(0.2, 0.55, 0.5, 0.13, clair, 0.015) + bloc(0.2, 0.66, 0.5, 0.1, clair) +
        bloc(0.17, 0.6, 0.05, 0.18, clair) + bloc(0.68, 0.6, 0.05, 0.18, clair) + bloc(0.26, 0.59, 0.08, 0.07, accent, 0.01) + bloc(0.56, 0.59, 0.08, 0.07, accent, 0.01) +
        ombre(0.48, 0.93, 0.13, 0.018) + bloc(0.36, 0.82, 0.24, 0.025, fonce, 0.003) + pieds(0.37, 0.59, 0.845, 0.07) +
        lampe(0.8, 0.8) + plante(0.88, 0.9)
      );
  }
};

/** The gradients and blur the furniture refers to. */
const defsMeubles = (largeur: number) =>
  '<defs><linearGradient id="relief" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="0.18"/>' +
  '<stop offset="1" stop-color="#000" stop-opacity="0.28"/></linearGradient>' +
  `<filter id="flou"><feGaussianBlur stdDeviation="${Math.max(1, largeur * 0.006).toFixed(1)}"/></filter></defs>`;

const staging = async (p: Pixels, valeurs: Readonly<Record<string, string>>): Promise<Buffer> => {
  const palette = PALETTES[valeurs.style ?? 'modern'] ?? PALETTES.modern!;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${p.largeur}" height="${p.hauteur}">${defsMeubles(p.largeur)}${meubles(valeurs.piece ?? 'living room', p.largeur, p.hauteur, palette)}</svg>`;
  const dessine = await depuisPixels(p).composite([{ input: Buffer.from(svg) }]).removeAlpha().raw().toBuffer();
  // Only the production recipe's zone may change, as there: the rest is the photo's own pixels.
  const sortie = Buffer.from(p.data);
  const z = bornesRectangle(p.largeur, p.hauteur, ZONE_STAGING);
  for (let y = z.y0; y < z.y1; y++) dessine.copy(sortie, (y * p.largeur + z.x0) * 3, (y * p.largeur + z.x0) * 3, (y * p.largeur + z.x1) * 3);
  return sortie;
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

const renovation = async (p: Pixels, valeurs: Readonly<Record<string, string>>): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const teinte = TEINTES_RENOVATION[valeurs.style ?? 'contemporary'] ?? TEINTES_RENOVATION.contemporary!;
  const force = valeurs.niveau === 'rafraichissement' ? 0.45 : 0.85;
  const alpha = await zoneRenovation(p, valeurs.zone);
  // The walls' own median light: the new render keeps their shading relative to it.
  const histo = new Float64Array(256);
  let n = 0;
  for (let q = 0; q < alpha.length; q++) if (alpha[q]! >= 128) histo[Math.round(luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!))]!++, n++;
  let [cumul, mediane] = [0, 128];
  for (let v = 0; v < 256 && n; v++) if ((cumul += histo[v]!) >= n / 2) { mediane = Math.max(1, v); break; }
  const lt = luminance(...teinte);
  // Half-way from the old wall's brightness to the new colour's: a repainted wall, not a white veil.
  const niveau = Math.sqrt(lt / mediane);
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

export const creerMoteurLocal = (options: { delaiMs?: number } = {}): Moteur => ({
  nom: 'local',
  async retoucher(demande: DemandeRetouche): Promise<ImageRetouchee> {
    if (options.delaiMs) await attendre(options.delaiMs);
    const graine = graineDe(demande.travail);
    const { pixels, format } = await decoder(demande.image);
    const traitements: Record<OutilImage, () => Promise<Pixels>> = {
      // As in production: light and verticals corrected first, then the sky of the corrected photo.
      ciel: async () => {
        const redressee = await redresser(pixels);
        return { ...redressee, data: await ciel(redressee) };
      },
      saison: async () => ({ ...pixels, data: await saison(pixels) }),
      vider: async () => ({ ...pixels, data: vider(pixels, graine) }),
      staging: async () => ({ ...pixels, data: await staging(pixels, demande.valeurs) }),
      renovation: async () => ({ ...pixels, data: await renovation(pixels, demande.valeurs) }),
    };
    const resultat = await traitements[demande.outil]();
    const image = await fichierResultat(resultat, format, { outil: demande.outil, valeurs: demande.valeurs, apercu: true, graine });
    return { image, format, graine };
  },

  async rediger(demande) {
    if (options.delaiMs) await attendre(options.delaiMs);
    return { texte: redigerAnnonceLocale(demande.valeurs, demande.images.length), redaction: REDACTION_LOCALE };
  },
});
