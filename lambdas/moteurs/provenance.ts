/**
 * Provenance written into every result file: made by Retouche, with which tool, and whether it is a
 * local preview. EXIF IFD0 fields survive in JPEG, PNG and WebP and are what photo tools show, so a
 * published photo still says it was edited.
 */
import sharp from 'sharp';

export interface Provenance {
  outil: string;
  apercu: boolean;
  graine: number | null;
}

export const LOGICIEL = 'Retouche (retouche.app)';

export const exifDeProvenance = (p: Provenance) => ({
  IFD0: {
    Software: LOGICIEL,
    ImageDescription: `Edited by Retouche, tool ${p.outil}${p.apercu ? ' (local preview, not the production model)' : ''}${
      p.graine === null ? '' : `, seed ${p.graine}`
    }`,
  },
});

/** Reads back what exifDeProvenance wrote (tests, support). */
export const lireProvenance = async (image: Buffer): Promise<string | null> => {
  const { exif } = await sharp(image).metadata();
  if (!exif) return null;
  const texte = exif.toString('latin1');
  const debut = texte.indexOf('Edited by Retouche');
  return debut < 0 ? null : texte.slice(debut, texte.indexOf('\0', debut));
};
