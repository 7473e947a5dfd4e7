/**
 * The whole service on one machine: DynamoDB Local, the local S3, the local Step Functions running the
 * real ASL, the local gateway and file server — all calling the same handler modules that Lambda runs.
 * `npm start` and the integration tests both build it here. The HTTP side is in pile-http.ts, the
 * functions' dependencies in pile-dependances.ts, the sweeper's timer in pile-balayeur.ts and the
 * data folder's keys in pile-cles.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { S3Client } from '@aws-sdk/client-s3';
import { clientDocument } from '../lambdas/core/infra/client-dynamodb';
import { cleDerivee } from '../lambdas/core/infra/dependances';
import { verificateurSessions } from '../lambdas/core/infra/sessions';
import { creerTelechargeur } from '../lambdas/core/infra/telechargement';
import { creerPosteur, type OptionsEnvoi } from '../lambdas/core/infra/envoi-webhook';
import { CONCURRENCE_MAX_LIVREUR, fileSqs } from '../lambdas/core/infra/file-webhooks';
import type { SQSEvent } from 'aws-lambda';
import { creerMoteurLocal } from '../lambdas/moteurs/local/index';
import type { PkiTest } from '../lambdas/moteurs/c2pa/certificats';
import { creerMarqueur } from '../lambdas/moteurs/c2pa/marquage';
import type { Detecteur } from '../lambdas/moteurs/commun/detection';
import type { Moteur } from '../lambdas/moteurs/commun/moteur';
import type { DependancesPipeline } from '../lambdas/pipeline/dependances-pipeline';
import type { SignerLien } from '../lambdas/core/modele/enregistrements';
import type { BilanBalayage } from '../lambdas/core/domaine/balayage';
import { clientDynamoLocal, creerTable, demarrerDynamo, identifiantsLocaux } from './dynamodb';
import type { EnregistreurIam } from './enregistreur-iam';
import { demarrerCognito, type CodeEnvoye, type CognitoLocal } from './cognito';
import { clientS3Local, demarrerS3, objetsLocaux } from './s3';
import { demarrerStepFunctions, type HandlerTache, type InjecteurPannes, type StepFunctionsLocal } from './stepfunctions';
import { demarrerSqs, type SqsLocal } from './sqs';
import { demarrerBalayeur } from './pile-balayeur';
import { cleC2pa, clesLiens } from './pile-cles';
import { fournisseurDependances, type FournisseurDependances } from './pile-dependances';
import { demarrerHttp } from './pile-http';

const RACINE = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const FICHIER_ASL = join(RACINE, 'statemachines', 'travail.asl.json');
/** The local sweeper: every 2 s, for work at least 3 s old (a live request starts its jobs well before). */
export const INTERVALLE_BALAYAGE_LOCAL_MS = 2_000;
export const AGE_MINIMUM_LOCAL_MS = 3_000;
/** The running stack's addresses, for the admin CLI. */
export const FICHIER_PILE = 'pile.json';
/** The webhook delivery queue and its dead-letter queue, as lib/webhooks.ts makes them on AWS (5 receives). */
export const FILE_WEBHOOKS = 'retouche-webhooks';
export const FILE_WEBHOOKS_ECHECS = 'retouche-webhooks-echecs';

export interface ConfigPile {
  /** 0: any free port. */
  port: number;
  dossier: string;
  /** An already running DynamoDB Local (tests share one); otherwise one is started, persisting under `dossier`. */
  dynamoEndpoint?: string;
  table?: string;
  bucket?: string;
  moteur?: Moteur;
  delaiMoteurMs?: number;
  /** The local engine's object detector; default its trained model (tests on drawn images give the colour rules). */
  detecteur?: Detecteur;
  telecharger?: (url: string) => Promise<Buffer>;
  horloge?: () => Date;
  echecDemarrage?: (nom: string) => boolean;
  /** Fault injection around the state machine's tasks (tests). */
  panne?: InjecteurPannes;
  pauseReessaiMs?: number;
  /** How often the sweeper runs (0: never, tests call `balayer` themselves). It also runs once at start. */
  intervalleBalayageMs?: number;
  /** Work younger than this is left alone by the sweeper. */
  ageMinimumBalayageMs?: number;
  /**
   * Records every AWS call of each function (its construct path in lib/: 'Api/TravauxCreer',
   * 'Flux/Outil', …), each with its own SDK clients (tests: test/integration/iam.test.ts).
   */
  enregistreur?: EnregistreurIam;
  /**
   * The web site's user pool (local/cognito.ts): started when asked (`npm start`, the tests of the web
   * routes); without it, only API keys authenticate. `surCode` gets each code Cognito would email.
   */
  sessions?: { surCode?: (code: CodeEnvoye) => void };
  /** Serves the web site (local/site.ts) at `/`, from this build folder (default site/dist); needs `sessions`. */
  site?: { dossier?: string };
  /**
   * Webhook deliveries: to http://127.0.0.1 too (`boucleLocale`; default RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1
   * in the environment, never set by npm start), a shorter schedule of retries (tests), a test CA's agent.
   */
  webhooks?: { boucleLocale?: boolean; calendrierSecondes?: readonly number[]; agentHttps?: OptionsEnvoi['agentHttps'] };
}

export interface Pile {
  urlBase: string;
  port: number;
  deps: DependancesPipeline;
  stepFunctions: StepFunctionsLocal;
  /** The test CA that issued this data folder's C2PA signing certificate: the trust anchor to verify results. */
  autoriteC2pa: string;
  /** The local user pool, when `sessions` was asked. */
  cognito?: CognitoLocal;
  /** The local SQS: the webhook delivery queue (FILE_WEBHOOKS) and its dead-letter queue. */
  sqs: SqsLocal;
  /** One sweep now (the same one the schedule runs). */
  balayer(): Promise<BilanBalayage>;
  attendreInactivite(): Promise<void>;
  arreter(): Promise<void>;
}

type Arrets = (() => Promise<void>)[];

/** DynamoDB (started unless the config names one), the local S3 and SQS with the webhook queues; each stop pushed on `arrets`. */
const demarrerStockage = async (config: ConfigPile, arrets: Arrets) => {
  if (!config.dynamoEndpoint) mkdirSync(join(config.dossier, 'dynamodb'), { recursive: true });
  const dynamo = config.dynamoEndpoint
    ? { endpoint: config.dynamoEndpoint, arreter: async () => undefined }
    : await demarrerDynamo({ dossier: join(config.dossier, 'dynamodb') });
  arrets.push(dynamo.arreter);
  const table = config.table ?? 'retouche';
  const bucket = config.bucket ?? 'retouche';
  const clientDynamo = clientDynamoLocal(dynamo.endpoint);
  await creerTable(clientDynamo, table);

  const s3 = await demarrerS3({ dossier: join(config.dossier, 's3'), seaux: [bucket] });
  arrets.push(s3.arreter);
  // Messages live in memory: those a stopped stack held are sent again by the sweeper (from the deliveries' records).
  const sqs = await demarrerSqs();
  arrets.push(sqs.arreter);
  sqs.creerFile(FILE_WEBHOOKS_ECHECS);
  const { url: urlFileWebhooks } = sqs.creerFile(FILE_WEBHOOKS, { maxReceptions: 5, fileEchec: FILE_WEBHOOKS_ECHECS });
  const clientSqs = () => new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 2 });
  return { dynamo, clientDynamo, table, bucket, s3, sqs, urlFileWebhooks, clientSqs };
};

type Stockage = Awaited<ReturnType<typeof demarrerStockage>>;

/** The state machine, its tasks run by the pipeline's handler modules. */
const demarrerFlux = async (config: ConfigPile, fournisseur: FournisseurDependances) => {
  const pipeline = async (module: string, etat: string) =>
    ((await import(`../lambdas/pipeline/${module}.ts`)) as { creer: (d: () => Promise<DependancesPipeline>) => HandlerTache }).creer(
      fournisseur.fournirPour(`Flux/${etat}`),
    );
  return demarrerStepFunctions({
    definition: FICHIER_ASL,
    nomMachine: 'retouche-travail',
    handlers: {
      Preparer: await pipeline('preparer', 'Preparer'),
      Outil: await pipeline('outil', 'Outil'),
      Enregistrer: await pipeline('enregistrer', 'Enregistrer'),
      Rembourser: await pipeline('rembourser', 'Rembourser'),
      FinaliserLot: await pipeline('finaliser-lot', 'FinaliserLot'),
    },
    pauseReessaiMs: config.pauseReessaiMs,
    echecDemarrage: config.echecDemarrage,
    panne: config.panne,
  });
};

/** What every function is given, as the environment gives it on AWS (the recorder's clients beside it: pile-dependances.ts). */
const dependances = (
  config: ConfigPile,
  s: Stockage,
  o: {
    stepFunctions: StepFunctionsLocal;
    cognito?: CognitoLocal;
    signer: SignerLien;
    clientS3: S3Client;
    clePrivee: string;
    pki: PkiTest;
    horloge: () => Date;
  },
): DependancesPipeline => {
  const boucleLocale = config.webhooks?.boucleLocale ?? process.env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK === '1';
  const moteurLocal = creerMoteurLocal({ delaiMs: config.delaiMoteurMs ?? 0, ...(config.detecteur ? { detecteur: config.detecteur } : {}) });
  const { cognito } = o;
  return {
    ddb: clientDocument(s.clientDynamo),
    table: s.table,
    s3: o.clientS3,
    objets: objetsLocaux(s.s3.endpoint, s.bucket),
    bucket: s.bucket,
    sfn: new SFNClient({ endpoint: o.stepFunctions.endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 2 }),
    machine: o.stepFunctions.arnMachine,
    signer: o.signer,
    curseurs: cleDerivee(o.clePrivee, 'curseurs'),
    cleWebhooks: cleDerivee(o.clePrivee, 'webhooks'),
    fileWebhooks: fileSqs(s.clientSqs(), s.urlFileWebhooks),
    posterWebhook: creerPosteur({ boucleLocale: boucleLocale, ...(config.webhooks?.agentHttps ? { agentHttps: config.webhooks.agentHttps } : {}) }),
    ...(boucleLocale ? { webhooksBoucleLocale: true } : {}),
    pileLocale: true,
    ...(config.webhooks?.calendrierSecondes ? { calendrierWebhooks: config.webhooks.calendrierSecondes } : {}),
    ...(cognito ? { sessions: verificateurSessions({ emetteur: cognito.emetteur, client: cognito.client, jwks: cognito.jwks }) } : {}),
    horloge: o.horloge,
    moteur: config.moteur ?? moteurLocal,
    // Test keys' jobs: the local preview engine, whichever engine the stack was given.
    moteurTest: moteurLocal,
    c2pa: creerMarqueur(o.pki),
    telecharger: config.telecharger ?? creerTelechargeur(),
  };
};

/** The running stack's addresses (FICHIER_PILE), for the admin CLI; marked stopped by what is pushed on `arrets`. */
const ecrireFichierPile = (config: ConfigPile, s: Stockage, urlBase: string, cognito: CognitoLocal | undefined, arrets: Arrets) => {
  writeFileSync(
    join(config.dossier, FICHIER_PILE),
    JSON.stringify(
      {
        urlBase,
        dynamodb: s.dynamo.endpoint,
        table: s.table,
        s3: s.s3.endpoint,
        bucket: s.bucket,
        // The webhook delivery queue, for the admin CLI's webhook commands (its key: liens/cle.json of this folder).
        sqs: s.sqs.endpoint,
        fileWebhooks: s.urlFileWebhooks,
        ...(cognito ? { cognito: { endpoint: cognito.endpoint, pool: cognito.pool, client: cognito.client } } : {}),
        pid: process.pid,
      },
      null,
      2,
    ),
  );
  arrets.push(async () => writeFileSync(join(config.dossier, FICHIER_PILE), JSON.stringify({ arretee: true })));
};

export const demarrerPile = async (config: ConfigPile): Promise<Pile> => {
  mkdirSync(config.dossier, { recursive: true });
  const arrets: Arrets = [];
  const arreter = async () => {
    for (const arret of arrets.reverse()) await arret().catch(() => undefined);
    arrets.length = 0;
  };
  try {
    const s = await demarrerStockage(config, arrets);
    const cognito = config.sessions ? await demarrerCognito({ dossier: config.dossier, ...config.sessions }) : undefined;
    if (cognito) arrets.push(cognito.arreter);

    const horloge = config.horloge ?? (() => new Date());
    const cles = clesLiens(config.dossier);
    const pki = await cleC2pa(config.dossier);
    // Without a recorder every function shares `deps`; with one, each gets its own recorded clients.
    const fournisseur = fournisseurDependances(config.enregistreur);
    const stepFunctions = await demarrerFlux(config, fournisseur);
    arrets.push(stepFunctions.arreter);

    const http = await demarrerHttp(
      {
        port: config.port,
        site: config.site,
        enregistrement: Boolean(config.enregistreur),
        fournirPour: fournisseur.fournirPour,
        s3Endpoint: s.s3.endpoint,
        bucket: s.bucket,
        cognito,
        cles,
        horloge,
      },
      arrets,
    );
    const deps = dependances(config, s, { stepFunctions, cognito, signer: http.signer, clientS3: http.clientS3, clePrivee: cles.privee, pki, horloge });
    fournisseur.definir(deps, {
      dynamo: () => clientDynamoLocal(s.dynamo.endpoint),
      s3: () => clientS3Local(s.s3.endpoint),
      objets: () => objetsLocaux(s.s3.endpoint, s.bucket),
      sfn: () => new SFNClient({ endpoint: stepFunctions.endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 2 }),
      fileWebhooks: () => fileSqs(s.clientSqs(), s.urlFileWebhooks),
    });

    // The delivery function consumes the queue, as its SQS event source does on AWS (lib/webhooks.ts).
    const livreur = (await import('../lambdas/pipeline/livreur')) as { creer: (d: () => Promise<DependancesPipeline>) => (e: SQSEvent) => Promise<unknown> };
    s.sqs.consommer(FILE_WEBHOOKS, livreur.creer(fournisseur.fournirPour('Webhooks/Livreur')), { tailleLot: 10, concurrenceMax: CONCURRENCE_MAX_LIVREUR });
    const balayer = demarrerBalayeur(
      () => fournisseur.depsDe('Flux/Balayeur'),
      { ageMinimumMs: config.ageMinimumBalayageMs ?? AGE_MINIMUM_LOCAL_MS, intervalleMs: config.intervalleBalayageMs ?? INTERVALLE_BALAYAGE_LOCAL_MS },
      arrets,
    );
    const urlBase = `http://localhost:${http.port}/api/v1`;
    ecrireFichierPile(config, s, urlBase, cognito, arrets);
    return {
      urlBase,
      port: http.port,
      deps,
      stepFunctions,
      autoriteC2pa: pki.autorite,
      ...(cognito ? { cognito } : {}),
      sqs: s.sqs,
      balayer,
      attendreInactivite: stepFunctions.attendreInactivite,
      arreter,
    };
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
};
