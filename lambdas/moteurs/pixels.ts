/**
 * A photo as both engines work on it: upright (EXIF orientation applied), 8-bit sRGB, three channels,
 * row-major. Decoding once, the same way for every engine, is what lets a tool promise that pixels
 * outside its edited area come back exactly as they were.
 */
import sharp, { type Sharp } from 'sharp';
import { ErreurTravail } from '../core/erreurs';

export interface Pixels {
  data: Buffer;
  largeur: number;
  hauteur: number;
}

/** Results are written in the input's own format. */
export type Format = 'jpeg' | 'png' | 'webp';

export const decoder = async (octets: Buffer): Promise<{ pixels: Pixels; format: Format }> => {
  try {
    const { format: lu } = await sharp(octets).metadata();
    const format: Format = lu === 'png' || lu === 'webp' ? lu : 'jpeg';
    const { data, info } = await sharp(octets).rotate().toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`${info.channels} channels`);
    return { pixels: { data, largeur: info.width, hauteur: info.height }, format };
  } catch {
    throw new ErreurTravail('image_illisible');
  }
};

export const versPixels = async (image: Sharp): Promise<Pixels> => {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`${info.channels} channels`);
  return { data, largeur: info.width, hauteur: info.height };
};

export const depuisPixels = (p: Pixels): Sharp => sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } });
