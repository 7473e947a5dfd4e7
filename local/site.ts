/**
 * The web site, locally: the built single-page app (site/dist, `npm run site:build`) and its
 * `/config.json`, served by the local gateway beside `/api/v1` on the same origin, with the headers
 * CloudFront's response policy adds on AWS (lib/site.ts): a strict Content Security Policy (scripts and
 * styles from the site itself only, no inline code; connections to the site, its user pool and the local
 * S3 the studio uploads photos to only), no framing, no sniffing, no referrer.
 *
 * A path with a file extension is a file of the build (404 when there is none); any other path is a
 * page of the app, answered with index.html, whose router shows it. `/config.json` is made here.
 * `/.well-known/…` is no page: left to the gateway, whose answer is a JSON 404.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { BASE_CHEMIN } from '../lambdas/http/routes';
import { politiqueContenu } from '../lib/politique-contenu';

/** What the app reads at start (site/src/config.ts): where the API and the user pool are. */
export interface ConfigurationSite {
  api: string;
  cognito: { region: string; client: string; endpoint?: string };
}

/** The media type of each kind of file a build holds (also exploitation/publier-site.ts's, for S3). */
export const TYPES_FICHIERS: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
};

const entetesSecurite = (politique: string) => ({
  'Content-Security-Policy': politique,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
});

export const DOSSIER_SITE = resolve(import.meta.dirname, '..', 'site', 'dist');

/**
 * The gateway's `autres` handler for the site: true when it answered. `televersements`: the origin of
 * the upload URLs POST /televersements gives (the local S3's front, another port than the site's).
 */
export const servirSite = (options: { dossier?: string; configuration: ConfigurationSite; televersements?: string }) => {
  const dossier = options.dossier ?? DOSSIER_SITE;
  const entetes = entetesSecurite(
    politiqueContenu({
      cognito: options.configuration.cognito.endpoint ?? `https://cognito-idp.${options.configuration.cognito.region}.amazonaws.com`,
      ...(options.televersements ? { televersements: new URL(options.televersements).origin } : {}),
    }),
  );
  const envoyerFichier = (reponse: ServerResponse, fichier: string, cache: string, tete: boolean) => {
    reponse.writeHead(200, {
      ...entetes,
      'Content-Type': TYPES_FICHIERS[extname(fichier)] ?? 'application/octet-stream',
      'Content-Length': statSync(fichier).size,
      'Cache-Control': cache,
    });
    if (tete) reponse.end();
    else createReadStream(fichier).pipe(reponse);
  };

  return async (requete: IncomingMessage, reponse: ServerResponse): Promise<boolean> => {
    let chemin: string;
    try {
      chemin = decodeURIComponent(new URL(requete.url ?? '/', 'http://localhost').pathname);
    } catch {
      return false;
    }
    if (chemin === BASE_CHEMIN || chemin.startsWith(`${BASE_CHEMIN}/`)) return false;
    // Not pages of the app: an MCP client looks for OAuth metadata there (issue 41), and must get the
    // gateway's JSON 404, not index.html with a 200 (as CloudFront's function answers, lib/site.ts).
    if (chemin.startsWith('/.well-known/')) return false;
    if (requete.method !== 'GET' && requete.method !== 'HEAD') return false;
    const tete = requete.method === 'HEAD';
    if (chemin === '/config.json') {
      const corps = JSON.stringify(options.configuration);
      reponse.writeHead(200, { ...entetes, 'Content-Type': TYPES_FICHIERS['.json']!, 'Cache-Control': 'no-store' });
      reponse.end(tete ? undefined : corps);
      return true;
    }
    const index = join(dossier, 'index.html');
    // No build (a checkout without site/): the gateway's own answers, which point to the API.
    if (!existsSync(index)) return false;
    if (extname(chemin)) {
      const fichier = resolve(dossier, `.${chemin}`);
      // Nothing outside the build, whatever the path says.
      if (!fichier.startsWith(dossier + sep) || !existsSync(fichier) || !statSync(fichier).isFile()) return false;
      // Built files carry their content's hash in their name: cached for good. Others are checked each time.
      envoyerFichier(reponse, fichier, chemin.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache', tete);
      return true;
    }
    envoyerFichier(reponse, index, 'no-cache', tete);
    return true;
  };
};
