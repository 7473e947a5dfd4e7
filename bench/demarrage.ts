/**
 * Cold start: what each function of the stack loads before it answers. Every function the stack
 * declares (lib/application.ts: `fonctionsDeLaPile`, the list test/cdk/bundles.test.ts bundles too) is
 * bundled exactly as `cdk synth` bundles it (lib/fonction.ts: `empaqueter`), then its `index.mjs` is
 * imported by plain Node in a fresh process, as the Lambda runtime imports a handler: with the
 * function's own environment from the template (NODE_OPTIONS included, resources as placeholders), so
 * module-level code runs as it does on AWS. It prints per function the minified JS read at start
 * (index.mjs and the chunks it imports statically) and the JS read only when first used (chunks behind
 * an `import()`), the source maps, whether the map is loaded at start (NODE_OPTIONS=--enable-source-maps),
 * the median import time of 5 fresh processes (after one discarded run that warms the disk cache) and
 * the CPU time spent in it, and the same import with source maps the other way (loaded if they are not,
 * not if they are): their cost. The API functions' worst figures are compared with the goal: at most
 * 300 KB and 30 ms.
 *
 *   npm run bench:demarrage
 *   npx tsx bench/demarrage.ts --repetitions 9 --filtre http/
 */
import { execFile } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { fonctionsDeLaPile } from '../lib/application';
import { empaqueter, empaqueterFichier, optionsBundle, RACINE, repartitionBundle, type Fonction } from '../lib/fonction';

const { values: args } = parseArgs({
  options: {
    repetitions: { type: 'string', default: '5' },
    filtre: { type: 'string', default: '' },
  },
});
const REPETITIONS = Number(args.repetitions);
const OBJECTIF_KO = 300;
const OBJECTIF_MS = 30;
const executer = promisify(execFile);

// The stack's functions, as the bundles test takes them (sorted by module).
const fonctions = fonctionsDeLaPile('bench').filter((f) => f.module.includes(args.filtre));

/** The function's environment from the template; a reference to another resource becomes a placeholder. */
const environnement = (f: Fonction): Record<string, string> => {
  const cfn = f.node.defaultChild as CfnFunction;
  const variables = (Stack.of(f).resolve(cfn.environment) as { variables?: Record<string, unknown> } | undefined)?.variables ?? {};
  return Object.fromEntries(Object.entries(variables).map(([nom, valeur]) => [nom, typeof valeur === 'string' ? valeur : `bench-${nom.toLowerCase()}`]));
};

/** What the Lambda runtime adds, and fake credentials (nothing is called at import). */
const ENV_LAMBDA = {
  AWS_REGION: 'eu-west-1',
  AWS_DEFAULT_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  AWS_ACCESS_KEY_ID: 'AKIDBENCH',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_EC2_METADATA_DISABLED: 'true',
  TZ: ':UTC',
  LANG: 'en_US.UTF-8',
};

// Wall time of the import, and the CPU time the process spent in it (every thread: V8 compiles and
// collects on helper threads), which a busy machine disturbs much less than the wall time.
const SONDE = [
  'const c = process.cpuUsage(); const t = performance.now();',
  'const m = await import(process.argv[1]);',
  'const ms = performance.now() - t; const u = process.cpuUsage(c);',
  "if (typeof m.handler !== 'function') throw new Error('no handler');",
  'console.log(JSON.stringify({ ms, cpu: (u.user + u.system) / 1000 }));',
].join(' ');

interface Mesure {
  ms: number;
  cpu: number;
}

const importer = async (fichier: string, env: Record<string, string>): Promise<Mesure> => {
  const { stdout } = await executer(process.execPath, ['--input-type=module', '-e', SONDE, pathToFileURL(fichier).href], {
    cwd: path.dirname(fichier),
    env: { PATH: process.env.PATH ?? '', ...ENV_LAMBDA, ...env },
  });
  return JSON.parse(stdout.trim()) as Mesure;
};

const mediane = (valeurs: number[]): number => {
  const tri = [...valeurs].sort((a, b) => a - b);
  const milieu = Math.floor(tri.length / 2);
  return tri.length % 2 ? tri[milieu]! : (tri[milieu - 1]! + tri[milieu]!) / 2;
};

const mesurer = async (fichier: string, env: Record<string, string>): Promise<Mesure> => {
  await importer(fichier, env);
  const mesures: Mesure[] = [];
  for (let i = 0; i < REPETITIONS; i++) mesures.push(await importer(fichier, env));
  return { ms: mediane(mesures.map((m) => m.ms)), cpu: mediane(mesures.map((m) => m.cpu)) };
};

const ko = (octets: number) => octets / 1024;
const taille = (fichier: string) => {
  try {
    return statSync(fichier).size;
  } catch {
    return 0;
  }
};

interface Ligne {
  module: string;
  /** JS read at start: index.mjs and the chunks it imports statically. */
  js: number;
  /** JS read only when an `import()` first runs. */
  aLaDemande: number;
  carte: number;
  /** As deployed: with the function's own NODE_OPTIONS. */
  deploye: Mesure;
  /** The other way: --enable-source-maps added if the function does not have it, removed if it does. */
  autre: Mesure;
  cartesChargees: boolean;
}

const dossier = path.join(RACINE, 'cdk.out', 'bench-demarrage');
rmSync(dossier, { recursive: true, force: true });
const options = optionsBundle(false);
console.log(
  `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]!.toFixed(2)}; ` +
    `bundles as cdk synth (minify ${String(options.minify)}, split ${String(options.splitting)}, source map ${String(options.sourcemap)}), median of ${REPETITIONS} fresh processes\n`,
);

/** A reference measured like the functions: the DynamoDB document client alone (bench/reference-dynamodb.ts). */
const REFERENCE = '(reference) DynamoDB client alone';
const aMesurer: { module: string; avecSharp: boolean; env: Record<string, string> }[] = [
  ...fonctions.map((f) => ({ module: f.module, avecSharp: f.avecSharp, env: environnement(f) })),
  ...(args.filtre && !'http/'.includes(args.filtre) && !REFERENCE.includes(args.filtre) ? [] : [{ module: REFERENCE, avecSharp: false, env: {} }]),
];

const lignes: Ligne[] = [];
for (const f of aMesurer) {
  const sortieDossier = path.join(dossier, f.module === REFERENCE ? 'reference' : f.module);
  // sharp and c2pa-wasm are not installed beside the bundle: they resolve to the project's copy.
  const meta =
    f.module === REFERENCE
      ? empaqueterFichier(path.join(RACINE, 'bench', 'reference-dynamodb.ts'), sortieDossier, false)
      : empaqueter(f.module, sortieDossier, f.avecSharp, { installer: false });
  const sortie = path.join(sortieDossier, 'index.mjs');
  const { octetsDepart, octetsALaDemande } = repartitionBundle(meta);
  const env = f.env;
  const nodeOptions = env.NODE_OPTIONS ?? '';
  const cartesChargees = nodeOptions.includes('--enable-source-maps');
  const autres = cartesChargees ? nodeOptions.replace('--enable-source-maps', '').trim() : `${nodeOptions} --enable-source-maps`.trim();
  const ligne: Ligne = {
    module: f.module,
    js: octetsDepart,
    aLaDemande: octetsALaDemande,
    carte: Object.keys(meta.outputs)
      .filter((f) => f.endsWith('.map'))
      .reduce((t, f) => t + taille(path.resolve(f)), 0),
    deploye: await mesurer(sortie, env),
    autre: await mesurer(sortie, { ...env, NODE_OPTIONS: autres }),
    cartesChargees,
  };
  lignes.push(ligne);
  process.stderr.write('.');
}
process.stderr.write('\n');

const entetes = [
  'function',
  'JS at start (KB)',
  'JS on demand (KB)',
  'maps (KB)',
  'source maps at start',
  'import (ms)',
  'CPU (ms)',
  'import, maps the other way (ms)',
];
const cellules = lignes.map((l) => [
  l.module,
  ko(l.js).toFixed(0),
  ko(l.aLaDemande).toFixed(0),
  l.carte ? ko(l.carte).toFixed(0) : '-',
  l.cartesChargees ? 'loaded' : 'no',
  l.deploye.ms.toFixed(1),
  l.deploye.cpu.toFixed(1),
  `${l.autre.ms.toFixed(1)} (${l.cartesChargees ? 'not loaded' : 'loaded'})`,
]);
const largeurs = entetes.map((e, i) => Math.max(e.length, ...cellules.map((c) => c[i]!.length)));
const rangee = (c: string[]) => `| ${c.map((x, i) => (i === 0 || i === 4 ? x.padEnd(largeurs[i]!) : x.padStart(largeurs[i]!))).join(' | ')} |`;
console.log(rangee(entetes));
console.log(`|${largeurs.map((l) => '-'.repeat(l + 2)).join('|')}|`);
for (const c of cellules) console.log(rangee(c));

const api = lignes.filter((l) => l.module.startsWith('http/'));
if (api.length) {
  const extremes = (valeur: (l: Ligne) => number) => {
    const tri = [...api].sort((a, b) => valeur(a) - valeur(b));
    return { bas: tri[0]!, haut: tri[tri.length - 1]! };
  };
  const taille_ = extremes((l) => l.js);
  const temps = extremes((l) => l.deploye.ms);
  const cpu = extremes((l) => l.deploye.cpu);
  const tient = ko(taille_.haut.js) <= OBJECTIF_KO && temps.haut.deploye.ms <= OBJECTIF_MS;
  console.log(
    `\nAPI functions (${api.length}): ${ko(taille_.bas.js).toFixed(0)}–${ko(taille_.haut.js).toFixed(0)} KB (largest ${taille_.haut.module}), ` +
      `import ${temps.bas.deploye.ms.toFixed(1)}–${temps.haut.deploye.ms.toFixed(1)} ms (slowest ${temps.haut.module}), ` +
      `CPU ${cpu.bas.deploye.cpu.toFixed(1)}–${cpu.haut.deploye.cpu.toFixed(1)} ms`,
  );
  const horsObjectif = api.filter((l) => ko(l.js) > OBJECTIF_KO || l.deploye.ms > OBJECTIF_MS).map((l) => l.module);
  console.log(
    `goal ≤ ${OBJECTIF_KO} KB and ≤ ${OBJECTIF_MS} ms: ${tient ? 'met' : `NOT met by ${horsObjectif.join(', ')}`}` +
      (loadavg()[0]! > cpus().length ? ` (load ${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores: wall times are inflated, see CPU)` : ''),
  );
  const reference = lignes.find((l) => l.module === REFERENCE);
  if (reference) {
    console.log(
      `the floor, ${REFERENCE}: ${ko(reference.js).toFixed(0)} KB, import ${reference.deploye.ms.toFixed(1)} ms (CPU ${reference.deploye.cpu.toFixed(1)} ms): ` +
        `what every authenticated route pays before its own code`,
    );
  }
  if (!tient) process.exitCode = 1;
}
