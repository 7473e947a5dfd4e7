/**
 * The furniture the staging preview draws, as SVG: per room, in fractions of the box it stands in,
 * in the colours of the chosen style.
 */

/** A style's colours: light, dark, accent. */
type Palette = [string, string, string];

export const PALETTES: Record<string, Palette> = {
  modern: ['#d9d9d6', '#3a3a3a', '#c8a165'],
  Scandinavian: ['#efe9df', '#b9a58c', '#7f9c8a'],
  industrial: ['#5b5b5b', '#8a5a3c', '#2f2f2f'],
  'classic elegant': ['#e8dcc3', '#7a1f2b', '#c9a74a'],
  japandi: ['#d8cfc0', '#6b5b4b', '#2f3b2f'],
  'warm bohemian': ['#c8643b', '#e0b25a', '#5c7a4a'],
};

/** What the rooms draw with, in fractions of the frame they are drawn in. */
interface Crayon {
  X: (v: number) => string;
  Y: (v: number) => string;
  /** A box, shaded top-light to bottom-dark. */
  bloc: (x: number, y: number, w: number, hh: number, c: string, rayon?: number) => string;
  /** A soft contact shadow under what stands on the floor. */
  ombre: (cx: number, cy: number, rx: number, ry: number) => string;
  pieds: (x0: number, x1: number, y: number, hh: number) => string;
  plante: (x: number, y: number) => string;
  lampe: (x: number, y: number) => string;
}

const crayon = (l: number, h: number): Crayon => {
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
  return { X, Y, bloc, ombre, pieds, plante, lampe };
};

/** A bed with its pillows; a child's has a desk beside it, an adult's two bedside tables and lamps. */
const chambre = ({ bloc, ombre, pieds, lampe }: Crayon, enfant: boolean, [clair, fonce, accent]: Palette): string => {
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
};

/** A table and four chairs; a dining room's has a plant too. */
const tableEtChaises = ({ bloc, ombre, pieds, plante }: Crayon, plantee: boolean, [, fonce, accent]: Palette): string => {
  const chaises = [0.3, 0.42, 0.54, 0.66]
    .map((x) => ombre(x + 0.03, 0.95, 0.04, 0.01) + bloc(x, 0.62, 0.06, 0.12, accent) + bloc(x, 0.74, 0.06, 0.03, accent) + pieds(x, x + 0.06, 0.77, 0.16))
    .join('');
  return (
    ombre(0.5, 0.92, 0.25, 0.03) + bloc(0.25, 0.68, 0.5, 0.035, fonce, 0.004) + pieds(0.27, 0.73, 0.715, 0.19) + chaises + (plantee ? plante(0.85, 0.85) : '')
  );
};

/** A desk with a screen, its chair, a cupboard and a plant. */
const bureau = ({ bloc, ombre, pieds, plante }: Crayon, [clair, fonce, accent]: Palette): string =>
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
  plante(0.14, 0.88);

/** A rug, a sofa with its cushions, a coffee table, a lamp and a plant: any other room is a living room. */
const salon = ({ X, Y, bloc, ombre, pieds, plante, lampe }: Crayon, [clair, fonce, accent]: Palette): string =>
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
  plante(0.88, 0.9);

/**
 * Furniture per room, in fractions of the frame, standing in the staging zone. Each part is shaded
 * top-light to bottom-dark and casts a soft contact shadow, so the preview reads as objects in the
 * room rather than flat stickers.
 */
export const svgMeubles = (piece: string, l: number, h: number, palette: Palette): string => {
  const c = crayon(l, h);
  switch (piece) {
    case 'bedroom':
    case "children's bedroom":
      return chambre(c, piece !== 'bedroom', palette);
    case 'kitchen':
    case 'dining room':
      return tableEtChaises(c, piece === 'dining room', palette);
    case 'home office':
      return bureau(c, palette);
    default:
      return salon(c, palette);
  }
};

/** The gradients and blur the furniture refers to. */
export const defsMeubles = (largeur: number) =>
  '<defs><linearGradient id="relief" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="0.18"/>' +
  '<stop offset="1" stop-color="#000" stop-opacity="0.28"/></linearGradient>' +
  `<filter id="flou"><feGaussianBlur stdDeviation="${Math.max(1, largeur * 0.006).toFixed(1)}"/></filter></defs>`;
