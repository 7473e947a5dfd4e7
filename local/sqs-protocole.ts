/**
 * The local SQS's wire format (local/sqs.ts): AWS JSON 1.0 as @aws-sdk/client-sqs v3 sends it, the
 * checks SQS makes on what it is sent, and its errors in the shape the SDK reads, so the handlers meet
 * the same answers and exception classes as on AWS. What a request does to the queues is the state's.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSMessageAttributes } from 'aws-lambda';
import { envoyer, NOM_VALIDE, type EtatSqs, type File, type MessageVerifie } from './sqs-etat';

const DELAI_MAX_SECONDES = 900;
/** SQS's largest message since August 2025 (1 MiB; 256 KiB before): body and attributes, and a whole batch. */
const TAILLE_MAX_OCTETS = 1_048_576;
const ENTREES_MAX_PAR_LOT = 10;
/** The characters SQS accepts in a body (anything else is InvalidMessageContents). */
const CARACTERE_REFUSE = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * An error as SQS answers it in this protocol: `__type` is the model's shape, `x-amzn-query-error`
 * the older query code, which the SDK reads first (its exception classes are matched on either).
 */
class ErreurSqs extends Error {
  constructor(
    readonly type: string,
    readonly codeRequete: string,
    message: string,
    readonly statut = 400,
  ) {
    super(message);
  }
}

const fileInexistante = () =>
  new ErreurSqs('com.amazonaws.sqs#QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'The specified queue does not exist.');
const parametreInvalide = (message: string) => new ErreurSqs('com.amazonaws.sqs#InvalidParameterValueException', 'InvalidParameterValue', message);

/** SendMessage's and a batch entry's fields (the JSON protocol's member names). */
interface EntreeMessage {
  MessageBody?: unknown;
  DelaySeconds?: unknown;
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string; BinaryValue?: string }>;
}

const lireCorps = async (requete: IncomingMessage): Promise<string> => {
  const morceaux: Buffer[] = [];
  for await (const morceau of requete) morceaux.push(morceau as Buffer);
  return Buffer.concat(morceaux).toString('utf8');
};

/** A message as SQS accepts it, or the error SQS answers (the same checks for SendMessage and each batch entry). */
const verifierMessage = (entree: EntreeMessage): MessageVerifie & { octets: number } => {
  const corps = entree.MessageBody;
  if (typeof corps !== 'string' || corps.length === 0)
    throw new ErreurSqs('com.amazonaws.sqs#MissingParameter', 'MissingParameter', 'The request must contain the parameter MessageBody.');
  const delaiSecondes = entree.DelaySeconds ?? 0;
  if (typeof delaiSecondes !== 'number' || !Number.isInteger(delaiSecondes) || delaiSecondes < 0 || delaiSecondes > DELAI_MAX_SECONDES)
    throw parametreInvalide(`Value ${String(delaiSecondes)} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.`);
  if (CARACTERE_REFUSE.test(corps)) throw new ErreurSqs('com.amazonaws.sqs#InvalidMessageContents', 'InvalidMessageContents', 'Invalid characters found.');
  // As Lambda gives them in a record (the list values are reserved, always empty).
  const attributs: SQSMessageAttributes = {};
  let octets = Buffer.byteLength(corps, 'utf8');
  for (const [nom, a] of Object.entries(entree.MessageAttributes ?? {})) {
    attributs[nom] = {
      ...(a.StringValue !== undefined ? { stringValue: a.StringValue } : {}),
      ...(a.BinaryValue !== undefined ? { binaryValue: a.BinaryValue } : {}),
      stringListValues: [],
      binaryListValues: [],
      dataType: a.DataType ?? 'String',
    };
    octets +=
      Buffer.byteLength(nom) + Buffer.byteLength(a.DataType ?? '') + Buffer.byteLength(a.StringValue ?? '') + Buffer.from(a.BinaryValue ?? '', 'base64').length;
  }
  if (octets > TAILLE_MAX_OCTETS)
    throw parametreInvalide(`One or more parameters are invalid. Reason: Message must be shorter than ${TAILLE_MAX_OCTETS} bytes.`);
  return { corps, delaiSecondes, attributs, octets };
};

/** The queue a request's QueueUrl names: its path, whatever host the caller wrote (localhost or 127.0.0.1). */
const fileDeUrl = (etat: EtatSqs, url: unknown): File => {
  if (typeof url !== 'string')
    throw new ErreurSqs('com.amazonaws.sqs#MissingParameter', 'MissingParameter', 'The request must contain the parameter QueueUrl.');
  let chemin: string;
  try {
    chemin = new URL(url).pathname;
  } catch {
    throw fileInexistante();
  }
  const [, compteUrl, nom, ...reste] = chemin.split('/');
  const file = compteUrl === etat.compte && nom !== undefined && reste.length === 0 ? etat.files.get(nom) : undefined;
  if (!file) throw fileInexistante();
  return file;
};

/** The checks SQS makes on a batch as a whole, before any entry: its size and its entries' ids. */
const verifierEntrees = (entrees: (EntreeMessage & { Id?: unknown })[]) => {
  if (entrees.length === 0)
    throw new ErreurSqs(
      'com.amazonaws.sqs#EmptyBatchRequest',
      'AWS.SimpleQueueService.EmptyBatchRequest',
      'There should be at least one SendMessageBatchRequestEntry in the request.',
    );
  if (entrees.length > ENTREES_MAX_PAR_LOT)
    throw new ErreurSqs(
      'com.amazonaws.sqs#TooManyEntriesInBatchRequest',
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${ENTREES_MAX_PAR_LOT}. You have sent ${entrees.length}.`,
    );
  const ids = new Set<string>();
  for (const { Id: id } of entrees) {
    if (typeof id !== 'string' || !NOM_VALIDE.test(id))
      throw new ErreurSqs(
        'com.amazonaws.sqs#InvalidBatchEntryId',
        'AWS.SimpleQueueService.InvalidBatchEntryId',
        'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
      );
    if (ids.has(id)) throw new ErreurSqs('com.amazonaws.sqs#BatchEntryIdsNotDistinct', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    ids.add(id);
  }
};

/** `apresEnvoi`: the event source's turn, once messages are in the queue. */
const sendMessageBatch = (etat: EtatSqs, apresEnvoi: (file: File) => void, corps: Record<string, unknown>) => {
  const file = fileDeUrl(etat, corps.QueueUrl);
  const entrees = (Array.isArray(corps.Entries) ? corps.Entries : []) as (EntreeMessage & { Id?: unknown })[];
  verifierEntrees(entrees);
  // Each entry is checked on its own: a bad one is in Failed, the others are sent (SQS's partial success).
  const verifies = entrees.map((entree) => {
    try {
      return { id: entree.Id as string, message: verifierMessage(entree) };
    } catch (erreur) {
      if (!(erreur instanceof ErreurSqs)) throw erreur;
      return { id: entree.Id as string, erreur };
    }
  });
  const total = verifies.reduce((somme, v) => somme + (v.message?.octets ?? 0), 0);
  if (total > TAILLE_MAX_OCTETS)
    throw new ErreurSqs(
      'com.amazonaws.sqs#BatchRequestTooLong',
      'AWS.SimpleQueueService.BatchRequestTooLong',
      `Batch requests cannot be longer than ${TAILLE_MAX_OCTETS} bytes. You have sent ${total} bytes.`,
    );
  const reussis: { Id: string; MessageId: string; MD5OfMessageBody: string }[] = [];
  const echoues: { Id: string; SenderFault: boolean; Code: string; Message: string }[] = [];
  for (const v of verifies) {
    if (v.erreur) echoues.push({ Id: v.id, SenderFault: true, Code: v.erreur.codeRequete, Message: v.erreur.message });
    else {
      const message = envoyer(file, v.message);
      reussis.push({ Id: v.id, MessageId: message.id, MD5OfMessageBody: message.md5 });
    }
  }
  apresEnvoi(file);
  return { Successful: reussis, Failed: echoues };
};

const actionsSqs = (etat: EtatSqs, apresEnvoi: (file: File) => void): Record<string, (corps: Record<string, unknown>) => unknown> => ({
  GetQueueUrl: (corps) => {
    const file = typeof corps.QueueName === 'string' ? etat.files.get(corps.QueueName) : undefined;
    if (!file || (corps.QueueOwnerAWSAccountId !== undefined && corps.QueueOwnerAWSAccountId !== etat.compte)) throw fileInexistante();
    return { QueueUrl: file.url };
  },
  SendMessage: (corps) => {
    const file = fileDeUrl(etat, corps.QueueUrl);
    const message = envoyer(file, verifierMessage(corps as EntreeMessage));
    apresEnvoi(file);
    return { MessageId: message.id, MD5OfMessageBody: message.md5 };
  },
  SendMessageBatch: (corps) => sendMessageBatch(etat, apresEnvoi, corps),
});

/** The server on 127.0.0.1, listening once this resolves. */
export const servirSqs = async (etat: EtatSqs, apresEnvoi: (file: File) => void): Promise<{ serveur: Server; endpoint: string }> => {
  const actions = actionsSqs(etat, apresEnvoi);
  const serveur: Server = createServer((requete, reponse) => {
    const repondre = (statut: number, corps: unknown, codeRequete?: string) => {
      reponse.writeHead(statut, {
        'Content-Type': 'application/x-amz-json-1.0',
        'x-amzn-RequestId': randomUUID(),
        ...(codeRequete ? { 'x-amzn-query-error': `${codeRequete};${statut < 500 ? 'Sender' : 'Receiver'}` } : {}),
      });
      reponse.end(JSON.stringify(corps));
    };
    void (async () => {
      try {
        const cible = String(requete.headers['x-amz-target'] ?? '');
        const texte = await lireCorps(requete);
        const action = cible.startsWith('AmazonSQS.') ? actions[cible.slice('AmazonSQS.'.length)] : undefined;
        if (requete.method !== 'POST' || !action)
          throw new ErreurSqs(
            'com.amazonaws.sqs#UnsupportedOperation',
            'AWS.SimpleQueueService.UnsupportedOperation',
            `The local SQS does not implement ${cible || 'this request'}.`,
          );
        let corps: Record<string, unknown>;
        try {
          corps = JSON.parse(texte || '{}') as Record<string, unknown>;
        } catch {
          throw new ErreurSqs('com.amazon.coral.service#SerializationException', 'SerializationException', 'The request body is not JSON.');
        }
        repondre(200, action(corps));
      } catch (erreur) {
        const e = erreur instanceof ErreurSqs ? erreur : new ErreurSqs('com.amazon.coral.service#InternalFailure', 'InternalFailure', String(erreur), 500);
        repondre(e.statut, { __type: e.type, message: e.message }, e.codeRequete);
      }
    })();
  });
  await new Promise<void>((ok) => serveur.listen(0, '127.0.0.1', ok));
  return { serveur, endpoint: `http://127.0.0.1:${(serveur.address() as AddressInfo).port}` };
};
