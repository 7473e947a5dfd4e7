/**
 * The image pipeline around a model call: the photo as the person sees it (EXIF orientation applied,
 * 8-bit sRGB), a working copy a Stability service accepts, and the way back — the model's answer
 * scaled to the photo's own resolution and composited through the edited area's mask, so that every
 * pixel outside it is the input's, byte for byte (the compositing itself: commun/masques.ts, recomposer).
 */
import sharp from 'sharp';
import { ErreurTravail } from '../../core/modele/erreurs';
import { boiteDuMasque, type Decoupe } from '../commun/masques';
import { depuisPixels, OPTIONS_ENTREE, versPixels, type Pixels } from '../commun/pixels';

/** Stability image services: every side ≥ 64 px, 4 096 to 9 437 184 pixels, aspect within 1:2.5–2.5:1. */
export const LIMITES_STABILITY = { coteMin: 64, pixelsMax: 9_437_184, rapportMax: 2.5 } as const;
/** Working sides are multiples of 64, so the model never rounds them and its answer lines up with the photo. */
const MULTIPLE = 64;

/**
 * Where the photo sits in the working image: scaled to fit the working size, then padded with its
 * own mirrored edges up to sides that are multiples of 64 and a ratio within 2.5:1. Padding rather
 * than stretching keeps the photo's proportions (a squashed sofa comes back as a squashed sofa),
 * padding rather than cropping keeps all of it (a panorama stays whole). The padding is masked out
 * and cut away on return.
 */
export interface Cadre {
  source: { largeur: number; hauteur: number };
  /** The photo scaled, inside the working image. */
  photo: { largeur: number; hauteur: number };
  /** Padding, in working pixels, around the scaled photo. */
  marges: { haut: number; bas: number; gauche: number; droite: number };
  /** The working image sent to the model. */
  largeur: number;
  hauteur: number;
}

const versLeHaut = (v: number) => Math.max(LIMITES_STABILITY.coteMin, Math.ceil(v / MULTIPLE) * MULTIPLE);

/**
 * The working frame for `pixelsTravail` pixels at most: the photo (or the part of it sent, see
 * `decoupeAutour`) is never enlarged, and is reduced only as far as the budget forces once the
 * padding is counted — with the default budget, Stability's own ceiling, a 12 MP crop is sent at
 * ~0.88 of its size instead of being squeezed to a 1536 px long edge.
 */
export const cadreDeTravail = (largeur: number, hauteur: number, pixelsTravail: number): Cadre => {
  const { rapportMax, pixelsMax } = LIMITES_STABILITY;
  const budget = Math.min(pixelsMax, Math.max(MULTIPLE * MULTIPLE, pixelsTravail));
  let echelle = Math.min(1, Math.sqrt(budget / (largeur * hauteur)));
  for (;;) {
    const photo = { largeur: Math.max(1, Math.round(largeur * echelle)), hauteur: Math.max(1, Math.round(hauteur * echelle)) };
    let l = versLeHaut(Math.max(photo.largeur, photo.hauteur / rapportMax));
    let h = versLeHaut(Math.max(photo.hauteur, photo.largeur / rapportMax));
    // Rounding the long side up can push a ratio of exactly 2.5 just past it: grow the short side.
    while (l / h > rapportMax) h += MULTIPLE;
    while (h / l > rapportMax) l += MULTIPLE;
    // Padding to multiples of 64 (and to 2.5:1) adds pixels: shrink a little more until they fit.
    if (l * h > budget && echelle > 1e-3) {
      echelle *= Math.min(0.99, Math.sqrt(budget / (l * h)));
      continue;
    }
    const [dl, dh] = [l - photo.largeur, h - photo.hauteur];
    const marges = { haut: Math.floor(dh / 2), bas: dh - Math.floor(dh / 2), gauche: Math.floor(dl / 2), droite: dl - Math.floor(dl / 2) };
    return { source: { largeur, hauteur }, photo, marges, largeur: l, hauteur: h };
  }
};

/**
 * What is sent to the model: the edited area's bounding box with room around it — a quarter of its
 * own size, at least an eighth of the photo's short side — because the model must see the floor,
 * walls and light it continues. Everything outside stays the photo's, so only this part needs the
 * model's pixels: on a 24 MP photo whose furniture covers a third of the frame, the crop fits the
 * model's ceiling almost unscaled. No mask (a whole-frame tool): the whole photo.
 */
export const decoupeAutour = (masque: Buffer | Uint8Array | null, largeur: number, hauteur: number): Decoupe => {
  const entiere = { gauche: 0, haut: 0, largeur, hauteur };
  const b = masque && boiteDuMasque(masque, largeur, hauteur);
  if (!b) return entiere;
  const marge = Math.round(Math.max(0.25 * Math.max(b.largeur, b.hauteur), 0.125 * Math.min(largeur, hauteur)));
  const [gauche, haut] = [Math.max(0, b.gauche - marge), Math.max(0, b.haut - marge)];
  return {
    gauche,
    haut,
    largeur: Math.min(largeur, b.gauche + b.largeur + marge) - gauche,
    hauteur: Math.min(hauteur, b.haut + b.hauteur + marge) - haut,
  };
};

/** The crop's pixels (the whole photo when the crop is the whole photo: no copy). */
export const extraire = async (p: Pixels, d: Decoupe): Promise<Pixels> =>
  d.gauche === 0 && d.haut === 0 && d.largeur === p.largeur && d.hauteur === p.hauteur
    ? p
    : versPixels(depuisPixels(p).extract({ left: d.gauche, top: d.haut, width: d.largeur, height: d.hauteur }));

/** One channel of a photo-sized mask, cut to the crop. */
export const extraireMasque = <M extends Buffer | Uint8Array>(masque: M, largeur: number, d: Decoupe): Buffer => {
  const sortie = Buffer.alloc(d.largeur * d.hauteur);
  for (let y = 0; y < d.hauteur; y++)
    sortie.set(masque.subarray((d.haut + y) * largeur + d.gauche, (d.haut + y) * largeur + d.gauche + d.largeur), y * d.largeur);
  return sortie;
};

/** The crop's pixels put back in place in a copy of the photo. */
export const replacer = (photo: Pixels, partie: Pixels, d: Decoupe): Pixels => {
  if (partie.largeur === photo.largeur && partie.hauteur === photo.hauteur) return partie;
  const data = Buffer.from(photo.data);
  for (let y = 0; y < d.hauteur; y++) partie.data.copy(data, ((d.haut + y) * photo.largeur + d.gauche) * 3, y * d.largeur * 3, (y + 1) * d.largeur * 3);
  return { data, largeur: photo.largeur, hauteur: photo.hauteur };
};

const etendre = (m: Cadre['marges']) => ({ top: m.haut, bottom: m.bas, left: m.gauche, right: m.droite });

/** The photo at the scale the model works at (before padding). */
export const reduire = (p: Pixels, cadre: Cadre): Promise<Pixels> =>
  versPixels(depuisPixels(p).resize(cadre.photo.largeur, cadre.photo.hauteur, { fit: 'fill' }));

/**
 * The working image sent to the model: the reduced photo padded with its mirrored edges, as a JPEG of
 * the finest quality without chroma subsampling. At the model's 9.4 MP ceiling a PNG of a photo is
 * 20–30 MB before base64; the JPEG is a few MB, and its loss (a level or two) stays far below what
 * the difference mask counts as a change. Pixels outside the edited area are never the model's.
 */
export const imageDeTravail = (reduite: Pixels, cadre: Cadre): Promise<Buffer> =>
  depuisPixels(reduite)
    .extend({ ...etendre(cadre.marges), extendWith: 'mirror' })
    .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
    .toBuffer();

/** A mask (one channel, 255 = edit) at the working size, as a greyscale PNG: the padding is never edited. */
export const masqueDeTravail = async (masque: Buffer, cadre: Cadre): Promise<Buffer> => {
  const { photo, marges } = cadre;
  const reduit = await redimensionnerMasque(masque, cadre.source, photo);
  const travail = Buffer.alloc(cadre.largeur * cadre.hauteur);
  for (let y = 0; y < photo.hauteur; y++) reduit.copy(travail, (y + marges.haut) * cadre.largeur + marges.gauche, y * photo.largeur, (y + 1) * photo.largeur);
  return sharp(travail, { raw: { width: cadre.largeur, height: cadre.hauteur, channels: 1 } })
    .toColourspace('b-w')
    .png()
    .toBuffer();
};

type Taille = { largeur: number; hauteur: number };

/** A binary mask resized, still binary (one channel, 0 or 255). */
export const redimensionnerMasque = async (masque: Buffer, de: Taille, vers: Taille): Promise<Buffer> => {
  if (de.largeur === vers.largeur && de.hauteur === vers.hauteur) return masque;
  // sharp writes a one-channel raw input back as sRGB unless told otherwise.
  const gris = await sharp(masque, { raw: { width: de.largeur, height: de.hauteur, channels: 1 } })
    .resize(vers.largeur, vers.hauteur, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  for (let i = 0; i < gris.length; i++) gris[i] = gris[i]! >= 128 ? 255 : 0;
  return gris;
};

/** The model's answer at the working scale, padding cut away: comparable pixel for pixel with `reduire`. */
export const reponseReduite = async (reponse: Buffer, cadre: Cadre): Promise<Pixels> => {
  const { photo, marges } = cadre;
  try {
    // An answer of another size is taken as the whole working frame, scaled; an answer of
    // gigapixels is refused by the decoder (a model failure, not the customer's image).
    return await versPixels(
      sharp(reponse, OPTIONS_ENTREE)
        .toColourspace('srgb')
        .removeAlpha()
        .resize(cadre.largeur, cadre.hauteur, { fit: 'fill' })
        .extract({ left: marges.gauche, top: marges.haut, width: photo.largeur, height: photo.hauteur }),
    );
  } catch (erreur) {
    throw Object.assign(new ErreurTravail('moteur_en_echec'), { cause: erreur });
  }
};

/** Back to the photo's own resolution. */
export const agrandir = (p: Pixels, vers: Taille): Promise<Pixels> =>
  p.largeur === vers.largeur && p.hauteur === vers.hauteur
    ? Promise.resolve(p)
    : versPixels(depuisPixels(p).resize(vers.largeur, vers.hauteur, { fit: 'fill', kernel: 'lanczos3' }));
