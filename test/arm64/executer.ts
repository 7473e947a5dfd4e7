/**
 * The tool function as Lambda runs it: its bundled asset from the synthesized template (arm64 sharp
 * and libvips, the c2pa WebAssembly beside it), its handler, its environment as the template sets it,
 * on an arm64 Node under qemu — one run of every image tool, against the local stand-ins: ciel on a
 * 12 MP photo, the others on 2 MP (TAILLES below). Slow under emulation, so it is its own script
 * (`npm run test:arm64`, run by CI), not part of `npm test`. `npm run test:arm64 -- --pleine-taille`
 * runs every tool at 12 MP, as before: each tool's time under emulation at full size.
 *
 * What is not the template's: the endpoints of the stand-ins (AWS_ENDPOINT_URL_*), path-style S3
 * (RETOUCHE_S3_CHEMIN, for the local S3) and dummy credentials; RETOUCHE_MOTEUR is `local` because the
 * stack is synthesized with `-c moteur=local` (no Bedrock here).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { clientDocument } from '../../lambdas/core/infra/client-dynamodb';
import { resultatsDuTravail } from '../../lambdas/core/modele/cles-s3';
import type { FormatImage } from '../../lambdas/core/modele/images';
import { cleItem as cleTravail } from '../../lambdas/core/depots/travaux';
import { creerPkiTest } from '../../lambdas/moteurs/c2pa/certificats';
import { clientDynamoLocal, creerTable, demarrerDynamo } from '../../local/dynamodb';
import { cheminAsset, demarrerSecrets, resoudre, synthetiser } from '../../local/pile-template';
import { clientS3Local, demarrerS3, identifiantsS3Local } from '../../local/s3';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { photoGrande } from '../support/photo';
import { photo as photoReelle } from '../support/verite';
import { rendreScenes } from '../../docs/exemples/scenes';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const OUTILS = ['vider', 'staging', 'renovation', 'saison', 'ciel'] as const;
/**
 * What arm64 can break is the same at any size: the bundle, its arm64 sharp and libvips, the
 * WebAssembly of NanoDet, BlazeFace and c2pa, the handler and its environment. What size adds is the
 * largest buffers, so the memory-heaviest tool runs at 12 MP: ciel, whose light and line correction,
 * sky and face blur go over the whole frame (peak RSS of the local engine at 12 MP, on x64: ciel with
 * its face blur 564 MB, vider 518, staging 512, renovation 507, saison 487). The others run at 2 MP,
 * in less than half their time at 12 MP under emulation; `--pleine-taille` gives them 12 MP too.
 */
const PLEINE_TAILLE = process.argv.includes('--pleine-taille');
const GRANDE = { largeur: 4000, hauteur: 3000 } as const;
const REDUITE = { largeur: 1600, hauteur: 1200 } as const;
const TAILLES: Record<(typeof OUTILS)[number], { largeur: number; hauteur: number }> = {
  vider: PLEINE_TAILLE ? GRANDE : REDUITE,
  staging: PLEINE_TAILLE ? GRANDE : REDUITE,
  renovation: PLEINE_TAILLE ? GRANDE : REDUITE,
  saison: PLEINE_TAILLE ? GRANDE : REDUITE,
  ciel: GRANDE,
};
const idArm64 = (i: number) => `0000000${i}-a64a-4a64-8a64-000000000000`;

const nodeArm64 = execFileSync('bash', [join(RACINE, 'test/arm64/prerequis.sh')], { encoding: 'utf8' })
  .trim()
  .split('\n')
  .pop()!;
const temp = mkdtempSync(join(tmpdir(), 'retouche-arm64-'));
const arrets: (() => Promise<unknown>)[] = [];
let echecs = 0;

try {
  // 1. The template and the tool function's asset, synthesized as for a deploy (real bundling).
  console.log('synthesizing the stack (-c moteur=local -c liens=api)…');
  const synthese = await synthetiser(join(temp, 'cdk.out'), { stage: 'arm64', moteur: 'local', liens: 'api' });
  const [, outil] = Object.entries(synthese.template.Resources).find(
    ([, r]) => r.Type === 'AWS::Lambda::Function' && (r as { Metadata?: Record<string, string> }).Metadata?.['aws:cdk:path']?.endsWith('/Flux/Outil/Resource'),
  )!;
  const proprietes = outil.Properties as {
    Handler: string;
    Architectures: string[];
    Code: { S3Key: string };
    Environment: { Variables: Record<string, unknown> };
  };
  const actif = cheminAsset(synthese, proprietes.Code.S3Key);
  const [fichier, exportation] = proprietes.Handler.split('.') as [string, string];
  console.log(`tool function: ${proprietes.Architectures.join()} asset ${actif}, handler ${proprietes.Handler}`);

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
  // The one secret the function may read, holding what the deploy-time generator would write.
  const secrets = await demarrerSecrets([secret]);
  arrets.push(secrets.arreter);
  secrets.secrets.set(secret, { courant: JSON.stringify({ clePrivee: pki.clePrivee, chaine: pki.chaine }) });

  const parType = (type: string) =>
    new Set(
      Object.entries(synthese.template.Resources)
        .filter(([, r]) => r.Type === type)
        .map(([id]) => id),
    );
  const [tables, seaux, coffres] = [parType('AWS::DynamoDB::Table'), parType('AWS::S3::Bucket'), parType('AWS::SecretsManager::Secret')];
  const environnement = resoudre(proprietes.Environment.Variables, {
    ref: (id) => {
      if (tables.has(id)) return table;
      if (seaux.has(id)) return bucket;
      if (coffres.has(id)) return secret;
      throw new Error(`cannot resolve Ref ${id} for the local stand-ins`);
    },
    // Only the key digest refers to an attribute: any value starts the function the same way.
    getAtt: (id, attribut) => `${id}.${attribut}`,
  }) as Record<string, string>;

  // 3. One job per tool, each with its photo (TAILLES) stored where Preparer would have put it: the house for the
  // outdoor tools; the drawn living room of docs/engines.md for vider, whose trained detector (NanoDet,
  // WebAssembly) must find its sofa and whose fill must pass the measure (no real room of test/photos does:
  // docs/engines.md, "vider on real photographs"); a real empty room (enlarged) for staging, on arm64 too.
  const grande = await photoGrande();
  const salon = (await rendreScenes()).salon;
  const photoDe = (o: (typeof OUTILS)[number]): Promise<Buffer> => {
    const { largeur, hauteur } = TAILLES[o];
    if (o === 'vider') return sharp(salon).resize(largeur, hauteur, { fit: 'fill' }).jpeg({ quality: 92 }).toBuffer();
    if (o === 'staging')
      return sharp(photoReelle('piece-vide_polyhaven-old-hall.jpg')).resize(largeur, hauteur, { fit: 'fill' }).jpeg({ quality: 92 }).toBuffer();
    return sharp(grande).resize(largeur, hauteur).jpeg({ quality: 92 }).toBuffer();
  };
  const ddb = clientDocument(clientDynamoLocal(dynamo.endpoint));
  const compte = 'compte-arm64';
  const evenements = [];
  for (const [i, o] of OUTILS.entries()) {
    const id = idArm64(i);
    const entree = `entrees/${compte}/${id}/0.jpg`;
    const photo = await photoDe(o);
    await clientS3.send(new PutObjectCommand({ Bucket: bucket, Key: entree, Body: photo, ContentType: 'image/jpeg' }));
    await ddb.send(
      new PutCommand({
        TableName: table,
        Item: {
          ...cleTravail(id),
          type: 'travail',
          id,
          compte,
          outil: o,
          statut: 'en_cours',
          cout: 1,
          // One job asks for faces to be blurred: BlazeFace (TensorFlow.js on WebAssembly) runs on arm64 too.
          valeurs: o === 'ciel' ? { floutage: 'faces' } : {},
          lot: null,
          index: i,
          nom: `photo-${o}.jpg`,
          source: 'api',
          cree_le: new Date().toISOString(),
          commence_le: null,
          termine_le: null,
          entrees: [{ type: 's3', cle: entree }],
          resultats: [],
          texte: null,
          erreur: null,
          rembourse: false,
          graine: null,
        },
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
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const script = join(temp, 'appel.mjs');
  writeFileSync(script, appel);
  const tailles = OUTILS.map((o) => `${o} ${TAILLES[o].largeur}×${TAILLES[o].hauteur}`).join(', ');
  console.log(`running the handler on ${nodeArm64} under qemu-aarch64 (${tailles})…`);
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
    sorties: { outil: (typeof OUTILS)[number]; ms: number; sortie: { resultats: { format: FormatImage }[]; floutage?: unknown } }[];
  };
  console.log(
    `arm64 process: arch ${rapport.arch}, Node ${rapport.node}, sharp ${rapport.sharp.sharp} / libvips ${rapport.sharp.vips}; bundle import ${rapport.chargement} ms; total ${((Date.now() - t0) / 1000).toFixed(0)} s under emulation`,
  );
  if (rapport.arch !== 'arm64') {
    console.log('FAILED: the handler did not run on arm64');
    echecs++;
  }

  // 5. What it wrote: the input's dimensions, a valid C2PA manifest, for every tool.
  for (const [i, { outil: o, ms, sortie }] of rapport.sorties.entries()) {
    // Where the step wrote it: the key Enregistrer makes from the job record (the step hands over formats only).
    const [resultat] = resultatsDuTravail(
      { compte, id: idArm64(i), index: i, nom: `photo-${o}.jpg`, outil: o },
      sortie.resultats.map((r) => r.format),
    );
    const cle = resultat?.cle;
    const { Body } = await clientS3.send(new GetObjectCommand({ Bucket: bucket, Key: cle }));
    const octets = Buffer.from(await Body!.transformToByteArray());
    const { width, height, format } = await sharp(octets).metadata();
    const c2pa = await verifierC2pa(octets, 'jpeg', pki.autorite);
    // The house has no one in it: the face detector ran and found none, so the job says 0 and the manifest claims no blur.
    const floutageAttendu = o === 'ciel' ? { reglage: 'faces', visages: 0, plaques: 0 } : null;
    const floutageBon = JSON.stringify(sortie.floutage ?? null) === JSON.stringify(floutageAttendu);
    if (!floutageBon) console.log(`FAILED: ${o} floutage ${JSON.stringify(sortie.floutage)}`);
    const bon = width === TAILLES[o].largeur && height === TAILLES[o].hauteur && format === 'jpeg' && c2pa.valide && floutageBon;
    if (!bon) echecs++;
    console.log(
      `${bon ? 'ok  ' : 'FAIL'} ${o.padEnd(11)} ${String(ms).padStart(6)} ms  ${width}×${height} ${format}, ${(octets.length / 2 ** 20).toFixed(1)} MB, C2PA ${c2pa.valide ? 'valid' : c2pa.erreurs.join('; ')}`,
    );
  }
} finally {
  for (const arret of arrets.reverse()) await arret().catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
}
console.log(echecs === 0 ? `${OUTILS.length} passed, 0 failed` : `${OUTILS.length - echecs} passed, ${echecs} failed`);
process.exit(echecs === 0 ? 0 : 1);
