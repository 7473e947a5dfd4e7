/**
 * Every retouched file leaves an engine through here, so that the local preview and Bedrock finish
 * their results the same way: faces and plates blurred when asked (after the edit and its structure
 * check, before anything is drawn or signed), the visible staging notice when asked, the preview's
 * visible mark on every preview (apercu.ts), the provenance EXIF, and the input's own format.
 */
import type { IdOutil, Langue, OutilImage } from '../../core/modele/outils';
import { ajouterMarqueApercu } from './apercu';
import type { Floutage } from '../../core/modele/sorties';
import { appliquerFloutage } from './floutage';
import { ajouterMention, estLangueMention } from './mention';
import type { DetecteurPersonnes } from './personnes';
import type { FormatImage } from '../../core/modele/images';
import { depuisPixels, estSeize, versPixels, type Pixels, type Pixels16 } from './pixels';
import { exifDeProvenance, xmpDeProvenance } from './provenance';

const QUALITE = 90;

export interface Marquage {
  outil: OutilImage;
  valeurs: Readonly<Record<string, string>>;
  /** A local preview, not the production model: said in the metadata, and on the image by its mark. */
  apercu: boolean;
  /** The mark's language (the request's); English when absent. */
  langue?: Langue;
  graine: number | null;
  /** Finds the faces and plates the `floutage` setting asks to blur (Rekognition, or the local stand-in). */
  personnes: DetecteurPersonnes;
  /** The photo before the edit, in the result's geometry: what it shows is blurred too (floutage.ts). */
  avant?: Pixels;
}

export const fichierResultat = async (p: Pixels, format: FormatImage, m: Marquage): Promise<{ fichier: Buffer; floutage: Floutage | null }> => {
  const { pixels: floue, floutage } = await appliquerFloutage(p, m.valeurs.floutage, m.personnes, m.avant);
  const mention = m.outil === 'staging' ? m.valeurs.mention : undefined;
  const avecMention = estLangueMention(mention) ? await ajouterMention(floue, mention) : floue;
  return { fichier: await encoderResultat(avecMention, format, m), floutage };
};

/**
 * The last steps of every result, fusion's included (it has no model, so no blur nor notice): the preview's
 * mark when it is one, the provenance EXIF and XMP, the input's format. A 16-bit result (fusion's, from 16-bit
 * PNGs) stays 16-bit as a PNG; a preview's mark, a JPEG or a WebP takes it to 8 bits first.
 */
export const encoderResultat = async (
  p: Pixels | Pixels16,
  format: FormatImage,
  m: Pick<Marquage, 'apercu' | 'langue' | 'graine'> & { outil: IdOutil },
): Promise<Buffer> => {
  const profondeur = estSeize(p) && (m.apercu || format !== 'png') ? await versPixels(depuisPixels(p).toColourspace('srgb')) : p;
  const finale = m.apercu && !estSeize(profondeur) ? await ajouterMarqueApercu(profondeur, m.langue) : profondeur;
  const provenance = { outil: m.outil, apercu: m.apercu, graine: m.graine };
  const image = depuisPixels(finale).withExif(exifDeProvenance(provenance)).withXmp(xmpDeProvenance(provenance));
  return (format === 'jpeg' ? image.jpeg({ quality: QUALITE }) : format === 'png' ? image.png() : image.webp({ quality: QUALITE })).toBuffer();
};
