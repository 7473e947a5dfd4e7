/**
 * The synthesized template, run locally: what `cdk synth` wrote (the template, its assets manifest,
 * each function's bundled asset, the state machine's definition asset) is run against the local
 * stand-ins, not the handler modules of the source tree. Each AWS::Lambda::Function is loaded from its
 * asset with its `Handler`, in its own worker thread with its `Environment.Variables` as the template
 * sets them, references resolved to the stand-ins:
 *
 * - Ref of the table, the bucket, the state machine, a secret → the local table (created from the
 *   template's key schema and indexes), the s3rver bucket, the local machine's ARN, the local Secrets
 *   Manager's ARN of that secret;
 * - GetAtt of a custom resource (the link key, the C2PA key) → the `Data` its own deploy-time function
 *   answered when this module ran it (Create), as CloudFormation would, against the local Secrets
 *   Manager; GetAtt Arn of a function → its local ARN;
 * - the API's invoke URL (`https://<api>.execute-api.<region>.<suffix>/<stage>`) → the local gateway;
 * - Ref of a queue → its local URL; GetAtt Arn, QueueName, QueueUrl → the local queue's (local/sqs.ts,
 *   each queue named by its logical id, its RedrivePolicy's dead-letter queue and maxReceiveCount kept).
 *
 * Each AWS::Lambda::EventSourceMapping of a queue has the local SQS give that queue's messages to its
 * function's worker, in batches of its BatchSize, at most its ScalingConfig.MaximumConcurrency batches
 * at a time, and reads the function's batchItemFailures only when its FunctionResponseTypes says
 * ReportBatchItemFailures, as Lambda does.
 *
 * The stand-ins are reached through the SDK's standard variables (AWS_ENDPOINT_URL_DYNAMODB, _S3,
 * _SFN, _SECRETS_MANAGER, _SQS), a region, dummy credentials (s3rver's), and RETOUCHE_S3_CHEMIN=1
 * (path-style, which s3rver needs): added to each function's environment, never over a variable of
 * the template (that would hide a renamed one). The state machine is the template's definition
 * asset with its DefinitionSubstitutions applied; each Task's function ARN is run by that function's
 * worker. Routes come from the template's API methods (method, resource path → integration function).
 *
 * sharp: image functions' assets hold sharp installed for linux-arm64 (Lambda's platform), whose
 * native part cannot load on this machine. Those assets are COPIED and the host's prebuilt sharp
 * binary package of the same version is added to the copy; nothing else changes (sharp's JS, c2pa-wasm,
 * the bundle). The arm64 install itself is proven separately, under emulation.
 *
 * Here the run is composed; each part is a module of its own: template-synthese.ts (what synth wrote,
 * intrinsic functions), template-ressources.ts (the stateful stand-ins), template-resolveur.ts (what
 * references become), template-fonctions.ts (the workers, custom resources), template-machine.ts,
 * template-sqs.ts, template-api.ts, and secrets.ts (the local Secrets Manager).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BASE_CHEMIN } from '../lambdas/http/routes';
import { demarrerCognito, type CognitoLocal } from './cognito';
import type { FonctionWorker } from './fonction-worker';
import type { SqsLocal } from './sqs';
import type { StepFunctionsLocal } from './stepfunctions';
import { brancherRoutes, demarrerApi } from './template-api';
import { chargeurFonctions, creerRessourcesPersonnalisees, environnementLocal, type FonctionTemplate } from './template-fonctions';
import { demarrerMachine } from './template-machine';
import { demarrerRessources } from './template-ressources';
import { resolveurLocal, versLocal } from './template-resolveur';
import { brancherFiles, creerFiles } from './template-sqs';
import { parType, type Synthese, type Template } from './template-synthese';

// What tests, bench/ and test/arm64 import from here, where it lived before the split.
export { demarrerSecrets } from './secrets';
export type { FonctionTemplate } from './template-fonctions';
export { cheminAsset, lireSynthese, resoudre, routesDuTemplate, synthetiser } from './template-synthese';
export type { Resolveur, Ressource, Synthese, Template } from './template-synthese';

export interface PileTemplate {
  urlBase: string;
  table: string;
  dynamo: DynamoDBClient;
  fonctions: Record<string, FonctionTemplate>;
  workers: Record<string, FonctionWorker>;
  stepFunctions: StepFunctionsLocal;
  /** Route `fonction` (routes.ts) → logical id of the template's function for it. */
  routes: Record<string, string>;
  /** The local Secrets Manager's current value of a template secret (by logical id). */
  secret(id: string): string | undefined;
  /** The stand-in of the template's user pool. */
  cognito: CognitoLocal;
  /** The local SQS: the template's queues, each named by its logical id (`messages('Dlq')` reads a dead-letter queue). */
  sqs: SqsLocal;
  arreter(): Promise<void>;
}

export interface OptionsPileTemplate {
  synthese: Synthese;
  dynamoEndpoint: string;
  /** The template as read, or changed by a test (a renamed variable, a wrong handler). */
  template?: Template;
  pauseReessaiMs?: number;
  /** Extra environment for every function (e.g. POWERTOOLS_LOG_LEVEL for quiet tests). */
  environnementLocal?: Record<string, string>;
}

export const demarrerPileTemplate = async (o: OptionsPileTemplate): Promise<PileTemplate> => {
  const t = o.template ?? o.synthese.template;
  const arrets: (() => Promise<void>)[] = [];
  const arreter = async () => {
    for (const a of arrets.reverse()) await a().catch(() => undefined);
    arrets.length = 0;
  };
  try {
    const temporaire = mkdtempSync(path.join(tmpdir(), 'retouche-template-'));
    arrets.push(async () => rmSync(temporaire, { recursive: true, force: true }));
    const unique = randomUUID().slice(0, 8);
    const r = await demarrerRessources(t, o.dynamoEndpoint, temporaire, unique, arrets);
    const api = await demarrerApi(t, arrets);
    // The web site's user pool and app client: the Cognito emulator's.
    const cognito: CognitoLocal = await demarrerCognito({ dossier: temporaire });
    arrets.push(cognito.arreter);
    const locaux = { ...r, cognito, idRestApi: `api${unique}` };
    const donneesPersonnalisees = new Map<string, Record<string, string>>();
    const resolveur = resolveurLocal(t, locaux, donneesPersonnalisees);
    creerFiles(t, resolveur, r);
    const contexte = {
      t,
      synthese: o.synthese,
      resolveur,
      temporaire,
      local: environnementLocal(o.dynamoEndpoint, r, temporaire),
      environnementLocal: o.environnementLocal,
      versLocal: versLocal(locaux, api.etape, api.origine),
      arrets,
    };
    const chargeur = chargeurFonctions(contexte);
    const { fonctions, workers } = chargeur;

    const stepFunctions = await demarrerMachine(t, { ...contexte, pauseReessaiMs: o.pauseReessaiMs }, r, workers);
    arrets.push(stepFunctions.arreter);
    if (stepFunctions.arnMachine !== r.arnMachine) throw new Error('state machine ARN');
    contexte.local.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;

    await creerRessourcesPersonnalisees(contexte, r, chargeur, unique, donneesPersonnalisees);
    // Every other function of the template, each in its own worker (a broken bundle or handler stops here).
    const restantes = parType(t, 'AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => !workers[id]);
    await Promise.all(restantes.map((id) => chargeur.charger(id)));

    brancherFiles(t, resolveur, r, workers);
    // Deliveries stop before the functions they call (stops run last first; a second stop does nothing).
    arrets.push(r.sqs.arreter);
    const routes = brancherRoutes(t, api, workers);

    return {
      urlBase: `${api.origine}${BASE_CHEMIN}`,
      table: r.nomTable,
      dynamo: r.dynamo,
      fonctions,
      workers,
      stepFunctions,
      routes,
      secret: (id) => r.secrets.secrets.get(r.arnSecret(id))?.courant,
      cognito,
      sqs: r.sqs,
      arreter: async () => {
        await stepFunctions.attendreInactivite().catch(() => undefined);
        await arreter();
      },
    };
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
};
