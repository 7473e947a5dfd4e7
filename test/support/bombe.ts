/**
 * A PNG decompression bomb: 16000×16000 pixels of grey, 256 megapixels (768 MB as RGB), in under 1 MB of
 * PNG (grey rows deflate best: under 800 KB at the default compression, in a fraction of a second).
 * Made once per test file, the same bytes for every test that sends it.
 */
import sharp from 'sharp';

export const COTE_BOMBE = 16_000;

let bombe: Promise<Buffer> | undefined;
export const bombePng = (): Promise<Buffer> =>
  (bombe ??= sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .png()
    .toBuffer()
    .then((minuscule) => sharp(minuscule).resize(COTE_BOMBE, COTE_BOMBE, { kernel: 'nearest' }).png().toBuffer()));
