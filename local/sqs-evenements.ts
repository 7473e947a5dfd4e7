/**
 * The local SQS's event source (local/sqs.ts): the event source mapping Lambda runs in front of a
 * queue. It gives visible messages to the consumer as the SQSEvent Lambda builds, in batches, as far as
 * its concurrency allows, reads its answer as Lambda does, and keeps a timer per queue for the next
 * message to become visible. The waiters of attendreInactivite are told of every change here.
 */
import { randomBytes } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { deplacer, fileNommee, inactive, recevoir, finirLot, tropRecu, type EtatSqs, type File, type Message } from './sqs-etat';

/** ScalingConfig.MaximumConcurrency's bounds on an event source mapping. */
const CONCURRENCE_MIN = 2;
const CONCURRENCE_MAX = 1000;

const enregistrement = (etat: EtatSqs, file: File, m: Message): SQSRecord => ({
  messageId: m.id,
  // A new one for each receive, as SQS gives.
  receiptHandle: randomBytes(48).toString('base64'),
  body: m.corps,
  attributes: {
    ApproximateReceiveCount: String(m.receptions),
    SentTimestamp: String(m.envoiMs),
    SenderId: etat.compte,
    ApproximateFirstReceiveTimestamp: String(m.premiereReceptionMs),
    ...(m.arnSource ? { DeadLetterQueueSourceArn: m.arnSource } : {}),
  },
  messageAttributes: structuredClone(m.attributs),
  md5OfBody: m.md5,
  eventSource: 'aws:sqs',
  eventSourceARN: file.arn,
  awsRegion: etat.region,
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

/** The event source of one local SQS: its queues, whether it stopped, and who waits for it to be idle. */
export interface SourceSqs {
  etat: EtatSqs;
  arrete: boolean;
  /** Each waiter of attendreInactivite checks again after any change (a batch settled, a message moved). */
  attentes: Set<() => void>;
}

export const creerSourceSqs = (etat: EtatSqs): SourceSqs => ({ etat, arrete: false, attentes: new Set() });

const signaler = (s: SourceSqs) => {
  for (const verifier of [...s.attentes]) verifier();
};

const livrer = (s: SourceSqs, file: File, lot: Message[]) => {
  const consommateur = file.consommateur!;
  recevoir(file, lot);
  const evenement: SQSEvent = { Records: lot.map((m) => enregistrement(s.etat, file, m)) };
  void (async () => consommateur.handler(evenement))().then(
    (reponse) => regler(s, file, lot, echecsDuLot(reponse, lot)),
    () => regler(s, file, lot, new Set(lot)),
  );
};

const regler = (s: SourceSqs, file: File, lot: Message[], echecs: Set<Message>) => {
  if (s.arrete) return;
  finirLot(file, lot, echecs);
  pomper(s, file);
};

/** What is visible now, in batches, as far as the consumer's concurrency allows. */
const livrerVisibles = (s: SourceSqs, file: File, consommateur: NonNullable<File['consommateur']>, sature: () => boolean) => {
  const maintenant = Date.now();
  let lot: Message[] = [];
  for (const m of [...file.messages]) {
    // Not received at all: no receive count up, no move to the dead-letter queue.
    if (sature()) break;
    if (m.enVol || m.visibleMs > maintenant) continue;
    if (tropRecu(file, m)) {
      const echec = deplacer(s.etat, file, m);
      if (echec) pomper(s, echec);
      continue;
    }
    lot.push(m);
    if (lot.length === consommateur.tailleLot) {
      livrer(s, file, lot);
      lot = [];
    }
  }
  if (lot.length > 0) livrer(s, file, lot);
};

/**
 * Delivers what is visible now, then waits for the next message to become visible; when every
 * batch allowed is in flight, for one to end.
 */
export const pomper = (s: SourceSqs, file: File) => {
  clearTimeout(file.minuteur);
  file.minuteur = undefined;
  if (s.arrete) return;
  const consommateur = file.consommateur;
  if (consommateur) {
    const sature = () => file.lotsEnCours >= consommateur.concurrenceMax;
    livrerVisibles(s, file, consommateur, sature);
    // Saturated, the next batch to end pumps (regler); a timer for the messages visible now would fire again and again.
    const prochain = sature() ? Infinity : Math.min(...file.messages.filter((m) => !m.enVol).map((m) => m.visibleMs));
    // Unref'd: a pending delay never keeps a process alive on its own.
    if (Number.isFinite(prochain)) file.minuteur = setTimeout(() => pomper(s, file), Math.max(0, prochain - Date.now())).unref();
  }
  signaler(s);
};

export const consommer = (
  s: SourceSqs,
  nomFile: string,
  handler: (event: SQSEvent) => Promise<unknown>,
  o?: { tailleLot?: number; concurrenceMax?: number },
) => {
  const file = fileNommee(s.etat, nomFile);
  if (file.consommateur) throw new Error(`local SQS: queue ${nomFile} has a consumer already`);
  const tailleLot = o?.tailleLot ?? 1;
  if (!Number.isInteger(tailleLot) || tailleLot < 1) throw new Error(`local SQS: batch size ${tailleLot}`);
  const concurrenceMax = o?.concurrenceMax ?? Infinity;
  if (concurrenceMax !== Infinity && !(Number.isInteger(concurrenceMax) && concurrenceMax >= CONCURRENCE_MIN && concurrenceMax <= CONCURRENCE_MAX))
    throw new Error(`local SQS: maximum concurrency ${concurrenceMax} (Lambda takes ${CONCURRENCE_MIN} to ${CONCURRENCE_MAX})`);
  file.consommateur = { handler, tailleLot, concurrenceMax };
  pomper(s, file);
};

export const attendreInactivite = (s: SourceSqs, horizonMs = 0) =>
  new Promise<void>((ok) => {
    const verifier = () => {
      if (!s.arrete && !inactive(s.etat, horizonMs)) return;
      s.attentes.delete(verifier);
      ok();
    };
    s.attentes.add(verifier);
    verifier();
  });

/** No more deliveries: timers cleared, the queues forgotten, every waiter released. */
export const arreter = (s: SourceSqs) => {
  s.arrete = true;
  for (const file of s.etat.files.values()) clearTimeout(file.minuteur);
  s.etat.files.clear();
  signaler(s);
};
