/**
 * The web site's build (site/ → site/dist), by Vite. `npm start` builds it when it is missing or older
 * than its sources, so a fresh clone's `npm install && npm start` serves the site without another
 * command; `npm run site:build` builds it on demand, and `npm run site:dev` serves it with Vite's
 * reloading while it is changed (against a running `npm start`).
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const RACINE_SITE = resolve(import.meta.dirname, '..', 'site');
const SORTIE = join(RACINE_SITE, 'dist', 'index.html');

/** The newest modification time among the site's sources (and the lockfile, which pins its libraries). */
const plusRecente = (): number => {
  let max = statSync(resolve(RACINE_SITE, '..', 'package-lock.json')).mtimeMs;
  const parcourir = (dossier: string) => {
    for (const entree of readdirSync(dossier, { withFileTypes: true })) {
      if (entree.name === 'dist' || entree.name === 'node_modules') continue;
      const chemin = join(dossier, entree.name);
      if (entree.isDirectory()) parcourir(chemin);
      else max = Math.max(max, statSync(chemin).mtimeMs);
    }
  };
  parcourir(RACINE_SITE);
  return max;
};

export const siteAJour = (): boolean => !existsSync(RACINE_SITE) || (existsSync(SORTIE) && statSync(SORTIE).mtimeMs >= plusRecente());

/**
 * Builds into a folder of its own, then puts it in place: two stacks started at once (tests) each
 * build whole, and a running server never reads a half-written build.
 */
export const construireSite = async (): Promise<void> => {
  // Loaded here only: a start with an up-to-date site does not pay for Vite.
  const { build } = await import('vite');
  const temporaire = join(RACINE_SITE, `.dist-${process.pid}`);
  // Vite and its Vue plugin build for the NODE_ENV they find: under the test runner (NODE_ENV=test), or in a
  // shell that exports another, the site came out as Vue's development build, twice the first page's
  // JavaScript. What npm start serves is the production build, whatever the shell says.
  const avant = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(RACINE_SITE, 'vite.config.ts'), logLevel: 'warn', mode: 'production', build: { outDir: temporaire, emptyOutDir: true } });
    rmSync(join(RACINE_SITE, 'dist'), { recursive: true, force: true });
    renameSync(temporaire, join(RACINE_SITE, 'dist'));
  } finally {
    if (avant === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = avant;
    rmSync(temporaire, { recursive: true, force: true });
  }
};
