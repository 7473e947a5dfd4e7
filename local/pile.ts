/**
 * The whole service on one machine: DynamoDB Local, the local S3, the local Step Functions running the
 * real ASL, the local gateway and file server — all calling the same handler modules that Lambda runs.
 * `npm start` and the integration tests both build it here.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientDocument } from '../lambdas/core/infra/client-dynamodb';
import { cleDerivee, type Dependances } from '../lambdas/core/infra/dependances';
import { creerSignataire } from '../lambdas/core/infra/liens';
import { verificateurSessions } from '../lambdas/core/infra/sessions';
import { creerTelechargeur } from '../lambdas/core/infra/telechargement';
import { creerPosteur, type OptionsEnvoi } from '../lambdas/core/infra/envoi-webhook';
import { CONCURRENCE_MAX_LIVREUR, fileSqs } from '../lambdas/core/infra/file-webhooks';
import type { SQSEvent } from 'aws-lambda';
import type { HandlerHttp } from '../lambdas/http/adaptateur';
import { ROUTES } from '../lambdas/http/routes';
import { creerMoteurLocal } from '../lambdas/moteurs/local/index';
import { creerPkiTest, type PkiTest } from '../lambdas/moteurs/c2pa/certificats';
import { creerMarqueur } from '../lambdas/moteurs/c2pa/marquage';
import type { Detecteur } from '../lambdas/moteurs/commun/detection';
import type { Moteur } from '../lambdas/moteurs/commun/moteur';
import type { DependancesPipeline } from '../lambdas/pipeline/dependances-pipeline';
import type { SignerLien } from '../lambdas/core/modele/enregistrements';
import { balayer, type BilanBalayage } from '../lambdas/core/domaine/balayage';
import { journal } from '../lambdas/core/infra/journal';
import { clientDynamoLocal, creerTable, demarrerDynamo, identifiantsLocaux } from './dynamodb';
import { CHEMIN_FICHIERS, servirFichiers } from './fichiers';
import { enteteHote, hoteAccepte, hoteCourant, hotesLocaux, pendant } from './hotes';
import { dependancesEnregistrees, type EnregistreurIam } from './enregistreur-iam';
import { demarrerCognito, type CodeEnvoye, type CognitoLocal } from './cognito';
import { demarrerPasserelle } from './passerelle';
import { servirSite } from './site';
import { clientS3Local, demarrerS3, objetsLocaux } from './s3';
import { demarrerStepFunctions, type HandlerTache, type InjecteurPannes, type StepFunctionsLocal } from './stepfunctions';
import { demarrerSqs, type SqsLocal } from './sqs';

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

/**
 * The C2PA signing key and a test chain, made once per data folder: results made locally are signed
 * and validate, and their certificate says it is a local test one (not on the C2PA trust list).
 */
const cleC2pa = async (dossier: string): Promise<PkiTest> => {
  const fichier = join(dossier, 'c2pa', 'cle.json');
  if (existsSync(fichier)) return JSON.parse(readFileSync(fichier, 'utf8')) as PkiTest;
  mkdirSync(join(dossier, 'c2pa'), { recursive: true });
  const pki = await creerPkiTest('Retouche local test (not trusted)');
  writeFileSync(fichier, JSON.stringify(pki), { mode: 0o600 });
  return pki;
};

/** The key pair of the links, made once per data folder, like the one CloudFront's key group holds. */
const clesLiens = (dossier: string): { id: string; privee: string; publique: string } => {
  const chemin = join(dossier, 'liens');
  const fichier = join(chemin, 'cle.json');
  if (existsSync(fichier)) return JSON.parse(readFileSync(fichier, 'utf8'));
  mkdirSync(chemin, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cles = {
    id: `KLOCAL${randomBytes(6).toString('hex').toUpperCase()}`,
    privee: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publique: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
  writeFileSync(fichier, JSON.stringify(cles), { mode: 0o600 });
  return cles;
};

const importerHttp = async (fonction: string, deps: () => Promise<Dependances>): Promise<HandlerHttp> => {
  const module = (await import(`../lambdas/http/${fonction}.ts`)) as { creer: (deps: () => Promise<Dependances>) => HandlerHttp };
  return module.creer(deps);
};

/**
 * A handler run with its request's host known to the link signer (local/hotes.ts), when that host is
 * one of the stack's own: the studio opened at 127.0.0.1 gets its result links on 127.0.0.1.
 */
const avecHote =
  (handler: HandlerHttp, hotes: () => readonly string[]): HandlerHttp =>
  (event, contexte) =>
    pendant(hoteAccepte(enteteHote(event.headers), hotes()), () => handler(event, contexte));

export const demarrerPile = async (config: ConfigPile): Promise<Pile> => {
  mkdirSync(config.dossier, { recursive: true });
  const arrets: (() => Promise<void>)[] = [];
  const arreter = async () => {
    for (const arret of arrets.reverse()) await arret().catch(() => undefined);
    arrets.length = 0;
  };
  try {
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

    const cognito = config.sessions ? await demarrerCognito({ dossier: config.dossier, ...config.sessions }) : undefined;
    if (cognito) arrets.push(cognito.arreter);

    const horloge = config.horloge ?? (() => new Date());
    const cles = clesLiens(config.dossier);
    const pki = await cleC2pa(config.dossier);
    // The gateway's port is needed for the links before it starts: take it first.
    const passerelleTemporaire = config.port;
    let deps!: DependancesPipeline;
    const fournir = async () => deps;
    // Without a recorder every function shares `deps`; with one, each gets its own recorded clients.
    const parFonction = new Map<string, DependancesPipeline>();
    const depsDe = (fonction: string): DependancesPipeline => {
      const { enregistreur } = config;
      if (!enregistreur) return deps;
      let d = parFonction.get(fonction);
      if (!d) {
        d = dependancesEnregistrees(
          deps,
          fonction,
          {
            dynamo: () => clientDynamoLocal(dynamo.endpoint),
            s3: () => clientS3Local(s3.endpoint),
            objets: () => objetsLocaux(s3.endpoint, bucket),
            sfn: () => new SFNClient({ endpoint: stepFunctions.endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 2 }),
            fileWebhooks: () => fileSqs(clientSqs(), urlFileWebhooks),
          },
          enregistreur,
        );
        parFonction.set(fonction, d);
      }
      return d;
    };
    const fournirPour = (fonction: string) => (config.enregistreur ? async () => depsDe(fonction) : fournir);

    const pipeline = async (module: string, etat: string) =>
      ((await import(`../lambdas/pipeline/${module}.ts`)) as { creer: (d: () => Promise<DependancesPipeline>) => HandlerTache }).creer(
        fournirPour(`Flux/${etat}`),
      );
    const stepFunctions = await demarrerStepFunctions({
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
    arrets.push(stepFunctions.arreter);

    const handlers: Record<string, HandlerHttp> = {};
    // The construct's name in lib/api.ts (only loaded when recording: it brings aws-cdk-lib).
    const nomConstruct = config.enregistreur ? (await import('../lib/api')).nomConstruct : (f: string) => f;
    // The hosts of the links, known once the gateway has its port (no request comes before).
    let hotes: readonly string[] = [];
    for (const fonction of [...new Set([...ROUTES.map((r) => r.fonction), 'introuvable'])])
      handlers[fonction] = avecHote(await importerHttp(fonction, fournirPour(`Api/${nomConstruct(fonction)}`)), () => hotes);

    let fichiers: ReturnType<typeof servirFichiers> | undefined;
    if (config.site && !cognito) throw new Error('the web site needs the user pool: ask for sessions too');
    const site =
      config.site && cognito
        ? servirSite({
            ...config.site,
            configuration: { api: '/api/v1', cognito: { region: 'us-east-1', client: cognito.client, endpoint: cognito.endpoint } },
            // The upload URLs are presigned on the front of the local S3 (objetsLocaux below): the studio PUTs there.
            televersements: s3.endpoint,
          })
        : undefined;
    const passerelle = await demarrerPasserelle({
      port: passerelleTemporaire,
      handlers,
      autres: async (requete, reponse) => (fichiers ? await fichiers(requete, reponse) : false) || (site ? await site(requete, reponse) : false),
    });
    arrets.push(passerelle.arreter);
    hotes = hotesLocaux(passerelle.port);
    // One signer per host the stack answers on; a request by another Host header (or none: the
    // pipeline, webhook deliveries) gets links on the first, localhost.
    const signataires = new Map(
      hotes.map((hote) => [hote, creerSignataire({ base: `http://${hote}${CHEMIN_FICHIERS}`, idCle: cles.id, clePrivee: cles.privee }, horloge)]),
    );
    const signerParDefaut = signataires.get(hotes[0]!)!;
    const signer: SignerLien = (cle, telechargement) => (signataires.get(hoteCourant() ?? '') ?? signerParDefaut)(cle, telechargement);
    const clientS3 = clientS3Local(s3.endpoint);
    fichiers = servirFichiers({ s3: clientS3, bucket, hotes, clesPubliques: { [cles.id]: cles.publique }, horloge });

    const boucleLocale = config.webhooks?.boucleLocale ?? process.env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK === '1';
    const moteurLocal = creerMoteurLocal({ delaiMs: config.delaiMoteurMs ?? 0, ...(config.detecteur ? { detecteur: config.detecteur } : {}) });
    deps = {
      ddb: clientDocument(clientDynamo),
      table,
      s3: clientS3,
      objets: objetsLocaux(s3.endpoint, bucket),
      bucket,
      sfn: new SFNClient({ endpoint: stepFunctions.endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 2 }),
      machine: stepFunctions.arnMachine,
      signer,
      curseurs: cleDerivee(cles.privee, 'curseurs'),
      cleWebhooks: cleDerivee(cles.privee, 'webhooks'),
      fileWebhooks: fileSqs(clientSqs(), urlFileWebhooks),
      posterWebhook: creerPosteur({ boucleLocale: boucleLocale, ...(config.webhooks?.agentHttps ? { agentHttps: config.webhooks.agentHttps } : {}) }),
      ...(boucleLocale ? { webhooksBoucleLocale: true } : {}),
      pileLocale: true,
      ...(config.webhooks?.calendrierSecondes ? { calendrierWebhooks: config.webhooks.calendrierSecondes } : {}),
      ...(cognito ? { sessions: verificateurSessions({ emetteur: cognito.emetteur, client: cognito.client, jwks: cognito.jwks }) } : {}),
      horloge,
      moteur: config.moteur ?? moteurLocal,
      // Test keys' jobs: the local preview engine, whichever engine the stack was given.
      moteurTest: moteurLocal,
      c2pa: creerMarqueur(pki),
      telecharger: config.telecharger ?? creerTelechargeur(),
    };

    // The delivery function consumes the queue, as its SQS event source does on AWS (lib/webhooks.ts).
    const livreur = (await import('../lambdas/pipeline/livreur')) as { creer: (d: () => Promise<DependancesPipeline>) => (e: SQSEvent) => Promise<unknown> };
    sqs.consommer(FILE_WEBHOOKS, livreur.creer(fournirPour('Webhooks/Livreur')), { tailleLot: 10, concurrenceMax: CONCURRENCE_MAX_LIVREUR });

    // Locally the sweeper runs at start (it finishes what a stopped or killed stack left) and then
    // every few seconds: work left behind ends soon after the next start, not minutes later.
    const ageMinimumMs = config.ageMinimumBalayageMs ?? AGE_MINIMUM_LOCAL_MS;
    let balayageEnCours: Promise<BilanBalayage> | undefined;
    const unBalayage = () => (balayageEnCours ??= balayer(depsDe('Flux/Balayeur'), { ageMinimumMs }).finally(() => (balayageEnCours = undefined)));
    const intervalle = config.intervalleBalayageMs ?? INTERVALLE_BALAYAGE_LOCAL_MS;
    if (intervalle > 0) {
      const balayerEnFond = () => void unBalayage().catch((erreur: unknown) => journal.error('local sweeper failed; it runs again shortly', { erreur }));
      balayerEnFond();
      const minuterie = setInterval(balayerEnFond, intervalle);
      minuterie.unref();
      arrets.push(async () => {
        clearInterval(minuterie);
        await balayageEnCours?.catch(() => undefined);
      });
    }
    const urlBase = `http://localhost:${passerelle.port}/api/v1`;
    writeFileSync(
      join(config.dossier, FICHIER_PILE),
      JSON.stringify(
        {
          urlBase,
          dynamodb: dynamo.endpoint,
          table,
          s3: s3.endpoint,
          bucket,
          // The webhook delivery queue, for the admin CLI's webhook commands (its key: liens/cle.json of this folder).
          sqs: sqs.endpoint,
          fileWebhooks: urlFileWebhooks,
          ...(cognito ? { cognito: { endpoint: cognito.endpoint, pool: cognito.pool, client: cognito.client } } : {}),
          pid: process.pid,
        },
        null,
        2,
      ),
    );
    arrets.push(async () => writeFileSync(join(config.dossier, FICHIER_PILE), JSON.stringify({ arretee: true })));
    return {
      urlBase,
      port: passerelle.port,
      deps,
      stepFunctions,
      autoriteC2pa: pki.autorite,
      ...(cognito ? { cognito } : {}),
      sqs,
      balayer: unBalayage,
      attendreInactivite: stepFunctions.attendreInactivite,
      arreter,
    };
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
};
