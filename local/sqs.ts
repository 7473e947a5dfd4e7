/**
 * The local SQS: a small server speaking the service's JSON protocol (AWS JSON 1.0, `X-Amz-Target:
 * AmazonSQS.<Action>`, as @aws-sdk/client-sqs v3 sends it) on 127.0.0.1, so the handlers use the real
 * SQSClient exactly as on AWS, and the event source mapping Lambda runs in front of a queue: its
 * messages are given to a handler as the SQSEvent Lambda builds, in batches.
 *
 * What the code around a queue counts on is reproduced: SendMessage and SendMessageBatch with their
 * DelaySeconds (0..900, anything else refused as SQS refuses it) and the MD5 of the body the SDK
 * checks on every answer; a message whose handler failed (a throw: the whole batch; or
 * batchItemFailures: those messages) comes back after the queue's visibility timeout with its receive
 * count up, and once received maxReceiveCount times, the next receive moves it to the dead-letter
 * queue instead (its id and count kept), as SQS's redrive policy does. A consumer given concurrenceMax has
 * at most that many batches in flight, as a mapping's ScalingConfig.MaximumConcurrency allows: further
 * messages stay in the queue, not received, until a batch ends. Errors have SQS's shape for this
 * protocol (`__type` and the `x-amzn-query-error` header), so the SDK raises its own exception classes
 * (QueueDoesNotExist, ...). Messages live in memory: a stopped stand-in's messages are gone, as a
 * lost message is on AWS, and the service's sweeper re-sends what a lost message leaves behind.
 *
 * Not reproduced: FIFO queues, ReceiveMessage/DeleteMessage and the other actions (only the Lambda
 * mapping consumes here), MD5OfMessageAttributes (the SDK does not check it), message retention. A
 * batch stays in flight until its handler settles, however long it runs: on AWS the function's timeout
 * (never longer than the queue's visibility timeout, which Lambda requires) ends it first.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export interface OptionsFile {
  /** The redrive policy's maxReceiveCount: receives after which the next one moves the message on. */
  maxReceptions?: number;
  /** Queue name of the dead-letter queue (created before); without it, a message received too often is dropped. */
  fileEchec?: string;
  /** Visibility timeout, in ms (default 2000: locally a failed delivery need not wait SQS's 30 s). */
  visibiliteMs?: number;
}

export interface SqsLocal {
  endpoint: string;
  creerFile(nom: string, options?: OptionsFile): { url: string; arn: string };
  /**
   * Event source mapping: messages of that queue are given to `handler` as an SQSEvent (batches up to
   * tailleLot, default 1). A handler that throws → every message of the batch is received again after
   * visibiliteMs; a handler answering {batchItemFailures:[{itemIdentifier: messageId}]} → only those.
   * After maxReceptions receives a message goes to fileEchec (or is dropped if none). At most
   * concurrenceMax batches are handled at once (2..1000, as MaximumConcurrency; default: no bound):
   * the others wait in the queue, and the end of a batch delivers the next.
   */
  consommer(nomFile: string, handler: (event: SQSEvent) => Promise<unknown>, options?: { tailleLot?: number; concurrenceMax?: number }): void;
  /** Messages currently in a queue not yet consumed (for DLQ inspection in tests), with their body and receive count. */
  messages(nomFile: string): { id: string; corps: string; receptions: number }[];
  /**
   * Resolves when no message is being handled and none is visible now in a consumed queue (delayed
   * ones, or ones waiting out a visibility timeout, further away than `horizonMs`, default 0, do not
   * count). A queue without a consumer (a DLQ) only accumulates: it never counts.
   */
  attendreInactivite(horizonMs?: number): Promise<void>;
  /**
   * Stops timers and the server; messages in memory are lost (the service's sweeper re-sends what a
   * lost message leaves behind), a batch being handled is forgotten. Calling it again does nothing.
   */
  arreter(): Promise<void>;
}

const DELAI_MAX_SECONDES = 900;
/** SQS's largest message since August 2025 (1 MiB; 256 KiB before): body and attributes, and a whole batch. */
const TAILLE_MAX_OCTETS = 1_048_576;
const ENTREES_MAX_PAR_LOT = 10;
/** ScalingConfig.MaximumConcurrency's bounds on an event source mapping. */
const CONCURRENCE_MIN = 2;
const CONCURRENCE_MAX = 1000;
/** The characters SQS accepts in a body (anything else is InvalidMessageContents). */
const CARACTERE_REFUSE = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
/** Queue names and batch entry ids: the same rule on AWS. */
const NOM_VALIDE = /^[A-Za-z0-9_-]{1,80}$/;

interface Message {
  id: string;
  corps: string;
  md5: string;
  attributs: SQSMessageAttributes;
  envoiMs: number;
  premiereReceptionMs?: number;
  receptions: number;
  /** When it may be received: after its delay, then after each visibility timeout. */
  visibleMs: number;
  /** In a batch whose handler has not settled. */
  enVol: boolean;
  /** The queue it was moved from, when in a dead-letter queue (Lambda names it in the record). */
  arnSource?: string;
}

interface File {
  nom: string;
  url: string;
  arn: string;
  maxReceptions?: number;
  fileEchec?: string;
  visibiliteMs: number;
  messages: Message[];
  consommateur?: { handler: (event: SQSEvent) => Promise<unknown>; tailleLot: number; concurrenceMax: number };
  lotsEnCours: number;
  minuteur?: NodeJS.Timeout;
}

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

const md5 = (texte: string) => createHash('md5').update(texte, 'utf8').digest('hex');

const lireCorps = async (requete: IncomingMessage): Promise<string> => {
  const morceaux: Buffer[] = [];
  for await (const morceau of requete) morceaux.push(morceau as Buffer);
  return Buffer.concat(morceaux).toString('utf8');
};

/** A message as SQS accepts it, or the error SQS answers (the same checks for SendMessage and each batch entry). */
const verifierMessage = (entree: EntreeMessage): { corps: string; delaiSecondes: number; attributs: SQSMessageAttributes; octets: number } => {
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

export const demarrerSqs = async (options?: { region?: string; compte?: string }): Promise<SqsLocal> => {
  const region = options?.region ?? 'us-east-1';
  const compte = options?.compte ?? '000000000000';
  const files = new Map<string, File>();
  let arrete = false;
  let endpoint = '';

  /** Each waiter of attendreInactivite checks again after any change (a batch settled, a message moved). */
  const attentes = new Set<() => void>();
  const signaler = () => {
    for (const verifier of [...attentes]) verifier();
  };

  const fileNommee = (nom: string): File => {
    const file = files.get(nom);
    if (!file) throw new Error(`local SQS: no queue ${nom}`);
    return file;
  };
  /** The queue a request's QueueUrl names: its path, whatever host the caller wrote (localhost or 127.0.0.1). */
  const fileDeUrl = (url: unknown): File => {
    if (typeof url !== 'string')
      throw new ErreurSqs('com.amazonaws.sqs#MissingParameter', 'MissingParameter', 'The request must contain the parameter QueueUrl.');
    let chemin: string;
    try {
      chemin = new URL(url).pathname;
    } catch {
      throw fileInexistante();
    }
    const [, compteUrl, nom, ...reste] = chemin.split('/');
    const file = compteUrl === compte && nom !== undefined && reste.length === 0 ? files.get(nom) : undefined;
    if (!file) throw fileInexistante();
    return file;
  };

  const enregistrement = (file: File, m: Message): SQSRecord => ({
    messageId: m.id,
    // A new one for each receive, as SQS gives.
    receiptHandle: randomBytes(48).toString('base64'),
    body: m.corps,
    attributes: {
      ApproximateReceiveCount: String(m.receptions),
      SentTimestamp: String(m.envoiMs),
      SenderId: compte,
      ApproximateFirstReceiveTimestamp: String(m.premiereReceptionMs),
      ...(m.arnSource ? { DeadLetterQueueSourceArn: m.arnSource } : {}),
    },
    messageAttributes: structuredClone(m.attributs),
    md5OfBody: m.md5,
    eventSource: 'aws:sqs',
    eventSourceARN: file.arn,
    awsRegion: region,
  });

  /**
   * The messages of the batch that come back: all of them when the handler threw or answered a
   * batchItemFailures Lambda cannot read (not a list, an id that is empty or not of the batch), the
   * ones it names otherwise; none for any other answer.
   */
  const echecsDuLot = (reponse: unknown, lot: Message[]): Set<Message> => {
    const echecs = (reponse as { batchItemFailures?: unknown } | null | undefined)?.batchItemFailures;
    if (echecs === undefined || echecs === null) return new Set();
    if (!Array.isArray(echecs)) return new Set(lot);
    const retour = new Set<Message>();
    for (const echec of echecs as { itemIdentifier?: unknown }[]) {
      const m = lot.find((l) => l.id === echec?.itemIdentifier);
      if (!m) return new Set(lot);
      retour.add(m);
    }
    return retour;
  };

  const livrer = (file: File, lot: Message[]) => {
    const consommateur = file.consommateur!;
    const maintenant = Date.now();
    for (const m of lot) {
      m.enVol = true;
      m.receptions += 1;
      m.premiereReceptionMs ??= maintenant;
    }
    file.lotsEnCours += 1;
    const evenement: SQSEvent = { Records: lot.map((m) => enregistrement(file, m)) };
    void (async () => consommateur.handler(evenement))().then(
      (reponse) => regler(file, lot, echecsDuLot(reponse, lot)),
      () => regler(file, lot, new Set(lot)),
    );
  };

  /** A batch's end: what succeeded is deleted (as Lambda deletes it), what failed waits out the visibility timeout. */
  const regler = (file: File, lot: Message[], echecs: Set<Message>) => {
    if (arrete) return;
    file.lotsEnCours -= 1;
    const visible = Date.now() + file.visibiliteMs;
    for (const m of lot) {
      m.enVol = false;
      m.visibleMs = visible;
    }
    file.messages = file.messages.filter((m) => !lot.includes(m) || echecs.has(m));
    pomper(file);
  };

  /** The redrive policy: the receive after the last allowed one moves the message on instead. */
  const deplacer = (file: File, m: Message) => {
    file.messages = file.messages.filter((autre) => autre !== m);
    if (file.fileEchec === undefined) return;
    const echec = fileNommee(file.fileEchec);
    echec.messages.push({ ...m, enVol: false, visibleMs: Date.now(), arnSource: file.arn });
    pomper(echec);
  };

  /**
   * Delivers what is visible now, in batches, as far as the consumer's concurrency allows, then waits
   * for the next message to become visible; when every batch allowed is in flight, for one to end.
   */
  const pomper = (file: File) => {
    clearTimeout(file.minuteur);
    file.minuteur = undefined;
    if (arrete) return;
    const consommateur = file.consommateur;
    if (consommateur) {
      const maintenant = Date.now();
      const sature = () => file.lotsEnCours >= consommateur.concurrenceMax;
      let lot: Message[] = [];
      for (const m of [...file.messages]) {
        // Not received at all: no receive count up, no move to the dead-letter queue.
        if (sature()) break;
        if (m.enVol || m.visibleMs > maintenant) continue;
        if (file.maxReceptions !== undefined && m.receptions >= file.maxReceptions) {
          deplacer(file, m);
          continue;
        }
        lot.push(m);
        if (lot.length === consommateur.tailleLot) {
          livrer(file, lot);
          lot = [];
        }
      }
      if (lot.length > 0) livrer(file, lot);
      // Saturated, the next batch to end pumps (regler); a timer for the messages visible now would fire again and again.
      const prochain = sature() ? Infinity : Math.min(...file.messages.filter((m) => !m.enVol).map((m) => m.visibleMs));
      // Unref'd: a pending delay never keeps a process alive on its own.
      if (Number.isFinite(prochain)) file.minuteur = setTimeout(() => pomper(file), Math.max(0, prochain - Date.now())).unref();
    }
    signaler();
  };

  const envoyer = (file: File, m: { corps: string; delaiSecondes: number; attributs: SQSMessageAttributes }) => {
    const maintenant = Date.now();
    const message: Message = {
      id: randomUUID(),
      corps: m.corps,
      md5: md5(m.corps),
      attributs: m.attributs,
      envoiMs: maintenant,
      receptions: 0,
      visibleMs: maintenant + m.delaiSecondes * 1000,
      enVol: false,
    };
    file.messages.push(message);
    return message;
  };

  const actions: Record<string, (corps: Record<string, unknown>) => unknown> = {
    GetQueueUrl: (corps) => {
      const file = typeof corps.QueueName === 'string' ? files.get(corps.QueueName) : undefined;
      if (!file || (corps.QueueOwnerAWSAccountId !== undefined && corps.QueueOwnerAWSAccountId !== compte)) throw fileInexistante();
      return { QueueUrl: file.url };
    },
    SendMessage: (corps) => {
      const file = fileDeUrl(corps.QueueUrl);
      const message = envoyer(file, verifierMessage(corps as EntreeMessage));
      pomper(file);
      return { MessageId: message.id, MD5OfMessageBody: message.md5 };
    },
    SendMessageBatch: (corps) => {
      const file = fileDeUrl(corps.QueueUrl);
      const entrees = (Array.isArray(corps.Entries) ? corps.Entries : []) as (EntreeMessage & { Id?: unknown })[];
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
        if (ids.has(id))
          throw new ErreurSqs('com.amazonaws.sqs#BatchEntryIdsNotDistinct', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
        ids.add(id);
      }
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
      pomper(file);
      return { Successful: reussis, Failed: echoues };
    },
  };

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
  endpoint = `http://127.0.0.1:${(serveur.address() as AddressInfo).port}`;

  const inactive = (horizonMs: number) => {
    const limite = Date.now() + horizonMs;
    for (const file of files.values()) {
      if (!file.consommateur) continue;
      if (file.lotsEnCours > 0 || file.messages.some((m) => m.enVol || m.visibleMs <= limite)) return false;
    }
    return true;
  };

  let arret: Promise<void> | undefined;
  return {
    endpoint,
    creerFile: (nom, o) => {
      if (!NOM_VALIDE.test(nom)) throw new Error(`local SQS: ${nom} is no standard queue name (FIFO queues are not reproduced)`);
      if (files.has(nom)) throw new Error(`local SQS: queue ${nom} exists`);
      if (o?.fileEchec !== undefined && !files.has(o.fileEchec))
        throw new Error(`local SQS: queue ${nom}: no dead-letter queue ${o.fileEchec} (create it first)`);
      if (o?.maxReceptions !== undefined && !(Number.isInteger(o.maxReceptions) && o.maxReceptions >= 1))
        throw new Error(`local SQS: queue ${nom}: maxReceptions ${o.maxReceptions}`);
      const file: File = {
        nom,
        url: `${endpoint}/${compte}/${nom}`,
        arn: `arn:aws:sqs:${region}:${compte}:${nom}`,
        maxReceptions: o?.maxReceptions,
        fileEchec: o?.fileEchec,
        visibiliteMs: o?.visibiliteMs ?? 2000,
        messages: [],
        lotsEnCours: 0,
      };
      files.set(nom, file);
      return { url: file.url, arn: file.arn };
    },
    consommer: (nomFile, handler, o) => {
      const file = fileNommee(nomFile);
      if (file.consommateur) throw new Error(`local SQS: queue ${nomFile} has a consumer already`);
      const tailleLot = o?.tailleLot ?? 1;
      if (!Number.isInteger(tailleLot) || tailleLot < 1) throw new Error(`local SQS: batch size ${tailleLot}`);
      const concurrenceMax = o?.concurrenceMax ?? Infinity;
      if (concurrenceMax !== Infinity && !(Number.isInteger(concurrenceMax) && concurrenceMax >= CONCURRENCE_MIN && concurrenceMax <= CONCURRENCE_MAX))
        throw new Error(`local SQS: maximum concurrency ${concurrenceMax} (Lambda takes ${CONCURRENCE_MIN} to ${CONCURRENCE_MAX})`);
      file.consommateur = { handler, tailleLot, concurrenceMax };
      pomper(file);
    },
    messages: (nomFile) => fileNommee(nomFile).messages.map((m) => ({ id: m.id, corps: m.corps, receptions: m.receptions })),
    attendreInactivite: (horizonMs = 0) =>
      new Promise<void>((ok) => {
        const verifier = () => {
          if (!arrete && !inactive(horizonMs)) return;
          attentes.delete(verifier);
          ok();
        };
        attentes.add(verifier);
        verifier();
      }),
    arreter: () =>
      (arret ??= (async () => {
        arrete = true;
        for (const file of files.values()) clearTimeout(file.minuteur);
        files.clear();
        signaler();
        await new Promise<void>((ok) => {
          serveur.close(() => ok());
          serveur.closeIdleConnections();
        });
      })()),
  };
};
