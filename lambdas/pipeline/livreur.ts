/**
 * The webhook delivery function: the queue's consumer (an SQS event source on AWS, the local stack's
 * stand-in locally). Each message is one attempt due (core/domaine/webhooks/livraison.ts). A message
 * that fails for our side (DynamoDB, the queue) is reported alone and received again (Powertools'
 * Batch utility answers the partial batch response); after the queue's receive limit it goes to the
 * dead-letter queue, whose alarm calls an operator.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec, unePourConteneur } from '../core/infra/dependances';
import { creerPosteur } from '../core/infra/envoi-webhook';
import type { MessageLivraison } from '../core/infra/file-webhooks';
import { journal } from '../core/infra/journal';
import { lireSecretLiens } from '../core/infra/secret-liens';
import { traiterMessage, type DepsLivraison } from '../core/domaine/webhooks/livraison';

export const creer =
  (deps: () => Promise<DepsLivraison>) =>
  async (event: SQSEvent, contexte?: Context): Promise<SQSBatchResponse> => {
    const d = await deps();
    const traiter = async (enregistrement: SQSRecord): Promise<void> => {
      try {
        const issue = await traiterMessage(d, JSON.parse(enregistrement.body) as MessageLivraison);
        journal.info('webhook message', { issue, message: enregistrement.messageId });
      } catch (erreur) {
        journal.error('webhook message failed; the queue gives it again', { message: enregistrement.messageId, erreur });
        throw erreur;
      }
    };
    // Its records together (processInParallel, the default): one slow receiver (15 s at most) does not
    // hold up the others. A processor per batch: it keeps the batch's records and failures, and the
    // local stack hands one function several batches at once. A batch that failed whole is answered
    // as one, every message listed, not thrown: the queue gives each back the same way.
    return processPartialResponse(event, traiter, new BatchProcessor(EventType.SQS), {
      ...(contexte ? { context: contexte } : {}),
      throwOnFullBatchFailure: false,
    });
  };

// DynamoDB, the link secret (the body's links, the endpoints' secrets), the queue (the next attempt), the sender.
const base = dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens, sqs: () => new SQSClient({}) });
export const handler = creer(
  unePourConteneur(async () => {
    const d = await base();
    return { ...d, posterWebhook: creerPosteur({ boucleLocale: d.webhooksBoucleLocale ?? false }) };
  }),
);
