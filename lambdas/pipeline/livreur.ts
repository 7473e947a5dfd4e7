/**
 * The webhook delivery function: the queue's consumer (an SQS event source on AWS, the local stack's
 * stand-in locally). Each message is one attempt due (core/domaine/webhooks/livraison.ts). A message
 * that fails for our side (DynamoDB, the queue) is reported alone and received again; after the
 * queue's receive limit it goes to the dead-letter queue, whose alarm calls an operator.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { dependancesDepuisEnv } from '../core/infra/dependances-completes';
import { unePourConteneur, type Dependances } from '../core/infra/dependances';
import { creerPosteur } from '../core/infra/envoi-webhook';
import type { MessageLivraison } from '../core/infra/file-webhooks';
import { journal } from '../core/infra/journal';
import { traiterMessage } from '../core/domaine/webhooks/livraison';

export const creer =
  (deps: () => Promise<Dependances>) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const d = await deps();
    const echecs: SQSBatchResponse['batchItemFailures'] = [];
    // Together: one slow receiver (15 s at most) does not hold up the others of the batch.
    await Promise.all(
      event.Records.map(async (enregistrement) => {
        try {
          const issue = await traiterMessage(d, JSON.parse(enregistrement.body) as MessageLivraison);
          journal.info('webhook message', { issue, message: enregistrement.messageId });
        } catch (erreur) {
          journal.error('webhook message failed; the queue gives it again', { message: enregistrement.messageId, erreur });
          echecs.push({ itemIdentifier: enregistrement.messageId });
        }
      }),
    );
    return { batchItemFailures: echecs };
  };

export const handler = creer(
  unePourConteneur(async () => {
    const d = await dependancesDepuisEnv();
    return { ...d, posterWebhook: creerPosteur({ boucleLocale: d.webhooksBoucleLocale ?? false }) };
  }),
);
