/**
 * Downloads of result files and batch ZIPs. Their links are signed and served from another host than
 * the API's (a CDN on AWS): they are fetched as they are, never with the API key.
 */
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { envoyer, type ReglagesTransport } from './transport.js';

export interface OptionsTelechargement {
  signal?: AbortSignal;
}

/** The file's bytes. */
export const telechargerOctets = (reglages: ReglagesTransport, url: string, options: OptionsTelechargement & { delaiMs?: number }): Promise<Uint8Array> =>
  envoyer(reglages, { methode: 'GET', url, signal: options.signal, ...(options.delaiMs ? { delaiMs: options.delaiMs } : {}) }, async (reponse) => {
    return new Uint8Array(await reponse.arrayBuffer());
  });

/**
 * The file written at `vers`, streamed (a batch's ZIP may be large). It is written under a temporary
 * name beside it and renamed at the end: `vers` is never a half-written file, even when the connection
 * drops and the download starts again.
 */
export const telechargerVers = (
  reglages: ReglagesTransport,
  url: string,
  vers: string,
  options: OptionsTelechargement & { delaiMs?: number },
): Promise<string> =>
  envoyer(reglages, { methode: 'GET', url, signal: options.signal, ...(options.delaiMs ? { delaiMs: options.delaiMs } : {}) }, async (reponse) => {
    const provisoire = `${vers}.${randomUUID()}.partiel`;
    try {
      const fichier = await open(provisoire, 'w');
      try {
        if (reponse.body) for await (const morceau of reponse.body) await fichier.write(morceau);
      } finally {
        await fichier.close();
      }
      await rename(provisoire, vers);
      return vers;
    } catch (erreur) {
      await rm(provisoire, { force: true });
      throw erreur;
    }
  });
