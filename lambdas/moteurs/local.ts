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
import { decoder, depuisPixels, type Pixels } from './pixels';
import { redresser } from './redressement';
import { fichierResultat } from './resultat';

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

const estNeige = (r: number, g: number, b: number) => luminance(r, g, b) > 165 && saturation(r, g, b) < 30 && b >= r - 8;

/**
 * Snow on the ground: snow-like pixels reached from the bottom of the frame without crossing anything
 * else, so a white render or a snowy roof above a dark eave stays what it is.
 */
const masqueNeige = (p: Pixels, debut: number, ciel: Uint8Array): Uint8Array => {
  const { data, largeur, hauteur } = p;
  // The sky and the haze that continues it are bright and grey too: never lawn.
  const masque = Uint8Array.from(ciel);
  const pile: number[] = [];
  const visiter = (x: number, y: number) => {
    const p = y * largeur + x;
    if (masque[p] || !estNeige(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!)) return;
    masque[p] = 1;
    pile.push(p);
  };
  for (let x = 0; x < largeur; x++) visiter(x, hauteur - 1);
  while (pile.length) {
    const p = pile.pop()!;
    const [x, y] = [p % largeur, Math.floor(p / largeur)];
    if (x > 0) visiter(x - 1, y);
    if (x < largeur - 1) visiter(x + 1, y);
    if (y > debut) visiter(x, y - 1);
    if (y < hauteur - 1) visiter(x, y + 1);
  }
  for (let i = 0; i < masque.length; i++) if (ciel[i]) masque[i] = 0;
  return masque;
};

/** A per-pixel value in [0, 1) from its position: grass texture that is the same on every run. */
const hachage = (x: number, y: number) => {
  let v = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1);
  v = Math.imul(v ^ (v >>> 15), 0x85ebca6b);
  return ((v ^ (v >>> 13)) >>> 0) / 2 ** 32;
};

const saison = (p: Pixels): Buffer => {
  const sortie = Buffer.from(p.data);
  const debut = Math.floor(p.hauteur * 0.4);
  const ciel = masqueCiel(p);
  const neige = masqueNeige(p, debut, ciel);
  for (let y = debut; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur; x++) {
      const i = (y * p.largeur + x) * 3;
      const r = p.data[i]!, g = p.data[i + 1]!, b = p.data[i + 2]!;
      if (neige[y * p.largeur + x]) {
        // Snow becomes lawn, keeping its light and shade, with a blade-scale variation.
        const l = (0.55 + 0.5 * (luminance(r, g, b) / 255)) * (0.88 + 0.24 * hachage(x, y));
        sortie[i] = borner(74 * l), sortie[i + 1] = borner(122 * l), sortie[i + 2] = borner(46 * l);
      } else if (!ciel[y * p.largeur + x]) {
        // A warmer summer light on everything else of the ground.
        sortie[i] = borner(r * 1.04 + 4), sortie[i + 1] = borner(g * 1.04 + 3), sortie[i + 2] = borner(b * 0.94);
      }
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

const renovation = (p: Pixels, valeurs: Readonly<Record<string, string>>): Buffer => {
  const sortie = Buffer.from(p.data);
  const teinte = TEINTES_RENOVATION[valeurs.style ?? 'contemporary'] ?? TEINTES_RENOVATION.contemporary!;
  const force = valeurs.niveau === 'rafraichissement' ? 0.25 : 0.5;
  // Facade: the building, below the sky line, never the sky itself; interior: the walls, above the floor.
  const [debut, fin] = (valeurs.zone === 'interieur' ? [0, 0.55] : [0.3, 0.9]).map((f) => Math.floor(p.hauteur * f)) as [number, number];
  const ciel = valeurs.zone === 'interieur' ? null : masqueCiel(p);
  // The change fades in and out over the band's edges: no line across the photo.
  const fondu = Math.max(1, (fin - debut) * 0.15);
  for (let y = debut; y < fin; y++) {
    const poids = force * Math.min(1, (y - debut + 1) / fondu, (fin - y) / fondu);
    for (let x = 0; x < p.largeur; x++) {
      if (ciel?.[y * p.largeur + x]) continue;
      const i = (y * p.largeur + x) * 3;
      const l = luminance(p.data[i]!, p.data[i + 1]!, p.data[i + 2]!) / 255;
      // New render in the style's colour, shaded by the original light: walls change, shapes stay.
      for (let c = 0; c < 3; c++) sortie[i + c] = borner((1 - poids) * p.data[i + c]! + poids * teinte[c]! * (0.55 + 0.6 * l));
    }
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
        return { ...redressee, data: ciel(redressee) };
      },
      saison: async () => ({ ...pixels, data: saison(pixels) }),
      vider: async () => ({ ...pixels, data: vider(pixels, graine) }),
      staging: async () => ({ ...pixels, data: await staging(pixels, demande.valeurs) }),
      renovation: async () => ({ ...pixels, data: renovation(pixels, demande.valeurs) }),
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
