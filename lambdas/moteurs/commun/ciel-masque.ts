/**
 * Where the sky is: the one sky detector of the project, used by the light correction (its figures
 * are measured outside the sky, in production too) and by every local preview that must find or
 * avoid the sky (ciel, saison, renovation of a facade).
 *
 * A colour rule alone repaints houses: snow, white walls, a grey facade and a bright window are as
 * bright and grey as an overcast sky. What tells them apart here, each a photographic reason:
 * - the sky is smooth: no texture once the sensor grain is averaged out;
 * - sky light is neutral to blue, never warm: a pixel counts as sky only if it is blue, or grey with
 *   no warm cast (white walls and ceilings under indoor light, render, stone and brick are warm);
 *   the whole region must be cooler than the rest of the photo or at least as bright as its median;
 * - the sky is seen from the top of the frame down: only what connects to the top row counts, so
 *   snow on the ground and a window inside a room (both under something that is not sky) never do;
 * - one sky has one colour: beside a clearly blue part, a separate grey patch reaching the top is a
 *   facade's shaded corner (found on a real photo, test/unit/moteur-reel.test.ts).
 * - a bare tree's crown is sky in part: between the twigs, the sky's hue at the sky's light.
 * - snow is textured where an overcast sky is smooth: in the grey, faint lines (a roof's courses under
 *   the snow, its crust, the soft edge where a white roof meets a white sky) stop the sky, so a snowy roof
 *   under a white sky stays a roof (the drawn winter house of docs/exemples; common in winter listings).
 * Its limits: fresh snow with no line at all, meeting a white sky with no step (a roof's ridge lost in the
 * sky), a blue wall that reaches the top of the frame, a smooth pavement seen from above, are misread; grey
 * clouds with crisp folds (a sunset's band at the horizon) are left as they are; the production model
 * finds the sky itself.
 */
import sharp from 'sharp';
import { composantes, sommesRectangles } from './masques';
import { luminance, type Pixels } from './pixels';

/** Long edge of the analysis copy: enough for a roofline, small enough to flood fill in milliseconds. */
const COTE_ANALYSE = 640;

/** Sky over this share of the frame, seen from its top: the photo was taken outside. */
export const PART_CIEL_DEHORS = 0.05;

/** Below this share of the frame a top-connected smooth patch is a gap in foliage, not a sky. */
const AIRE_MIN = 0.005;

const copies = new WeakMap<Pixels, Promise<Pixels>>();

/**
 * A small, slightly blurred copy: the grain of the sensor averaged out before smoothness is judged. Made
 * once per photo: the floor, the sky, the window finder and the structure check each read the same
 * photo of a job (about 30 ms a copy at 12 MP), so they share it, and read it only: none may write it.
 */
export const copieAnalyse = (p: Pixels): Promise<Pixels> => {
  let copie = copies.get(p);
  if (!copie) copies.set(p, (copie = reduire(p)));
  return copie;
};

const reduire = async (p: Pixels): Promise<Pixels> => {
  const echelle = Math.min(1, COTE_ANALYSE / Math.max(p.largeur, p.hauteur));
  const [l, h] = [Math.max(1, Math.round(p.largeur * echelle)), Math.max(1, Math.round(p.hauteur * echelle))];
  const { data, info } = await sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .resize(l, h, { fit: 'fill', kernel: 'cubic' })
    .blur(0.8)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, largeur: info.width, hauteur: info.height };
};

/** Whether a sky mask (1 = sky) fills more than a sliver of its frame: the photo was taken outside. */
export const cielDehors = (ciel: Uint8Array): boolean => ciel.reduce((n, v) => n + v, 0) >= PART_CIEL_DEHORS * ciel.length;

/** Whether a copy made by `copieAnalyse` was taken outside. */
export const priseDehors = (analyse: Pixels): boolean => cielDehors(cielAnalyse(analyse));

/**
 * The sky of a copy made by `copieAnalyse`: its share of the frame and its mean blue minus red (0
 * without sky). A daylight sky, overcast ones too, is bluer than the white walls and tiles the colour
 * rules may still take for one (zones.ts weighs it against the room a request names).
 */
export const mesurerCiel = (analyse: Pixels): { part: number; bleu: number } => {
  const ciel = cielAnalyse(analyse);
  let [n, bleu] = [0, 0];
  for (let p = 0; p < ciel.length; p++) if (ciel[p]) (n++, (bleu += analyse.data[p * 3 + 2]! - analyse.data[p * 3]!));
  return { part: n / ciel.length, bleu: n ? bleu / n : 0 };
};

/** What a pixel may be of the sky by its colour alone: blue (clear, hazy, blue hour), or grey (overcast, and as well snow or a white wall). */
const [BLEU, GRIS] = [1, 2];

/** The sky on a copy made by `copieAnalyse`, one byte per pixel (1 = sky). */
export const cielAnalyse = (analyse: Pixels): Uint8Array => lireCiel(analyse).masque;

/**
 * The sky, and what faint lines held back from it (`retenu`: a snowy roof under a white sky), which
 * the sky seen through branches must not take back either.
 */
const lireCiel = ({ data, largeur: l, hauteur: h }: Pixels): { masque: Uint8Array; retenu: Uint8Array } => {
  const n = l * h;
  const L = new Float32Array(n);
  const teinte = new Int16Array(n);
  for (let p = 0; p < n; p++) {
    const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
    L[p] = luminance(r, g, b);
    teinte[p] = b - r;
  }

  const candidat = new Uint8Array(n);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const p = y * l + x;
      const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
      const gx = L[y * l + Math.min(l - 1, x + 1)]! - L[y * l + Math.max(0, x - 1)]!;
      const gy = L[Math.min(h - 1, y + 1) * l + x]! - L[Math.max(0, y - 1) * l + x]!;
      // Soft cloud edges pass; brick, foliage, window frames and roof tiles do not.
      if (Math.abs(gx) + Math.abs(gy) > 16) continue;
      const [l0, bleu, sat] = [L[p]!, teinte[p]!, Math.max(r, g, b) - Math.min(r, g, b)];
      const bleuFranc = bleu >= 25 && b >= g - 6 && l0 >= 45; // clear sky, blue hour
      const voile = bleu >= 10 && b >= g - 6 && l0 >= 90; // hazy, pale blue
      const gris = sat <= 32 && l0 >= 105 && bleu >= -3; // overcast, clouds: neutral or cool, never warm
      if (bleuFranc || voile) candidat[p] = BLEU;
      else if (gris) candidat[p] = GRIS;
    }
  }

  const masque = depuisLeHaut(candidat, lignesDansLeGris(candidat, L, l, h), l, h);
  const retenu = depuisLeHaut(candidat, null, l, h);
  for (let p = 0; p < n; p++) retenu[p] = retenu[p]! & (1 - masque[p]!);
  const rien = { masque: new Uint8Array(n), retenu };

  sansMursGris(masque, teinte, l, h);

  // The region as a whole must be a source of light for what lies under it: cooler than it, or at
  // least as bright as its median (a grey sky over snow is warmer than the snow, never darker than the scene).
  let [aire, teinteCiel, teinteReste, lumCiel] = [0, 0, 0, 0];
  const reste: number[] = [];
  for (let p = 0; p < n; p++) masque[p] ? (aire++, (teinteCiel += teinte[p]!), (lumCiel += L[p]!)) : ((teinteReste += teinte[p]!), reste.push(L[p]!));
  if (aire < n * AIRE_MIN || aire === n) return rien;
  reste.sort((a, b) => a - b);
  const plusFroid = teinteCiel / aire - teinteReste / (n - aire) >= 4;
  const plusClair = lumCiel / aire >= reste[Math.floor(reste.length / 2)]!;
  if (!plusFroid && !plusClair) return rien;
  // A small white patch, all the "sky" there is, is a picture's mat or a ceiling's corner cut by the frame
  // (a real bedroom's ciel painted one blue): a sky that small and that grey is left alone.
  if (aire < PETIT_CIEL * n && teinteCiel / aire < BLEU_PETIT_CIEL) return rien;
  return { masque: fermer(masque, l, h), retenu };
};

/**
 * A faint line in the grey: the luminance differences between two sky-like pixels ECART_LIGNE apart
 * on either side (horizontally plus vertically, analysis copy) reach LIGNE_DOUCE. Measured: a snowy
 * roof's courses and crust, the soft edge where a white roof meets a white sky and the step across its
 * ridge reach it (the drawn winter house of docs/exemples/scenes.ts); the overcast skies of test/photos
 * (the Cambridge courts, a Paris street in winter) and of test/support/scenes-lumiere.ts do not: their
 * masks are unchanged, while a kitchen's white wall, a bathroom's tiles and a pavement seen from above,
 * which passed for sky, no longer do. The sunset of test/photos loses the grey folds of its cloud band
 * at the horizon (35 % of the frame as sky, then 32 %).
 */
const [ECART_LIGNE, LIGNE_DOUCE] = [3, 6];
/** How far (analysis pixels) a faint line holds the sky's growth back: the gaps between a roof's courses. */
const PORTEE_LIGNE = 2;

/**
 * The faint lines among the grey candidates, grown by PORTEE_LIGNE: snow is textured where an overcast
 * sky is smooth. Both ends of a difference must be sky-like, so the outline of a facade or a tree
 * against the sky is no line, while a roof's dark ridge between a white sky and a whiter roof is one.
 * Blue candidates are not held to it: a clear sky's gradient and haze, and its clouds, are not snow.
 */
const lignesDansLeGris = (candidat: Uint8Array, L: Float32Array, l: number, h: number): Uint8Array => {
  const barriere = new Uint8Array(l * h);
  const [e, v] = [ECART_LIGNE, ECART_LIGNE * l];
  for (let y = e; y < h - e; y++)
    for (let x = e; x < l - e; x++) {
      const p = y * l + x;
      if (candidat[p] !== GRIS) continue;
      const dx = candidat[p - e] && candidat[p + e] ? Math.abs(L[p + e]! - L[p - e]!) : 0;
      const dy = candidat[p - v] && candidat[p + v] ? Math.abs(L[p + v]! - L[p - v]!) : 0;
      if (dx + dy < LIGNE_DOUCE) continue;
      for (let yy = y - PORTEE_LIGNE; yy <= y + PORTEE_LIGNE; yy++)
        barriere.fill(1, yy * l + Math.max(0, x - PORTEE_LIGNE), yy * l + Math.min(l, x + PORTEE_LIGNE + 1));
    }
  return barriere;
};

/**
 * From the top row down, through sky-like pixels only, never across a faint line in the grey (a white
 * roof under a white sky, drawn or photographed in winter, is not more sky); then back up to those lines,
 * as far as they held the sky back, so that the sky still meets the roofline and the trees.
 */
const depuisLeHaut = (candidat: Uint8Array, barriere: Uint8Array | null, l: number, h: number): Uint8Array => {
  const masque = new Uint8Array(l * h);
  let front: number[] = [];
  for (let x = 0; x < l; x++) if (candidat[x] && !barriere?.[x]) ((masque[x] = 1), front.push(x));
  const voisins = (p: number, ajouter: (q: number) => void) => {
    const x = p % l;
    if (x > 0) ajouter(p - 1);
    if (x < l - 1) ajouter(p + 1);
    if (p >= l) ajouter(p - l);
    if (p < l * (h - 1)) ajouter(p + l);
  };
  const pile = [...front];
  while (pile.length)
    voisins(pile.pop()!, (q) => {
      if (masque[q] || !candidat[q] || barriere?.[q]) return;
      masque[q] = 1;
      pile.push(q);
    });
  if (!barriere) return masque;
  front = [];
  for (let p = 0; p < l * h; p++) if (masque[p]) front.push(p);
  for (let pas = 0; pas <= PORTEE_LIGNE && front.length; pas++) {
    const suivant: number[] = [];
    for (const p of front)
      voisins(p, (q) => {
        if (masque[q] || !candidat[q]) return;
        masque[q] = 1;
        suivant.push(q);
      });
    front = suivant;
  }
  return masque;
};

/** Half-width of the window (analysis pixels) where the sky around a pixel is looked at. */
const RAYON_BRANCHES = 16;
/** Share of that window that must be sky. */
const PART_BRANCHES = 0.15;

/**
 * Around the sky: the non-sky pixels of the analysis copy that have sky over a third of their window
 * (a tree's crown, a roofline), each with the mean colour of that sky (0 elsewhere).
 */
const autourDuCiel = (masque: Uint8Array, data: Buffer, l: number, h: number): { bord: Uint8Array; couleur: Buffer } => {
  // The sky's count and colour over each window, in four reads each.
  const nombreDans = sommesRectangles(l, h, (p) => masque[p]!);
  const couleurDans = [0, 1, 2].map((k) => sommesRectangles(l, h, (p) => (masque[p] ? data[p * 3 + k]! : 0)));
  const [bord, couleur] = [new Uint8Array(l * h), Buffer.alloc(l * h * 3)];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < l; x++) {
      const p = y * l + x;
      if (masque[p]) continue;
      const [x0, y0, x1, y1] = [
        Math.max(0, x - RAYON_BRANCHES),
        Math.max(0, y - RAYON_BRANCHES),
        Math.min(l, x + RAYON_BRANCHES + 1),
        Math.min(h, y + RAYON_BRANCHES + 1),
      ];
      const nombre = nombreDans(x0, y0, x1, y1);
      if (nombre < PART_BRANCHES * (x1 - x0) * (y1 - y0)) continue;
      bord[p] = 1;
      for (let k = 0; k < 3; k++) couleur[p * 3 + k] = Math.round(couleurDans[k]!(x0, y0, x1, y1) / nombre);
    }
  return { bord, couleur };
};

/**
 * The sky seen through bare branches, in the feathered full-size mask: a crown is busy, so it fails
 * the smoothness test, and every preview that paints the sky left the old grey-white sky between the
 * twigs (a frost-like halo on a blue sky, on real photos and drawn ones). Around the sky, a pixel of
 * the sky's hue is sky in proportion to its light between a twig's (dark) and the sky's: its twig
 * part stays, its sky part takes the new sky. A wall beside the sky is warmer than it (or darker) and
 * stays out.
 */
const dansLesBranches = async (p: Pixels, analyse: Pixels, masque: Uint8Array, retenu: Uint8Array, alpha: Buffer): Promise<void> => {
  const { largeur: l, hauteur: h } = analyse;
  const { bord, couleur } = autourDuCiel(masque, analyse.data, l, h);
  // A snowy roof is as bright and as neutral as the white sky beside it: what the sky stopped at stays.
  for (let q = 0; q < bord.length; q++) if (retenu[q]) bord[q] = 0;
  if (!bord.includes(1)) return;
  const agrandir = (octets: Buffer, canaux: 1 | 3) => {
    const image = sharp(octets, { raw: { width: l, height: h, channels: canaux } }).resize(p.largeur, p.hauteur, { fit: 'fill', kernel: 'linear' });
    // One channel in, one out: sharp would otherwise hand back a grey image as three.
    return (canaux === 1 ? image.extractChannel(0) : image).raw().toBuffer();
  };
  const [zone, cielLocal] = await Promise.all([agrandir(Buffer.from(bord.map((v) => v * 255)), 1), agrandir(couleur, 3)]);
  for (let q = 0; q < alpha.length; q++) {
    if (zone[q]! < 128 || alpha[q] === 255) continue;
    const i = q * 3;
    const [rs, gs, bs] = [cielLocal[i]!, cielLocal[i + 1]!, cielLocal[i + 2]!];
    const [r, g, b] = [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!];
    // Of the sky's hue (blue minus red, as the sky's): not a warm wall, a red roof or leaves.
    if (Math.abs(b - r - (bs - rs)) > ECART_TEINTE_BRANCHES || g - Math.max(r, b) > 8) continue;
    const [ls, lp] = [luminance(rs, gs, bs), luminance(r, g, b)];
    const part = Math.max(0, Math.min(1, (lp - SOMBRE_BRANCHES * ls) / ((1 - SOMBRE_BRANCHES) * ls)));
    alpha[q] = Math.max(alpha[q]!, Math.round(255 * part));
  }
};

/** A twig's light, as a share of the sky's: at or below it a pixel is all twig. */
const SOMBRE_BRANCHES = 0.45;
/** The largest difference of blue minus red from the sky's for a pixel to be partly sky. */
const ECART_TEINTE_BRANCHES = 14;

/** Under this share of the frame, a "sky" needs this mean blue-minus-red to be one (measured on test/photos). */
const [PETIT_CIEL, BLEU_PETIT_CIEL] = [0.04, 20];

/** A clear sky's mean blue-minus-red, from which a grey top-connected patch is a wall in shade, not more sky. */
const [BLEU_FRANC_REGION, ECART_GRIS] = [30, 25];

/**
 * When part of the sky is clearly blue, a separate top-connected patch much less blue than it is a
 * shaded wall or a grey roof that reaches the frame's top (a facade's corner under a blue sky), not an
 * overcast corner of the same sky: out, in place. A sky all grey is left as it is.
 */
const sansMursGris = (masque: Uint8Array, teinte: Int16Array, l: number, h: number): void => {
  const { etiquettes, liste } = composantes(masque, l, h);
  if (liste.length < 2) return;
  const teintes = new Float64Array(liste.length);
  for (let p = 0; p < l * h; p++) if (etiquettes[p]) teintes[etiquettes[p]! - 1]! += teinte[p]!;
  const moyenne = (i: number) => teintes[i]! / liste[i]!.aire;
  const bleue = Math.max(...liste.flatMap((c, i) => (c.aire >= AIRE_MIN * l * h ? [moyenne(i)] : [])));
  if (!(bleue >= BLEU_FRANC_REGION)) return;
  for (let p = 0; p < l * h; p++) if (etiquettes[p] && moyenne(etiquettes[p]! - 1) < bleue - ECART_GRIS) masque[p] = 0;
};

/** Closing (dilate then erode, 3×3): twigs and single noisy pixels leave no holes in the sky. */
const fermer = (m: Uint8Array, l: number, h: number): Uint8Array => {
  const passe = (src: Uint8Array, valeur: 0 | 1) => {
    const dst = Uint8Array.from(src);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < l; x++) {
        const p = y * l + x;
        if (src[p] === valeur) continue;
        for (let dy = -1; dy <= 1 && dst[p] !== valeur; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const [xx, yy] = [x + dx, y + dy];
            if (xx < 0 || yy < 0 || xx >= l || yy >= h) continue;
            if (src[yy * l + xx] === valeur) {
              dst[p] = valeur;
              break;
            }
          }
        }
      }
    }
    return dst;
  };
  const ferme = passe(passe(m, 1), 0);
  // Closing may only fill holes, never grow the sky at the frame's border.
  for (let p = 0; p < ferme.length; p++) ferme[p] = ferme[p]! & (m[p]! | bordInterieur(p, l, h));
  return ferme;
};
const bordInterieur = (p: number, l: number, h: number): number => {
  const [x, y] = [p % l, (p / l) | 0];
  return x > 0 && y > 0 && x < l - 1 && y < h - 1 ? 1 : 0;
};

/**
 * A binary mask of the analysis copy, feathered and brought to the photo's size: one byte per pixel,
 * 0 (not sky) to 255 (sky). The edge ramps over a few pixels of the photo instead of the analysis
 * copy's staircase: no seam, no rectangles, whatever is composited through it.
 */
export const adoucir = async (
  masque: Uint8Array,
  analyse: { largeur: number; hauteur: number },
  cible: { largeur: number; hauteur: number },
  rayon = 1.2,
): Promise<Buffer> => {
  const octets = Buffer.alloc(masque.length);
  for (let i = 0; i < masque.length; i++) octets[i] = masque[i] ? 255 : 0;
  const image = sharp(octets, { raw: { width: analyse.largeur, height: analyse.hauteur, channels: 1 } });
  const flou = rayon >= 0.3 ? image.blur(rayon) : image;
  const { data, info } = await sharp(await flou.extractChannel(0).raw().toBuffer(), { raw: { width: analyse.largeur, height: analyse.hauteur, channels: 1 } })
    .resize(cible.largeur, cible.hauteur, { fit: 'fill', kernel: 'linear' })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`${info.channels} channels`);
  return data;
};

/** What the sky detection gives each tool: the analysis copy and its mask, and the feathered full-size mask. */
export interface Ciel {
  analyse: Pixels;
  /** 1 = sky, on the analysis copy. */
  masqueAnalyse: Uint8Array;
  /** 0–255 per pixel of the photo; ≥ 128 is "sky". */
  alpha: Buffer;
}

/**
 * `interieur`: the photo is known to be taken inside (detection.ts preuveDInterieur): no sky, whatever
 * the colours say.
 */
export const trouverCiel = async (p: Pixels, { interieur = false } = {}): Promise<Ciel> => {
  const analyse = await copieAnalyse(p);
  const vide = new Uint8Array(analyse.largeur * analyse.hauteur);
  const { masque: masqueAnalyse, retenu } = interieur ? { masque: vide, retenu: vide } : lireCiel(analyse);
  const alpha = await adoucir(masqueAnalyse, analyse, p);
  await dansLesBranches(p, analyse, masqueAnalyse, retenu, alpha);
  return { analyse, masqueAnalyse, alpha };
};

/** The hard full-size mask (1 = sky) of a feathered one. */
export const masqueBinaire = (alpha: Buffer): Uint8Array => Uint8Array.from(alpha, (a) => (a >= 128 ? 1 : 0));
