/**
 * The local SQS (local/sqs.ts) as the code around a queue meets SQS on AWS, through the real
 * SQSClient: what it sends reaches the consumer as Lambda's SQSEvent, a delay is honoured, a failed
 * delivery comes back with its receive count up and ends in the dead-letter queue, batchItemFailures
 * returns only the messages it names, a consumer's maximum concurrency holds the other batches back,
 * and errors are the SDK's own exceptions.
 */
import { GetQueueUrlCommand, QueueDoesNotExist, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { demarrerSqs, type SqsLocal } from '../../local/sqs';

let sqs: SqsLocal;
let client: SQSClient;

beforeEach(async () => {
  sqs = await demarrerSqs();
  client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterEach(async () => {
  client.destroy();
  await sqs.arreter();
});

/** A consumer that keeps every record it is given, with the time it got it. */
const recepteur = (reponse: (e: SQSEvent) => unknown = () => undefined) => {
  const recus: { record: SQSRecord; a: number }[] = [];
  const lots: SQSEvent[] = [];
  const handler = async (e: SQSEvent) => {
    lots.push(e);
    for (const record of e.Records) recus.push({ record, a: Date.now() });
    return reponse(e);
  };
  return { recus, lots, handler };
};

describe('local SQS', () => {
  it('gives what the SDK sends to the consumer as a record of an SQSEvent, Lambda-shaped', async () => {
    const { url, arn } = sqs.creerFile('Livraisons');
    expect(url).toBe(`${sqs.endpoint}/000000000000/Livraisons`);
    expect(arn).toBe('arn:aws:sqs:us-east-1:000000000000:Livraisons');
    const { recus, handler } = recepteur();
    sqs.consommer('Livraisons', handler);
    const corps = JSON.stringify({ evenement: 'travail.termine', texte: 'déjà vu ✓' });
    const envoi = await client.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: corps, MessageAttributes: { type: { DataType: 'String', StringValue: 'webhook' } } }),
    );
    await sqs.attendreInactivite();
    expect(recus).toHaveLength(1);
    const { record } = recus[0]!;
    expect(record).toMatchObject({
      messageId: envoi.MessageId,
      body: corps,
      md5OfBody: envoi.MD5OfMessageBody,
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: 'us-east-1',
      messageAttributes: { type: { stringValue: 'webhook', dataType: 'String', stringListValues: [], binaryListValues: [] } },
    });
    expect(record.receiptHandle).toBeTruthy();
    expect(record.attributes.ApproximateReceiveCount).toBe('1');
    expect(Number(record.attributes.SentTimestamp)).toBeLessThanOrEqual(Number(record.attributes.ApproximateFirstReceiveTimestamp));
    // Consumed: the queue is empty.
    expect(sqs.messages('Livraisons')).toEqual([]);
    expect((await client.send(new GetQueueUrlCommand({ QueueName: 'Livraisons' }))).QueueUrl).toBe(url);
  });

  it('keeps messages in a queue without a consumer, and delivers them once one comes', async () => {
    const { url } = sqs.creerFile('Attente');
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'un' }));
    await sqs.attendreInactivite();
    expect(sqs.messages('Attente')).toMatchObject([{ corps: 'un', receptions: 0 }]);
    const { recus, handler } = recepteur();
    sqs.consommer('Attente', handler);
    await sqs.attendreInactivite();
    expect(recus.map((r) => r.record.body)).toEqual(['un']);
  });

  it('honours DelaySeconds', async () => {
    const { url } = sqs.creerFile('Differee');
    const { recus, handler } = recepteur();
    sqs.consommer('Differee', handler);
    const envoi = Date.now();
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'plus tard', DelaySeconds: 1 }));
    // Delayed beyond the horizon: idle now, and nothing delivered.
    await sqs.attendreInactivite();
    expect(recus).toHaveLength(0);
    expect(sqs.messages('Differee')).toHaveLength(1);
    await sqs.attendreInactivite(5_000);
    expect(recus).toHaveLength(1);
    expect(recus[0]!.a - envoi).toBeGreaterThanOrEqual(990);
  });

  it('gives a failed message again with its receive count up, then moves it to the dead-letter queue', async () => {
    sqs.creerFile('Echecs');
    const { url } = sqs.creerFile('Appels', { maxReceptions: 2, fileEchec: 'Echecs', visibiliteMs: 100 });
    const { recus, handler } = recepteur(() => {
      throw new Error('the endpoint answered 503');
    });
    sqs.consommer('Appels', handler);
    const { MessageId } = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'webhook' }));
    await sqs.attendreInactivite(1_000);
    expect(recus.map((r) => r.record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(recus.map((r) => r.record.messageId)).toEqual([MessageId, MessageId]);
    // Back after the visibility timeout, not before.
    expect(recus[1]!.a - recus[0]!.a).toBeGreaterThanOrEqual(95);
    expect(sqs.messages('Appels')).toEqual([]);
    expect(sqs.messages('Echecs')).toEqual([{ id: MessageId, corps: 'webhook', receptions: 2 }]);
  });

  it('drops a message received too often when the queue has no dead-letter queue', async () => {
    const { url } = sqs.creerFile('SansEchec', { maxReceptions: 1, visibiliteMs: 50 });
    const { recus, handler } = recepteur(() => Promise.reject(new Error('no')));
    sqs.consommer('SansEchec', handler);
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'perdu' }));
    await sqs.attendreInactivite(1_000);
    expect(recus).toHaveLength(1);
    expect(sqs.messages('SansEchec')).toEqual([]);
  });

  it('sends a batch, delivers it in batches of tailleLot, and takes back only the batchItemFailures', async () => {
    const { url } = sqs.creerFile('Lots', { visibiliteMs: 50 });
    const premier = new Set<string>();
    const { recus, lots, handler } = recepteur((e) => ({
      // Fails each message whose body is "b" the first time it comes.
      batchItemFailures: e.Records.filter((r) => r.body === 'b' && !premier.has(r.messageId) && premier.add(r.messageId)).map((r) => ({
        itemIdentifier: r.messageId,
      })),
    }));
    sqs.consommer('Lots', handler, { tailleLot: 10 });
    const envoi = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ['a', 'b', 'c'].map((corps) => ({ Id: `e-${corps}`, MessageBody: corps })),
      }),
    );
    expect(envoi.Successful?.map((s) => s.Id)).toEqual(['e-a', 'e-b', 'e-c']);
    expect(envoi.Failed ?? []).toEqual([]);
    await sqs.attendreInactivite(1_000);
    expect(lots.map((l) => l.Records.map((r) => r.body))).toEqual([['a', 'b', 'c'], ['b']]);
    expect(recus.filter((r) => r.record.body === 'b').map((r) => r.record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(sqs.messages('Lots')).toEqual([]);
  });

  it('takes the whole batch back when batchItemFailures names a message not in it', async () => {
    const { url } = sqs.creerFile('Inconnu', { visibiliteMs: 50, maxReceptions: 2 });
    const { lots, handler } = recepteur(() => ({ batchItemFailures: [{ itemIdentifier: 'pas-du-lot' }] }));
    sqs.consommer('Inconnu', handler, { tailleLot: 5 });
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: '1', MessageBody: 'x' },
          { Id: '2', MessageBody: 'y' },
        ],
      }),
    );
    await sqs.attendreInactivite(1_000);
    expect(lots.map((l) => l.Records.length)).toEqual([2, 2]);
  });

  it('runs at most concurrenceMax batches at once: the others wait, unreceived, for a batch to end', async () => {
    const { url } = sqs.creerFile('Bornee');
    // Each batch blocks until released, as a delivery to a stalled endpoint does.
    const liberations: (() => void)[] = [];
    const lots: string[][] = [];
    let enCours = 0;
    let auPlus = 0;
    sqs.consommer(
      'Bornee',
      async (e) => {
        lots.push(e.Records.map((r) => r.body));
        auPlus = Math.max(auPlus, ++enCours);
        await new Promise<void>((ok) => liberations.push(ok));
        enCours -= 1;
      },
      { tailleLot: 2, concurrenceMax: 2 },
    );
    const corps = Array.from({ length: 10 }, (_, i) => `m${i}`);
    await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: corps.map((c) => ({ Id: c, MessageBody: c })) }));
    await vi.waitFor(() => expect(lots).toHaveLength(2));
    // Still two a while later, and the three other batches' messages not even received.
    await new Promise((ok) => setTimeout(ok, 100));
    expect(lots).toHaveLength(2);
    expect(sqs.messages('Bornee').filter((m) => m.receptions === 0)).toHaveLength(6);

    liberations.shift()!();
    await vi.waitFor(() => expect(lots).toHaveLength(3));
    expect(enCours).toBe(2);

    // Released one at a time, each end lets the next batch in.
    while (lots.length < 5 || liberations.length > 0) {
      await vi.waitFor(() => expect(liberations.length).toBeGreaterThan(0));
      liberations.shift()!();
    }
    await sqs.attendreInactivite();
    expect(auPlus).toBe(2);
    expect(lots.flat().sort()).toEqual([...corps].sort());
    expect(lots.map((l) => l.length)).toEqual([2, 2, 2, 2, 2]);
    expect(sqs.messages('Bornee')).toEqual([]);

    // Lambda's bounds for MaximumConcurrency.
    sqs.creerFile('Hors');
    for (const concurrenceMax of [1, 1001, 2.5]) expect(() => sqs.consommer('Hors', async () => {}, { concurrenceMax })).toThrow(/maximum concurrency/);
  });

  it('answers the SDK its own errors: QueueDoesNotExist, InvalidParameterValue, UnsupportedOperation', async () => {
    const { url } = sqs.creerFile('Existe');
    const inconnue = await client.send(new SendMessageCommand({ QueueUrl: `${sqs.endpoint}/000000000000/Absente`, MessageBody: 'x' })).catch((e: Error) => e);
    expect(inconnue).toBeInstanceOf(QueueDoesNotExist);
    expect((inconnue as Error).name).toBe('QueueDoesNotExist');
    expect((inconnue as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(400);
    const parNom = await client.send(new GetQueueUrlCommand({ QueueName: 'Absente' })).catch((e: Error) => e);
    expect((parNom as Error).name).toBe('QueueDoesNotExist');

    const tropTard = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', DelaySeconds: 901 })).catch((e: Error) => e);
    expect((tropTard as Error).name).toBe('InvalidParameterValue');
    expect((tropTard as Error).message).toMatch(/DelaySeconds must be >= 0 and <= 900/);
    expect(sqs.messages('Existe')).toEqual([]);
    // In a batch, the bad entry fails on its own.
    const lot = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'bon', MessageBody: 'ok', DelaySeconds: 900 },
          { Id: 'mauvais', MessageBody: 'ko', DelaySeconds: 901 },
        ],
      }),
    );
    expect(lot.Successful?.map((s) => s.Id)).toEqual(['bon']);
    expect(lot.Failed).toEqual([expect.objectContaining({ Id: 'mauvais', SenderFault: true, Code: 'InvalidParameterValue' })]);
    expect(sqs.messages('Existe').map((m) => m.corps)).toEqual(['ok']);

    const inconnueAction = await fetch(sqs.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.PurgeQueue' },
      body: JSON.stringify({ QueueUrl: url }),
    });
    expect(inconnueAction.status).toBe(400);
    expect(((await inconnueAction.json()) as { __type: string }).__type).toBe('com.amazonaws.sqs#UnsupportedOperation');
  });
});
