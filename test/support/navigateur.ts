/**
 * What the browser tests (test/navigateur/) share: `npm start` as a person runs it, on a port and data
 * folder of its own, and Debian's Chromium driven by puppeteer-core, in the language a test asks for,
 * recording every Content Security Policy violation the page reports; axe-core's check of the page as it
 * is; a wait on a condition that says, when it fails, what npm start printed. CHROMIUM names another
 * browser binary.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { portLibre } from '../../local/ports';

export const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** Where the screenshots the README shows are written. */
export const CAPTURES = join(RACINE, 'docs', 'site');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Service {
  origine: string;
  /** The stack's data folder (RETOUCHE_DATA_DIR): the admin CLI acts on it. */
  dossier: string;
  navigateur: Browser;
  page: Page;
  /** Everything npm start printed so far (its verification codes among it). */
  sortie: () => string;
  violationsCsp: string[];
  attendre: <T>(quoi: () => T | undefined | false, ms: number, raison: string) => Promise<T>;
  arreter: () => Promise<void>;
}

/** npm start (with `env` added to this process's) and a browser whose language is `langue` (`fr-FR`, `en-US`). */
export const demarrerService = async (options: { prefixe: string; env?: Record<string, string>; langue: 'fr-FR' | 'en-US' }): Promise<Service> => {
  const dossier = mkdtempSync(join(tmpdir(), options.prefixe));
  const port = await portLibre();
  let sortie = '';
  const enfant = spawn(process.execPath, ['--import', 'tsx', join(RACINE, 'local/start.ts')], {
    cwd: RACINE,
    env: { ...process.env, PORT: String(port), RETOUCHE_DATA_DIR: dossier, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the whole stack is stopped with one signal.
    detached: true,
  });
  enfant.stdout!.on('data', (m: Buffer) => (sortie += m.toString()));
  enfant.stderr!.on('data', (m: Buffer) => (sortie += m.toString()));
  const attendre = async <T>(quoi: () => T | undefined | false, ms: number, raison: string): Promise<T> => {
    const limite = Date.now() + ms;
    for (;;) {
      const valeur = quoi();
      if (valeur) return valeur;
      if (Date.now() > limite) throw new Error(`timed out: ${raison}\n${sortie}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const [, navigateur] = await Promise.all([
    attendre(() => sortie.includes('Retouche is running on'), 150_000, 'npm start did not start'),
    puppeteer.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      // The site's first visit follows the browser's language.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        `--lang=${options.langue}`,
        `--accept-lang=${options.langue},${options.langue.slice(0, 2)}`,
      ],
      env: { ...process.env, LANGUAGE: options.langue.replace('-', '_'), LANG: `${options.langue.replace('-', '_')}.UTF-8` },
    }),
  ]);
  const page = await navigateur.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const violationsCsp: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violationsCsp.push(message.text());
  });
  mkdirSync(CAPTURES, { recursive: true });
  return {
    origine: `http://localhost:${port}`,
    dossier,
    navigateur,
    page,
    sortie: () => sortie,
    violationsCsp,
    attendre,
    arreter: async () => {
      await navigateur.close();
      if (enfant.pid) {
        try {
          process.kill(-enfant.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        await new Promise((r) => setTimeout(r, 1500));
      }
      rmSync(dossier, { recursive: true, force: true });
    },
  };
};

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A and AA rules). */
export const accessibilite = async (page: Page): Promise<string[]> => {
  // Through DevTools, not a <script>: the page's policy allows no script but its own.
  // (Page code as text: the tests compile without the DOM's types.)
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE);
  const resultats = (await page.evaluate("axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })")) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  };
  return resultats.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
};
