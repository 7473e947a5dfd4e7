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
 *
 * The queues and their rules are in sqs-etat.ts, the wire format in sqs-protocole.ts, the event source
 * mapping and its timers in sqs-evenements.ts: each can be read without the other two.
 */
import type { Server } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import { creerEtatSqs, creerFile, messages, type OptionsFile } from './sqs-etat';
import { arreter, attendreInactivite, consommer, creerSourceSqs, pomper } from './sqs-evenements';
import { servirSqs } from './sqs-protocole';

export type { OptionsFile } from './sqs-etat';

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

const fermer = (serveur: Server) =>
  new Promise<void>((ok) => {
    serveur.close(() => ok());
    serveur.closeIdleConnections();
  });

export const demarrerSqs = async (options?: { region?: string; compte?: string }): Promise<SqsLocal> => {
  const etat = creerEtatSqs(options?.region ?? 'us-east-1', options?.compte ?? '000000000000');
  const source = creerSourceSqs(etat);
  const { serveur, endpoint } = await servirSqs(etat, (file) => pomper(source, file));
  let arret: Promise<void> | undefined;
  return {
    endpoint,
    creerFile: (nom, o) => creerFile(etat, endpoint, nom, o),
    consommer: (nomFile, handler, o) => consommer(source, nomFile, handler, o),
    messages: (nomFile) => messages(etat, nomFile),
    attendreInactivite: (horizonMs) => attendreInactivite(source, horizonMs),
    arreter: () =>
      (arret ??= (async () => {
        arreter(source);
        await fermer(serveur);
      })()),
  };
};
