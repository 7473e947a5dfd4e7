/**
 * Every retouched file leaves an engine through here, so that the local preview and Bedrock mark
 * their results the same way: the visible staging notice when asked, the provenance EXIF, and the
 * input's own format.
 */
import type { OutilImage } from '../core/outils';
import { ajouterMention, estLangueMention } from './mention';
import { depuisPixels, type Format, type Pixels } from './pixels';
import { exifDeProvenance, xmpDeProvenance } from './provenance';

const QUALITE = 90;

export interface Marquage {
  outil: OutilImage;
  valeurs: Readonly<Record<string, string>>;
  /** A local preview, not the production model: said in the metadata. */
  apercu: boolean;
  graine: number | null;
}

export const fichierResultat = async (p: Pixels, format: Format, m: Marquage): Promise<Buffer> => {
  const mention = m.outil === 'staging' ? m.valeurs.mention : undefined;
  const finale = estLangueMention(mention) ? await ajouterMention(p, mention) : p;
  const provenance = { outil: m.outil, apercu: m.apercu, graine: m.graine };
  const image = depuisPixels(finale).withExif(exifDeProvenance(provenance)).withXmp(xmpDeProvenance(provenance));
  return (format === 'jpeg' ? image.jpeg({ quality: QUALITE }) : format === 'png' ? image.png() : image.webp({ quality: QUALITE })).toBuffer();
};
