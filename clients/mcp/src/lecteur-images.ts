/**
 * Reading a result image for the assistant to look at, bounded in bytes: what both transports give the
 * tools as `lireImage` (stdio.ts, lambda.ts).
 */
import type { LecteurImage } from './outils/definition';

/** The media type of image bytes, by their first bytes (as the service recognises them). */
const typeImage = (debut: Uint8Array): string | undefined => {
  const ascii = (de: number, a: number) => String.fromCharCode(...debut.subarray(de, a));
  if (debut[0] === 0xff && debut[1] === 0xd8 && debut[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
};

/**
 * Reads a result image through `fetch`, at most `octetsMax` bytes (a larger one is let go as soon as its
 * length, announced or read, passes the bound): what both transports give as `lireImage`.
 */
export const lecteurImages =
  (lire: typeof fetch = fetch): LecteurImage =>
  async (url, octetsMax, signal) => {
    const reponse = await lire(url, { signal });
    if (!reponse.ok || !reponse.body || Number(reponse.headers.get('content-length') ?? 0) > octetsMax) {
      await reponse.body?.cancel();
      return undefined;
    }
    const morceaux: Uint8Array[] = [];
    let total = 0;
    for await (const morceau of reponse.body as unknown as AsyncIterable<Uint8Array>) {
      total += morceau.byteLength;
      if (total > octetsMax) {
        await reponse.body.cancel().catch(() => undefined);
        return undefined;
      }
      morceaux.push(morceau);
    }
    const octets = Buffer.concat(morceaux);
    const type = typeImage(octets.subarray(0, 12));
    return type ? { octets, type } : undefined;
  };
