/**
 * Every function of the stack bundles as `cdk synth` bundles it (lib/fonction.ts `empaqueter`: ESM
 * for Node 24 split into chunks, the require() banner, sharp and c2pa-wasm external) and the bundle
 * loads and exports its handler: an
 * import that only works under tsx, or a CommonJS dependency that breaks in ESM, fails here rather
 * than in Lambda. Bundles are written under cdk.out/, where the externals resolve to the project's copy.
 * Two bundles are also run: C2PA signing from a bundle whose only node_modules is the installed
 * c2pa-wasm package (the tool function's layout), and the C2PA key generator against a stand-in
 * Secrets Manager and CloudFormation.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildSync } from 'esbuild';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fonctionsDeLaPile } from '../../lib/application';
import { empaqueter, empaqueterFichier, optionsBundle, RACINE, repartitionBundle } from '../../lib/fonction';
import { MODULE_TRAVAILLEUR } from '../../lambdas/moteurs/commun/parallele';

const fonctions = fonctionsDeLaPile('bundles');
const dossier = path.join(RACINE, 'cdk.out', 'test-bundles');
const executer = promisify(execFile);

/**
 * Cold-start ceilings above the API's 300 KB (Stripe's webhook has none: it checks signatures
 * without the `stripe` library, core/infra/stripe.ts).
 */
const PLAFONDS_KO: Record<string, number> = {
  // The MCP server, about 320 KB: it answers the usual messages without the official MCP SDK, which it
  // imports only for the others (clients/mcp/src/http.ts), but esbuild splits chunks by file, so the zod
  // modules it shares with the SDK come with every statement the SDK's protocol schemas use (85 KB where
  // its own use is 25). The whole SDK at start was 960 KB.
  'http/mcp': 340,
};

/** What each function's bundle reads at a cold start and on demand (filled by the first test). */
const repartitions = new Map<string, ReturnType<typeof repartitionBundle>>();

// Each bundle is built by its own test, one failure per module; the tests after them read what those built: never shuffled.
describe('Lambda bundles', { shuffle: false }, () => {
  it('covers every handler module of the stack', () => {
    expect(fonctions.map((f) => f.module).sort()).toEqual(
      expect.arrayContaining([
        'deploiement/cle-liens',
        'deploiement/cle-c2pa',
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
    // sharp and c2pa-wasm are not installed beside it: under cdk.out/ they resolve to the project's copy.
    const meta = empaqueter(module, path.join(dossier, module), sharp, { installer: false });
    repartitions.set(module, repartitionBundle(meta));
    const sortie = path.join(dossier, module, 'index.mjs');
    const charge = (await import(pathToFileURL(sortie).href)) as { handler?: unknown };
    expect(typeof charge.handler).toBe('function');
  });

  it('every API function reads at most 300 KB of JS at a cold start, with no S3 client and no credential source Lambda never reaches', () => {
    const api = fonctions.map((f) => f.module).filter((m) => m.startsWith('http/'));
    expect(api).toEqual(expect.arrayContaining(['http/solde', 'http/travail', 'http/travaux-creer', 'http/televersements-creer', 'http/fichier']));
    for (const module of api) {
      const { octetsDepart, depart, aLaDemande } = repartitions.get(module)!;
      expect(octetsDepart / 1024, module).toBeLessThanOrEqual(PLAFONDS_KO[module] ?? 300);
      for (const fichier of [...depart, ...aLaDemande]) {
        const code = readFileSync(fichier, 'utf8');
        // S3 goes through core/infra/objets.ts (SigV4 by the SDK's own signer): the S3 client's operation
        // names are nowhere, nor the STS client of the web-identity and ini credential sources.
        expect(code, `${module} ${fichier}`).not.toContain('PutBucketLifecycleConfiguration');
        expect(code, `${module} ${fichier}`).not.toContain('AssumeRoleWithWebIdentity');
      }
    }
  });

  it('the MCP function reads the official MCP SDK only when a message needs it', () => {
    const { depart, aLaDemande } = repartitions.get('http/mcp')!;
    const code = (fichiers: string[]) => fichiers.map((f) => readFileSync(f, 'utf8')).join('\n');
    // Two messages of the SDK's own: its Streamable HTTP transport's, and its McpServer's.
    for (const message of ['Not Acceptable: Client must accept both', 'Input validation error: Invalid arguments for tool']) {
      expect(code(depart)).not.toContain(message);
      expect(code(aLaDemande)).toContain(message);
    }
  });

  it('the tool function imports c2pa-wasm from the installed package (glue and .wasm of one build), not a bundled copy', async () => {
    const outil = fonctions.find((f) => f.module === 'pipeline/outil')!;
    expect(outil.avecSharp).toBe(true);
    expect(optionsBundle(true).external).toEqual(expect.arrayContaining(['sharp', '@contentauth/c2pa-wasm']));
    const { depart, aLaDemande } = repartitions.get('pipeline/outil')!;
    const code = [...depart, ...aLaDemande].map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(code).toMatch(/from"@contentauth\/c2pa-wasm"/);
    // The glue's own code (its WASM_SRI digest, its wasm-bindgen imports) is not in the bundle.
    expect(code).not.toContain('sha512-');
    expect(code).not.toContain('__wbindgen');
  });
});

describe('bundles that run', () => {
  it('signs C2PA from a bundle whose c2pa-wasm is the package installed next to it, as in the tool function', async () => {
    // Outside the repository, so nothing resolves to the project's node_modules: c2pa-wasm is copied
    // there as the deploy installs it; sharp (which the provenance module imports) is linked.
    const lambda = mkdtempSync(path.join(tmpdir(), 'retouche-bundle-c2pa-'));
    try {
      const resultat = buildSync({
        ...optionsBundle(true),
        stdin: {
          contents: [
            "export { signerC2pa } from './lambdas/moteurs/c2pa/signature';",
            "export { creerPkiTestPour } from './lambdas/moteurs/c2pa/certificats';",
            "export { WasmReader } from '@contentauth/c2pa-wasm';",
          ].join('\n'),
          resolveDir: RACINE,
          sourcefile: 'index.ts',
          loader: 'ts',
        },
        outdir: lambda,
        // stdin has no name of its own: the entry is index.mjs, as in a function's asset.
        entryNames: 'index',
      });
      expect(resultat.errors).toEqual([]);
      cpSync(path.join(RACINE, 'node_modules', '@contentauth', 'c2pa-wasm'), path.join(lambda, 'node_modules', '@contentauth', 'c2pa-wasm'), {
        recursive: true,
      });
      symlinkSync(path.join(RACINE, 'node_modules', 'sharp'), path.join(lambda, 'node_modules', 'sharp'));
      symlinkSync(path.join(RACINE, 'node_modules', '@img'), path.join(lambda, 'node_modules', '@img'));
      writeFileSync(
        path.join(lambda, 'image.png'),
        await sharp({ create: { width: 20, height: 12, channels: 3, background: '#446688' } })
          .png()
          .toBuffer(),
      );
      // Run by plain Node, as Lambda runs it (vitest's module runner resolves differently).
      writeFileSync(
        path.join(lambda, 'essai.mjs'),
        `import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { signerC2pa, creerPkiTestPour, WasmReader } from './index.mjs';
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const pki = await creerPkiTestPour(privateKey, 'Retouche bundle test');
const signee = await signerC2pa(readFileSync(new URL('./image.png', import.meta.url)), 'png', {
  clePrivee: privateKey, chaine: pki.chaine, outil: 'ciel', moteur: 'bedrock',
  nature: { action: 'c2pa.edited', source: 'compositeWithTrainedAlgorithmicMedia' }, entree: { hash: Buffer.alloc(32, 1), format: 'jpeg' },
});
const lecteur = await WasmReader.fromBytes('image/png', signee);
console.log(JSON.stringify({ etat: JSON.parse(lecteur.json()).validation_state }));
`,
      );
      const { stdout } = await executer(process.execPath, [path.join(lambda, 'essai.mjs')], { cwd: lambda, env: { PATH: process.env.PATH } });
      expect(JSON.parse(stdout.trim())).toEqual({ etat: 'Valid' });
    } finally {
      rmSync(lambda, { recursive: true, force: true });
    }
  });

  it('merges a bracket from a bundle as from source, its worker thread loaded from the bundle (moteurs/commun/parallele.ts)', async () => {
    // Under cdk.out/, where sharp resolves to the project's copy; the worker's module is the bundle's own entry point.
    const lambda = path.join(dossier, 'fusion-parallele');
    empaqueterFichier(path.join(RACINE, 'lambdas', 'moteurs', 'commun', 'fusion', 'index.ts'), lambda, true, { installer: false });
    // From bytes: the engines' modules, once loaded, block libvips's file loaders in this process (moteurs/commun/pixels.ts).
    const vue = await sharp(readFileSync(path.join(RACINE, 'test', 'photos', 'chambre_coco403353.jpg')))
      .resize(1200)
      .removeAlpha()
      .toBuffer();
    const photos = await Promise.all([0.25, 1, 4].map((k) => sharp(vue).linear(k, 0).jpeg({ quality: 92 }).toBuffer()));
    photos.forEach((p, i) => writeFileSync(path.join(lambda, `${i}.jpg`), p));
    writeFileSync(
      path.join(lambda, 'essai.mjs'),
      `import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fusionner } from './index.mjs';
const photos = [0, 1, 2].map((i) => readFileSync(new URL(\`./\${i}.jpg\`, import.meta.url)));
const r = await fusionner(photos);
console.log(createHash('sha256').update(r.pixels.data).digest('hex'));
`,
    );
    const { stdout } = await executer(process.execPath, [path.join(lambda, 'essai.mjs')], { cwd: lambda, env: { PATH: process.env.PATH } });
    const { fusionner } = await import('../../lambdas/moteurs/commun/fusion/index');
    const source = await fusionner(photos);
    expect(stdout.trim()).toBe(createHash('sha256').update(source.pixels.data).digest('hex'));
    expect(readdirSync(lambda)).toContain(`${MODULE_TRAVAILLEUR}.mjs`);
  });

  it('runs the C2PA key generator bundle: key and test chain into the secret, CSR and signer back to CloudFormation', async () => {
    const secret: { valeur?: string } = {};
    const cloudformation: unknown[] = [];
    const lire = async (req: IncomingMessage) => {
      let corps = '';
      for await (const morceau of req) corps += morceau;
      return corps;
    };
    // Secrets Manager's JSON protocol, as much as the resource uses, and CloudFormation's response URL.
    const serveur = createServer(async (req, res) => {
      const corps = await lire(req);
      if (req.method === 'PUT') {
        cloudformation.push(JSON.parse(corps));
        res.writeHead(200).end();
        return;
      }
      const cible = String(req.headers['x-amz-target']);
      const entree = JSON.parse(corps) as { SecretId: string; SecretString?: string; VersionStage?: string };
      expect(entree.SecretId).toBe('arn:aws:secretsmanager:eu-west-1:123456789012:secret:c2pa');
      if (cible === 'secretsmanager.PutSecretValue') {
        secret.valeur = entree.SecretString;
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ ARN: entree.SecretId, VersionId: 'v2' }));
      } else if (cible === 'secretsmanager.GetSecretValue' && entree.VersionStage !== 'AWSPREVIOUS') {
        const valeur = secret.valeur ?? 'random password from CDK';
        res
          .writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
          .end(JSON.stringify({ ARN: entree.SecretId, SecretString: valeur, VersionId: 'v1' }));
      } else {
        res
          .writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'ResourceNotFoundException' })
          .end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'no such version' }));
      }
    });
    await new Promise<void>((ok) => serveur.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(serveur.address() as AddressInfo).port}`;
    const env = { AWS_ENDPOINT_URL_SECRETS_MANAGER: url, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDEXEMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
    const avant = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      const sortie = path.join(dossier, 'deploiement/cle-c2pa', 'index.mjs');
      // A fresh instance of the bundle built above, so its client reads this environment.
      const { handler } = (await import(`${pathToFileURL(sortie).href}?execution`)) as { handler: (e: unknown) => Promise<void> };
      await handler({
        RequestType: 'Create',
        ResponseURL: `${url}/reponse`,
        StackId: 'pile',
        RequestId: 'requete',
        LogicalResourceId: 'CleC2paRessource',
        ResourceProperties: {
          ServiceToken: 'arn',
          Secret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:c2pa',
          Generation: '1',
          Organisation: 'Retouche bundles (test, not trusted)',
        },
      });
    } finally {
      for (const [k, v] of Object.entries(avant))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      serveur.close();
    }
    expect(cloudformation).toEqual([
      expect.objectContaining({
        Status: 'SUCCESS',
        Data: {
          Csr: expect.stringContaining('-----BEGIN CERTIFICATE REQUEST-----'),
          Signataire: 'CN=Retouche bundles (test, not trusted) C2PA Signer, O=Retouche bundles (test, not trusted), C=FR',
          Test: 'true',
          Empreinte: expect.stringMatching(/^[0-9a-f]{16}$/),
        },
      }),
    ]);
    const stocke = JSON.parse(secret.valeur!) as { clePrivee: string; chaine: string[] };
    expect(stocke.clePrivee).toContain('-----BEGIN PRIVATE KEY-----');
    expect(stocke.chaine).toHaveLength(2);
    expect(JSON.stringify(cloudformation)).not.toContain('PRIVATE KEY');
  });
});
