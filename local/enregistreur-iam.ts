/**
 * Records the AWS calls each function makes on the local stack, as IAM would see them on AWS: the
 * function (its construct path in lib/, e.g. 'Api/TravauxCreer', 'Flux/Outil'), the IAM action and
 * the resource it targets, and for DynamoDB the partition key values (`dynamodb:LeadingKeys`).
 * The local stack gives each function its own SDK clients carrying this middleware (local/pile.ts,
 * `enregistreur`); test/integration/iam.test.ts evaluates the record against the template's policies.
 *
 * Resources are recorded with local names (table, bucket, machine ARN); the test maps them to the
 * template's resources.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { clientDocument } from '../lambdas/core/infra/client-dynamodb';
import { DEFINITION_TABLE } from '../lambdas/core/depots/table';
import type { Dependances } from '../lambdas/core/infra/dependances';
import type { Objets } from '../lambdas/core/infra/objets';
import type { FileWebhooks } from '../lambdas/core/infra/file-webhooks';
import type { DependancesPipeline } from '../lambdas/pipeline/dependances-pipeline';

export type RessourceAppelee =
  | { type: 'table'; table: string; index?: string }
  | { type: 'objet'; bucket: string; cle: string }
  | { type: 'bucket'; bucket: string }
  | { type: 'machine'; arn: string }
  | { type: 'execution'; arn: string }
  /** A secret the function reads on AWS: the link signing key or the C2PA key. */
  | { type: 'secret'; quel: 'liens' | 'c2pa' }
  /** The webhook delivery queue (lib/webhooks.ts). */
  | { type: 'file' };

export interface AppelAws {
  fonction: string;
  /** IAM action, e.g. dynamodb:UpdateItem. */
  action: string;
  /** The SDK operation it comes from (TransactWriteItems, presigned PutObject, …). */
  operation: string;
  ressource: RessourceAppelee;
  /** Partition key values of the items touched (DynamoDB), for `dynamodb:LeadingKeys`. */
  clesPrincipales?: string[];
}

export interface EnregistreurIam {
  appels: AppelAws[];
  enregistrer(appel: AppelAws): void;
  /**
   * Awaited before each recorded SDK call is sent: lets a test act at an exact point of a function's
   * work (e.g. between a pre-check and the debit it guards).
   */
  avant?: (appel: AppelAws) => Promise<void> | void;
}

export const creerEnregistreurIam = (avant?: EnregistreurIam['avant']): EnregistreurIam => {
  const appels: AppelAws[] = [];
  return { appels, enregistrer: (appel) => void appels.push(appel), ...(avant ? { avant } : {}) };
};

const CLE_PARTITION = 'pk';

/** A key attribute, marshalled ({ S: '…' }) or not. */
const valeur = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { S?: unknown }).S === 'string') return (v as { S: string }).S;
  return undefined;
};
const pk = (cle: Record<string, unknown> | undefined): string[] => {
  const v = valeur(cle?.[CLE_PARTITION]);
  return v === undefined ? [] : [v];
};

type Entree = Record<string, any>;

/**
 * The partition a Query reads, as IAM sees it: `dynamodb:LeadingKeys` is the partition key value of the
 * table, or of the index for a Query on an index (gsi1pk…, not the item's pk). Read from the key
 * condition's equality on that attribute (`gsi1pk = :p`, `#k = :p`).
 */
const partitionInterrogee = (e: Entree): string[] => {
  const attribut = e.IndexName ? DEFINITION_TABLE.index.find((i) => i.nom === e.IndexName)?.partitionKey : DEFINITION_TABLE.partitionKey;
  if (!attribut) return [];
  for (const terme of String(e.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const egalite = /^\(?\s*(#?[\w]+)\s*=\s*(:[\w]+)\s*\)?$/.exec(terme.trim());
    if (!egalite) continue;
    const nom = egalite[1]!.startsWith('#') ? e.ExpressionAttributeNames?.[egalite[1]!] : egalite[1];
    if (nom !== attribut) continue;
    const v = valeur(e.ExpressionAttributeValues?.[egalite[2]!]);
    if (v !== undefined) return [v];
  }
  // Not found: recorded without keys, which test/integration/iam.test.ts refuses (a vacuous ForAllValues).
  return [];
};

/** IAM actions of one DynamoDB operation (transactions and batches are authorized item by item). */
const appelsDynamo = (operation: string, e: Entree): Omit<AppelAws, 'fonction'>[] => {
  const table = (t: string, index?: string): RessourceAppelee => ({ type: 'table', table: t, ...(index ? { index } : {}) });
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [{ action: `dynamodb:${operation}`, operation, ressource: table(e.TableName), clesPrincipales: pk(e.Key) }];
    case 'PutItem':
      return [{ action: 'dynamodb:PutItem', operation, ressource: table(e.TableName), clesPrincipales: pk(e.Item) }];
    case 'Query':
      return [{ action: 'dynamodb:Query', operation, ressource: table(e.TableName, e.IndexName), clesPrincipales: partitionInterrogee(e) }];
    case 'Scan':
      return [{ action: 'dynamodb:Scan', operation, ressource: table(e.TableName, e.IndexName) }];
    case 'BatchGetItem':
      return Object.entries(e.RequestItems as Record<string, { Keys: Entree[] }>).map(([t, { Keys }]) => ({
        action: 'dynamodb:BatchGetItem',
        operation,
        ressource: table(t),
        clesPrincipales: Keys.flatMap(pk),
      }));
    case 'BatchWriteItem':
      return Object.entries(e.RequestItems as Record<string, Entree[]>).flatMap(([t, demandes]) =>
        demandes.map((d) => ({
          action: d.PutRequest ? 'dynamodb:PutItem' : 'dynamodb:DeleteItem',
          operation,
          ressource: table(t),
          clesPrincipales: d.PutRequest ? pk(d.PutRequest.Item) : pk(d.DeleteRequest?.Key),
        })),
      );
    case 'TransactWriteItems':
      return (e.TransactItems as Entree[]).map((item) => {
        const [genre, corps] = Object.entries(item)[0] as [string, Entree];
        const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[genre] ?? genre;
        return {
          action: `dynamodb:${action}`,
          operation: `${operation}.${genre}`,
          ressource: table(corps.TableName),
          clesPrincipales: pk(corps.Key ?? corps.Item),
        };
      });
    case 'TransactGetItems':
      return (e.TransactItems as Entree[]).map(({ Get }) => ({
        action: 'dynamodb:GetItem',
        operation: `${operation}.Get`,
        ressource: table(Get.TableName),
        clesPrincipales: pk(Get.Key),
      }));
    default:
      return [{ action: `dynamodb:${operation}`, operation, ressource: table(e.TableName ?? '?') }];
  }
};

/** IAM actions of one S3 operation (multipart parts and presigned PUTs are s3:PutObject). */
const appelsS3 = (operation: string, e: Entree): Omit<AppelAws, 'fonction'>[] => {
  const objet = (bucket: string, cle: string): RessourceAppelee => ({ type: 'objet', bucket, cle });
  switch (operation) {
    case 'GetObject':
    case 'HeadObject':
      return [{ action: 's3:GetObject', operation, ressource: objet(e.Bucket, e.Key) }];
    case 'PutObject':
    case 'CreateMultipartUpload':
      // Tags set by the request itself need s3:PutObjectTagging as well (S3 User Guide, "Object tagging").
      return [
        { action: 's3:PutObject', operation, ressource: objet(e.Bucket, e.Key) },
        ...(e.Tagging ? [{ action: 's3:PutObjectTagging', operation, ressource: objet(e.Bucket, e.Key) }] : []),
      ];
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return [{ action: 's3:PutObject', operation, ressource: objet(e.Bucket, e.Key) }];
    case 'CopyObject': {
      const [bucket, ...cle] = decodeURIComponent(String(e.CopySource).replace(/^\//, '')).split('/');
      return [
        { action: 's3:GetObject', operation, ressource: objet(bucket!, cle.join('/')) },
        { action: 's3:PutObject', operation, ressource: objet(e.Bucket, e.Key) },
      ];
    }
    case 'DeleteObject':
    case 'AbortMultipartUpload':
      return [{ action: `s3:${operation}`, operation, ressource: objet(e.Bucket, e.Key) }];
    case 'DeleteObjects':
      return (e.Delete?.Objects as { Key: string }[]).map(({ Key }) => ({ action: 's3:DeleteObject', operation, ressource: objet(e.Bucket, Key) }));
    case 'ListObjectsV2':
    case 'ListObjects':
      return [{ action: 's3:ListBucket', operation, ressource: { type: 'bucket', bucket: e.Bucket } }];
    default:
      return [{ action: `s3:${operation}`, operation, ressource: e.Key ? objet(e.Bucket, e.Key) : { type: 'bucket', bucket: e.Bucket } }];
  }
};

const appelsSfn = (operation: string, e: Entree): Omit<AppelAws, 'fonction'>[] => {
  if (operation === 'StartExecution') return [{ action: 'states:StartExecution', operation, ressource: { type: 'machine', arn: e.stateMachineArn } }];
  if (e.executionArn) return [{ action: `states:${operation}`, operation, ressource: { type: 'execution', arn: e.executionArn } }];
  return [{ action: `states:${operation}`, operation, ressource: { type: 'machine', arn: e.stateMachineArn } }];
};

type Client = DynamoDBClient | S3Client | SFNClient;

/** Adds the recording middleware to a client: it sees every command, presigned ones included. */
const surveiller = <C extends Client>(
  client: C,
  fonction: string,
  traduire: (operation: string, entree: Entree) => Omit<AppelAws, 'fonction'>[],
  enregistreur: EnregistreurIam,
): C => {
  (client.middlewareStack as { add: (m: unknown, o: unknown) => void }).add(
    (suivant: (args: unknown) => Promise<unknown>, contexte: { commandName?: string }) => async (args: { input: Entree }) => {
      const operation = (contexte.commandName ?? '?').replace(/Command$/, '');
      for (const appel of traduire(operation, args.input)) {
        enregistreur.enregistrer({ fonction, ...appel });
        await enregistreur.avant?.({ fonction, ...appel });
      }
      return suivant(args);
    },
    { step: 'serialize', priority: 'high', name: 'enregistreurIam' },
  );
  return client;
};

/**
 * The S3 port of the API functions (core/infra/objets.ts), recorded as IAM sees it: a presigned URL is
 * authorised by the role that signed it, so making one is recorded as the action it allows.
 */
const surveillerObjets = (objets: Objets, fonction: string, bucket: string, enregistreur: EnregistreurIam): Objets => {
  const appel = async (action: string, operation: string, cle: string) => {
    const a: AppelAws = { fonction, action, operation, ressource: { type: 'objet', bucket, cle } };
    enregistreur.enregistrer(a);
    await enregistreur.avant?.(a);
  };
  return {
    deposer: async (cle, octets, type) => {
      await appel('s3:PutObject', 'PutObject', cle);
      return objets.deposer(cle, octets, type);
    },
    lireDebut: async (cle, n) => {
      await appel('s3:GetObject', 'GetObject', cle);
      return objets.lireDebut(cle, n);
    },
    supprimer: async (cles) => {
      for (const cle of cles) await appel('s3:DeleteObject', 'DeleteObject', cle);
      return objets.supprimer(cles);
    },
    urlDepot: async (cle, type, taille, secondes) => {
      await appel('s3:PutObject', 'presigned PutObject', cle);
      return objets.urlDepot(cle, type, taille, secondes);
    },
    urlLecture: async (cle, nom, secondes) => {
      await appel('s3:GetObject', 'presigned GetObject', cle);
      return objets.urlLecture(cle, nom, secondes);
    },
  };
};

export interface FabriquesClients {
  dynamo: () => DynamoDBClient;
  s3: () => S3Client;
  objets: () => Objets;
  sfn: () => SFNClient;
  fileWebhooks: () => FileWebhooks;
}

/**
 * The dependencies of one function: the shared ones, with its own recorded clients, and its signer
 * and C2PA marker recorded as reads of their secrets (on AWS a function gets those keys from Secrets
 * Manager, and only if its role may read them).
 */
export const dependancesEnregistrees = <D extends Dependances | DependancesPipeline>(
  base: D,
  fonction: string,
  clients: FabriquesClients,
  enregistreur: EnregistreurIam,
): D => {
  const secret = (quel: 'liens' | 'c2pa') =>
    enregistreur.enregistrer({ fonction, action: 'secretsmanager:GetSecretValue', operation: `GetSecretValue(${quel})`, ressource: { type: 'secret', quel } });
  const deps: D = {
    ...base,
    ddb: clientDocument(surveiller(clients.dynamo(), fonction, appelsDynamo, enregistreur)),
    s3: surveiller(clients.s3(), fonction, appelsS3, enregistreur),
    objets: surveillerObjets(clients.objets(), fonction, base.bucket, enregistreur),
    sfn: surveiller(clients.sfn(), fonction, appelsSfn, enregistreur),
    signer: (cle: string, fichier: string) => {
      secret('liens');
      return base.signer(cle, fichier);
    },
    // The key of webhook secrets derives from the link key, which a function reads from its secret on AWS:
    // not recorded here (a Buffer is read, not called); the template test asserts who may read that secret.
    fileWebhooks: ((file: FileWebhooks): FileWebhooks => ({
      envoyer: async (messages, delai) => {
        // SendMessageBatch is authorized as sqs:SendMessage (SQS developer guide, "batch actions").
        const appel: AppelAws = { fonction, action: 'sqs:SendMessage', operation: 'SendMessageBatch', ressource: { type: 'file' } };
        await enregistreur.avant?.(appel);
        enregistreur.enregistrer(appel);
        return file.envoyer(messages, delai);
      },
    }))(clients.fileWebhooks()),
  };
  if ('c2pa' in base && base.c2pa) {
    const marqueur = base.c2pa;
    (deps as DependancesPipeline).c2pa = {
      marquer: (image, format, demande) => {
        secret('c2pa');
        return marqueur.marquer(image, format, demande);
      },
    };
  }
  return deps;
};
