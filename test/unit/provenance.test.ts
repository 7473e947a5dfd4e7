/**
 * What a result says about how it was made: the C2PA action and the IPTC digital source type per tool
 * and engine, written as XMP for readers that do not parse C2PA, in every format, without touching
 * a pixel.
 */
import { detecteurPersonnesLocal } from '../../lambdas/moteurs/local/personnes-local';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { OUTILS_IMAGE } from '../../lambdas/core/modele/outils';
import { lireProvenance, lireTypeSource, natureResultat, TYPES_SOURCE } from '../../lambdas/moteurs/commun/provenance';
import { fichierResultat } from '../../lambdas/moteurs/commun/resultat';
import { depuisPixels } from '../../lambdas/moteurs/commun/pixels';

const pixels = { data: Buffer.from(Array.from({ length: 64 * 48 * 3 }, (_, i) => (i * 37) % 256)), largeur: 64, hauteur: 48 };

describe('how a result was made', () => {
  it('the production engine: renovation renders the whole frame, every other tool composites an edit', () => {
    for (const outil of OUTILS_IMAGE) {
      expect(natureResultat(outil, false)).toEqual(
        outil === 'renovation'
          ? { action: 'c2pa.created', source: 'trainedAlgorithmicMedia' }
          : { action: 'c2pa.edited', source: 'compositeWithTrainedAlgorithmicMedia' },
      );
    }
  });

  it('the local preview uses no AI model and says so', () => {
    for (const outil of OUTILS_IMAGE) expect(natureResultat(outil, true)).toEqual({ action: 'c2pa.edited', source: 'compositeSynthetic' });
  });

  it.each(['jpeg', 'png', 'webp'] as const)('%s results carry the IPTC digital source type in XMP, and the same pixels as without it', async (format) => {
    const { fichier } = await fichierResultat(pixels, format, { outil: 'ciel', valeurs: {}, apercu: false, graine: 7, personnes: detecteurPersonnesLocal });
    expect(await lireTypeSource(fichier)).toBe(TYPES_SOURCE.compositeWithTrainedAlgorithmicMedia);
    expect(await lireProvenance(fichier)).toBe('Edited by Retouche, tool ciel, seed 7');
    const { fichier: renovation } = await fichierResultat(pixels, format, {
      outil: 'renovation',
      valeurs: {},
      apercu: false,
      graine: 7,
      personnes: detecteurPersonnesLocal,
    });
    expect(await lireTypeSource(renovation)).toBe(TYPES_SOURCE.trainedAlgorithmicMedia);
    // The metadata changes nothing else: the same encode without it decodes to the same pixels.
    const image = depuisPixels(pixels);
    const sans = await (format === 'jpeg' ? image.jpeg({ quality: 90 }) : format === 'png' ? image.png() : image.webp({ quality: 90 })).toBuffer();
    expect(await sharp(fichier).raw().toBuffer()).toEqual(await sharp(sans).raw().toBuffer());
  });
});
