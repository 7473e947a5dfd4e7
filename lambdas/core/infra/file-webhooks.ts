/**
 * The queue of webhook deliveries (SQS on AWS, the local stack's stand-in locally, reached by the
 * same SDK calls): one message per attempt due, `{webhook, id, echeance}`; the delivery function
 * (pipeline/livreur.ts) consumes it. SQS delays a message 15 minutes at most, so an attempt due later
 * travels as a chain of delayed messages (core/domaine/webhooks/livraison.ts).
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface MessageLivraison {
  webhook: string;
  id: string;
  /** The attempt this message is for (the delivery's `prochaine_tentative` when it was sent). */
  echeance: string;
}

export const DELAI_MAX_SQS_SECONDES = 900;

/**
 * Batches of the queue the delivery function handles at once (its event source's MaximumConcurrency):
 * deliveries held by slow receivers never take more of the account's Lambda concurrency than this, and
 * further messages wait for a batch to end. The local stack runs its stand-in with the same bound, so a
 * test meets the contention AWS would. Here rather than in lib/webhooks.ts, which brings aws-cdk-lib: the
 * local stack starts without it.
 */
export const CONCURRENCE_MAX_LIVREUR = 20;

export interface FileWebhooks {
  envoyer(messages: readonly MessageLivraison[], delaiSecondes?: number): Promise<void>;
}

export const fileSqs = (client: SQSClient, url: string): FileWebhooks => ({
  async envoyer(messages, delaiSecondes = 0) {
    const delai = Math.max(0, Math.min(DELAI_MAX_SQS_SECONDES, Math.ceil(delaiSecondes)));
    for (let debut = 0; debut < messages.length; debut += 10) {
      const lot = messages.slice(debut, debut + 10);
      const { Failed = [] } = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: lot.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m), DelaySeconds: delai })),
        }),
      );
      // Not sent: the caller fails and is retried (or the sweeper sends it again from the record).
      if (Failed.length > 0) throw new Error(`the webhook queue refused ${Failed.length} message(s): ${Failed[0]!.Code ?? ''} ${Failed[0]!.Message ?? ''}`);
    }
  },
});
