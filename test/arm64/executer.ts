/**
 * The tool function as Lambda runs it: its bundled asset from the synthesized template (arm64 sharp
 * and libvips, the c2pa WebAssembly beside it), its handler, its environment as the template sets it,
 * on an arm64 Node under qemu — one run of every image tool on a 12 MP photo, against the local
 * stand-ins. Slow under emulation, so it is its own script (`npm run test:arm64`, run by CI), not part
 * of `npm test`.
 *
 * What is not the template's: the endpoints of the stand-ins (AWS_ENDPOINT_URL_*), path-style S3
 * (RETOUCHE_S3_CHEMIN, for the local S3) and dummy credentials; RETOUCHE_MOTEUR is `local` because the
 * stack is synthesized with `-c moteur=local` (no Bedrock here).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { clientDocument } from '../../lambdas/core/dependances';
import { cles } from '../../lambdas/core/table';
import { creerPkiTest } from '../../lambdas/moteurs/c2pa/certificats';
import { clientDynamoLocal, creerTable, demarrerDynamo } from '../../local/dynamodb';
import { clientS3Local, demarrerS3, identifiantsS3Local } from '../../local/s3';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { photoGrande } from '../support/photo';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const OUTILS = ['vider', 'staging', 'renovation', 'saison', 'ciel'] as const;

const nodeArm64 = execFileSync('bash', [join(RACINE, 'test/arm64/prerequis.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!;
const temp = mkdtempSync(join(tmpdir(), 'retouche-arm64-'));
const arrets: (() => Promise<unknown>)[] = [];
let echecs = 0;

try {
  // 1. The template and the tool function's asset, synthesized as for a deploy (real bundling).
  const sortie = join(temp, 'cdk.out');
  console.log('synthesizing the stack (-c moteur=local -c liens=api)…');
  execFileSync('npx', ['cdk', 'synth', '-q', '-c', 'stage=arm64', '-c', 'moteur=local', '-c', 'liens=api', '-o', sortie], { cwd: RACINE, stdio: ['ignore', 'ignore', 'inherit'] });
  const modele = JSON.parse(readFileSync(join(sortie, 'Retouche-arm64.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string>; Properties: { Handler: string; Architectures: string[]; Environment: { Variables: Record<string, unknown> } } }>;
  };
  const [, outil] = Object.entries(modele.Resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.['aws:cdk:path']?.endsWith('/Flux/Outil/Resource'))!;
  const actif = join(sortie, outil.Metadata!['aws:asset:path']!);
  const [fichier, exportation] = outil.Properties.Handler.split('.') as [string, string];
  console.log(`tool function: ${outil.Properties.Architectures.join()} asset ${actif}, handler ${outil.Properties.Handler}`);

  // 2. The stand-ins, and what the template's references point to here.
  const dynamo = await demarrerDynamo();
  arrets.push(dynamo.arreter);
  const s3 = await demarrerS3({ dossier: join(temp, 's3'), seaux: [] });
  arrets.push(s3.arreter);
  const table = 'retouche-arm64';
  const bucket = 'retouche-arm64';
  await creerTable(clientDynamoLocal(dynamo.endpoint), table);
  const clientS3 = clientS3Local(s3.endpoint);
  await clientS3.send(new CreateBucketCommand({ Bucket: bucket }));
  const pki = await creerPkiTest('Retouche arm64 test');
  const secret = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:retouche-c2pa';
  // Secrets Manager stand-in: GetSecretValue of the one secret the function may read.
  const secrets = createServer((requete, reponse) => {
    let corps = '';
    requete.on('data', (m: Buffer) => (corps += m.toString()));
    requete.on('end', () => {
      const { SecretId } = JSON.parse(corps || '{}') as { SecretId?: string };
      const connu = requete.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' && SecretId === secret;
      reponse.writeHead(connu ? 200 : 400, { 'Content-Type': 'application/x-amz-json-1.1' });
      reponse.end(JSON.stringify(connu ? { ARN: secret, Name: 'retouche-c2pa', SecretString: JSON.stringify({ clePrivee: pki.clePrivee, chaine: pki.chaine }) } : { __type: 'ResourceNotFoundException', message: `no secret ${SecretId}` }));
    });
  });
  await new Promise<void>((r) => secrets.listen(0, '127.0.0.1', r));
  arrets.push(() => new Promise((r) => secrets.close(r)));
  const portSecrets = (secrets.address() as { port: number }).port;

  const references: Record<string, string> = {};
  for (const [id, r] of Object.entries(modele.Resources)) {
    if (r.Type === 'AWS::DynamoDB::Table') references[id] = table;
    if (r.Type === 'AWS::S3::Bucket') references[id] = bucket;
    if (r.Type === 'AWS::SecretsManager::Secret') references[id] = secret;
  }
  const resoudre = (valeur: unknown): string => {
    if (typeof valeur === 'string') return valeur;
    const v = valeur as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    if (v.Ref && references[v.Ref]) return references[v.Ref]!;
    if (v['Fn::GetAtt']) return `attribute ${v['Fn::GetAtt'].join('.')}`;
    throw new Error(`cannot resolve ${JSON.stringify(valeur)} for the local stand-ins`);
  };
  const environnement = Object.fromEntries(Object.entries(outil.Properties.Environment.Variables).map(([k, v]) => [k, resoudre(v)]));

  // 3. One job per tool, each with a 12 MP photo stored where Preparer would have put it.
  const photo = await sharp(await photoGrande()).resize(4000, 3000).jpeg({ quality: 92 }).toBuffer();
  const ddb = clientDocument(clientDynamoLocal(dynamo.endpoint));
  const compte = 'compte-arm64';
  const evenements = [];
  for (const [i, o] of OUTILS.entries()) {
    const id = `0000000${i}-a64a-4a64-8a64-000000000000`;
    const entree = `entrees/${compte}/${id}/0.jpg`;
    await clientS3.send(new PutObjectCommand({ Bucket: bucket, Key: entree, Body: photo, ContentType: 'image/jpeg' }));
    await ddb.send(
      new PutCommand({
        TableName: table,
        Item: { ...cles.travail(id), type: 'travail', id, compte, outil: o, statut: 'en_cours', cout: 1, valeurs: {}, lot: null, index: i, nom: `photo-${o}.jpg`, source: 'api', cree_le: new Date().toISOString(), commence_le: null, termine_le: null, entrees: [{ type: 's3', cle: entree }], resultats: [], texte: null, erreur: null, rembourse: false, graine: null },
      }),
    );
    evenements.push({ travail: id, compte, lot: null, outil: o, preparation: { entrees: [entree] } });
  }

  // 4. The handler, in an arm64 Node under qemu, with the template's environment.
  const appel = `
    const t0 = performance.now();
    const module = await import(${JSON.stringify(join(actif, `${fichier}.mjs`))});
    const chargement = performance.now() - t0;
    const contexte = { awsRequestId: 'arm64', functionName: 'Outil', getRemainingTimeInMillis: () => 300000 };
    const sorties = [];
    for (const e of ${JSON.stringify(evenements)}) {
      const t = performance.now();
      const sortie = await module.${exportation}(e, contexte);
      sorties.push({ outil: e.outil, ms: Math.round(performance.now() - t), sortie });
    }
    const { createRequire } = await import('node:module');
    const sharp = createRequire(${JSON.stringify(join(actif, 'index.mjs'))})('sharp');
    console.log(JSON.stringify({ arch: process.arch, node: process.version, sharp: sharp.versions, plateforme: sharp.format ? process.platform + '-' + process.arch : '', chargement: Math.round(chargement), sorties }));
  `;
  const env = {
    PATH: process.env.PATH,
    ...environnement,
    RETOUCHE_S3_CHEMIN: '1',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: identifiantsS3Local.accessKeyId,
    AWS_SECRET_ACCESS_KEY: identifiantsS3Local.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${portSecrets}`,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const script = join(temp, 'appel.mjs');
  writeFileSync(script, appel);
  console.log(`running the handler on ${nodeArm64} under qemu-aarch64 (5 tools, 12 MP each)…`);
  const t0 = Date.now();
  const resultat = await new Promise<string>((resoudreSortie, rejeter) => {
    const enfant = spawn('qemu-aarch64-static', ['-L', '/', nodeArm64, script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let texte = '';
    enfant.stdout.on('data', (m: Buffer) => (texte += m.toString()));
    enfant.on('error', rejeter);
    enfant.on('exit', (code) => (code === 0 ? resoudreSortie(texte) : rejeter(new Error(`the arm64 run exited ${code}`))));
  });
  const rapport = JSON.parse(resultat.trim().split('\n').pop()!) as {
    arch: string;
    node: string;
    sharp: Record<string, string>;
    chargement: number;
    sorties: { outil: string; ms: number; sortie: { resultats: { cle: string }[] } }[];
  };
  console.log(`arm64 process: arch ${rapport.arch}, Node ${rapport.node}, sharp ${rapport.sharp.sharp} / libvips ${rapport.sharp.vips}; bundle import ${rapport.chargement} ms; total ${((Date.now() - t0) / 1000).toFixed(0)} s under emulation`);
  if (rapport.arch !== 'arm64') {
    console.log('FAILED: the handler did not run on arm64');
    echecs++;
  }

  // 5. What it wrote: the input's dimensions, a valid C2PA manifest, for every tool.
  for (const { outil: o, ms, sortie } of rapport.sorties) {
    const cle = sortie.resultats[0]?.cle;
    const { Body } = await clientS3.send(new GetObjectCommand({ Bucket: bucket, Key: cle }));
    const octets = Buffer.from(await Body!.transformToByteArray());
    const { width, height, format } = await sharp(octets).metadata();
    const c2pa = await verifierC2pa(octets, 'jpeg', pki.autorite);
    const bon = width === 4000 && height === 3000 && format === 'jpeg' && c2pa.valide;
    if (!bon) echecs++;
    console.log(`${bon ? 'ok  ' : 'FAIL'} ${o.padEnd(11)} ${String(ms).padStart(6)} ms  ${width}×${height} ${format}, ${(octets.length / 2 ** 20).toFixed(1)} MB, C2PA ${c2pa.valide ? 'valid' : c2pa.erreurs.join('; ')}`);
  }
} finally {
  for (const arret of arrets.reverse()) await arret().catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
}
console.log(echecs === 0 ? `${OUTILS.length} passed, 0 failed` : `${OUTILS.length - echecs} passed, ${echecs} failed`);
process.exit(echecs === 0 ? 0 : 1);
