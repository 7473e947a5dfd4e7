/**
 * Downloading an image URL without SSRF.
 *
 * The guard is on the address actually connected to, checked at connect time for every hop:
 * request-filtering-agent refuses private, loopback, link-local (so the metadata service),
 * unique-local, CGNAT, reserved, IPv4-mapped and NAT64 addresses, for IP literals and for whatever a
 * name resolves to (no DNS-rebinding gap between check and use). Node's fetch takes no agent, so this
 * uses `https.get` and follows redirects by hand: each Location is https-only and goes through the
 * same agent. Size is capped while streaming, time by one deadline for the whole download.
 */
import { request, type Agent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { ErreurTravail } from '../modele/erreurs';
import { MAX_OCTETS_IMAGE } from '../modele/images';

export interface OptionsTelechargement {
  maxOctets?: number;
  maxRedirections?: number;
  delaiMs?: number;
  /** Tests inject an agent that trusts their own CA and allows 127.0.0.1; production never does. */
  agent?: Agent;
}

const REDIRECTIONS = new Set([301, 302, 303, 307, 308]);

const refuser = (message: string) => new ErreurTravail('url_refusee', message);

const verifierUrl = (texte: string): URL => {
  let url: URL;
  try {
    url = new URL(texte);
  } catch {
    throw refuser('The image URL is not a valid URL.');
  }
  if (url.protocol !== 'https:') throw refuser('The image URL must use https.');
  if (url.username || url.password) throw refuser('The image URL must not carry credentials.');
  return url;
};

export const creerTelechargeur = (options: OptionsTelechargement = {}) => {
  const maxOctets = options.maxOctets ?? MAX_OCTETS_IMAGE;
  const maxRedirections = options.maxRedirections ?? 3;
  const delaiMs = options.delaiMs ?? 15_000;
  const agent = options.agent ?? new RequestFilteringHttpsAgent({ keepAlive: false });

  const obtenir = (url: URL, signal: AbortSignal): Promise<IncomingMessage> =>
    new Promise((resoudre, rejeter) => {
      const requete = request(url, { agent, signal, headers: { 'User-Agent': 'Retouche/1.0', Accept: 'image/*' } }, resoudre);
      requete.on('error', rejeter);
      requete.end();
    });

  const lireCorps = (reponse: IncomingMessage): Promise<Buffer> =>
    new Promise((resoudre, rejeter) => {
      const annonce = Number(reponse.headers['content-length']);
      if (Number.isFinite(annonce) && annonce > maxOctets) {
        rejeter(new ErreurTravail('image_trop_grande'));
        reponse.destroy();
        return;
      }
      const morceaux: Buffer[] = [];
      let total = 0;
      reponse.on('data', (morceau: Buffer) => {
        total += morceau.length;
        if (total > maxOctets) {
          // Reject before destroying: destroying emits its own error, which must not win.
          rejeter(new ErreurTravail('image_trop_grande'));
          reponse.destroy();
          return;
        }
        morceaux.push(morceau);
      });
      reponse.on('end', () => resoudre(Buffer.concat(morceaux)));
      reponse.on('error', rejeter);
      reponse.on('aborted', () => rejeter(new Error('aborted')));
    });

  return async (adresse: string): Promise<Buffer> => {
    let url = verifierUrl(adresse);
    const signal = AbortSignal.timeout(delaiMs);
    try {
      for (let sauts = 0; ; sauts++) {
        const reponse = await obtenir(url, signal);
        const statut = reponse.statusCode ?? 0;
        if (REDIRECTIONS.has(statut)) {
          reponse.resume();
          const cible = reponse.headers.location;
          if (!cible) throw new ErreurTravail('telechargement_echoue', `The image URL answered ${statut} without a Location.`);
          if (sauts >= maxRedirections) throw refuser(`The image URL redirects more than ${maxRedirections} times.`);
          url = verifierUrl(new URL(cible, url).toString());
          continue;
        }
        if (statut < 200 || statut >= 300) {
          reponse.resume();
          throw new ErreurTravail('telechargement_echoue', `The image URL answered HTTP ${statut}.`);
        }
        return await lireCorps(reponse);
      }
    } catch (erreur) {
      if (erreur instanceof ErreurTravail) throw erreur;
      const message = (erreur as Error).message ?? '';
      if (/is not allowed/.test(message)) throw refuser('The image URL points to an address that is not allowed.');
      if (signal.aborted) throw new ErreurTravail('telechargement_echoue', `The image URL did not answer within ${delaiMs / 1000} s.`);
      throw new ErreurTravail('telechargement_echoue', 'The image could not be downloaded.');
    }
  };
};
