/**
 * Every function of the stack bundles with the options `cdk synth` uses (ESM for Node 24, the
 * require() banner, sharp external) and the bundle loads and exports its handler: an import that
 * only works under tsx, or a CommonJS dependency that breaks in ESM, fails here rather than in
 * Lambda. Bundles are written under cdk.out/, where sharp resolves to the project's copy.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { construireApplication } from '../../lib/application';
import { BANNIERE, Fonction, RACINE } from '../../lib/fonction';

const app = new App({ context: { stage: 'bundles', liens: 'api', 'aws:cdk:bundling-stacks': [] } });
const stack = construireApplication(app);
const fonctions = [...new Map(stack.node.findAll().filter((c): c is Fonction => c instanceof Fonction).map((f) => [f.module, f])).values()];
const dossier = path.join(RACINE, 'cdk.out', 'test-bundles');

describe('Lambda bundles', () => {
  it('covers every handler module of the stack', () => {
    expect(fonctions.map((f) => f.module).sort()).toEqual(
      expect.arrayContaining([
        'deploiement/cle-liens',
        'http/fichier',
        'http/introuvable',
        'http/travaux-creer',
        'http/televersements-creer',
        'pipeline/outil',
        'pipeline/balayeur',
      ]),
    );
  });

  it.each(fonctions.map((f) => [f.module, f.avecSharp] as const))('%s bundles as ESM for node24 and exports handler', async (module, sharp) => {
    const sortie = path.join(dossier, module, 'index.mjs');
    rmSync(path.dirname(sortie), { recursive: true, force: true });
    mkdirSync(path.dirname(sortie), { recursive: true });
    const resultat = await build({
      entryPoints: [path.join(RACINE, 'lambdas', `${module}.ts`)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      mainFields: ['module', 'main'],
      banner: { js: BANNIERE },
      external: sharp ? ['sharp'] : [],
      outfile: sortie,
      minify: true,
      logLevel: 'silent',
    });
    expect(resultat.errors).toEqual([]);
    const charge = (await import(pathToFileURL(sortie).href)) as { handler?: unknown };
    expect(typeof charge.handler).toBe('function');
  });
});
