/**
 * The local SQS's state (local/sqs.ts): its queues and their messages in memory, with the rules SQS
 * keeps on them whoever asks (a request or the event source mapping): a message's delay and
 * visibility, the end of a batch (what succeeded is gone), the redrive policy's move to a
 * dead-letter queue. Neither the wire format nor the timers are here.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSMessageAttributes } from 'aws-lambda';

export interface OptionsFile {
  /** The redrive policy's maxReceiveCount: receives after which the next one moves the message on. */
  maxReceptions?: number;
  /** Queue name of the dead-letter queue (created before); without it, a message received too often is dropped. */
  fileEchec?: string;
  /** Visibility timeout, in ms (default 2000: locally a failed delivery need not wait SQS's 30 s). */
  visibiliteMs?: number;
}

/** Queue names and batch entry ids: the same rule on AWS. */
export const NOM_VALIDE = /^[A-Za-z0-9_-]{1,80}$/;

export interface Message {
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

export interface File {
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

/** A message as the protocol checked it, before it is in a queue. */
export interface MessageVerifie {
  corps: string;
  delaiSecondes: number;
  attributs: SQSMessageAttributes;
}

/** The queues, by name, of one local SQS. */
export interface EtatSqs {
  region: string;
  compte: string;
  files: Map<string, File>;
}

const md5 = (texte: string) => createHash('md5').update(texte, 'utf8').digest('hex');

export const creerEtatSqs = (region: string, compte: string): EtatSqs => ({ region, compte, files: new Map() });

export const fileNommee = (etat: EtatSqs, nom: string): File => {
  const file = etat.files.get(nom);
  if (!file) throw new Error(`local SQS: no queue ${nom}`);
  return file;
};

/** `endpoint`: the server's, which the queue's URL starts with. */
export const creerFile = (etat: EtatSqs, endpoint: string, nom: string, o?: OptionsFile): { url: string; arn: string } => {
  if (!NOM_VALIDE.test(nom)) throw new Error(`local SQS: ${nom} is no standard queue name (FIFO queues are not reproduced)`);
  if (etat.files.has(nom)) throw new Error(`local SQS: queue ${nom} exists`);
  if (o?.fileEchec !== undefined && !etat.files.has(o.fileEchec))
    throw new Error(`local SQS: queue ${nom}: no dead-letter queue ${o.fileEchec} (create it first)`);
  if (o?.maxReceptions !== undefined && !(Number.isInteger(o.maxReceptions) && o.maxReceptions >= 1))
    throw new Error(`local SQS: queue ${nom}: maxReceptions ${o.maxReceptions}`);
  const file: File = {
    nom,
    url: `${endpoint}/${etat.compte}/${nom}`,
    arn: `arn:aws:sqs:${etat.region}:${etat.compte}:${nom}`,
    maxReceptions: o?.maxReceptions,
    fileEchec: o?.fileEchec,
    visibiliteMs: o?.visibiliteMs ?? 2000,
    messages: [],
    lotsEnCours: 0,
  };
  etat.files.set(nom, file);
  return { url: file.url, arn: file.arn };
};

export const envoyer = (file: File, m: MessageVerifie) => {
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

/** Received once more, in a batch given to the consumer. */
export const recevoir = (file: File, lot: Message[]) => {
  const maintenant = Date.now();
  for (const m of lot) {
    m.enVol = true;
    m.receptions += 1;
    m.premiereReceptionMs ??= maintenant;
  }
  file.lotsEnCours += 1;
};

/** A batch's end: what succeeded is deleted (as Lambda deletes it), what failed waits out the visibility timeout. */
export const finirLot = (file: File, lot: Message[], echecs: Set<Message>) => {
  file.lotsEnCours -= 1;
  const visible = Date.now() + file.visibiliteMs;
  for (const m of lot) {
    m.enVol = false;
    m.visibleMs = visible;
  }
  file.messages = file.messages.filter((m) => !lot.includes(m) || echecs.has(m));
};

/** Received now, it would be moved to the dead-letter queue rather than given to the consumer. */
export const tropRecu = (file: File, m: Message) => file.maxReceptions !== undefined && m.receptions >= file.maxReceptions;

/** The redrive policy: the receive after the last allowed one moves the message on instead; the queue it went to, if any. */
export const deplacer = (etat: EtatSqs, file: File, m: Message): File | undefined => {
  file.messages = file.messages.filter((autre) => autre !== m);
  if (file.fileEchec === undefined) return undefined;
  const echec = fileNommee(etat, file.fileEchec);
  echec.messages.push({ ...m, enVol: false, visibleMs: Date.now(), arnSource: file.arn });
  return echec;
};

/** Nothing handled, nothing visible before `horizonMs` in a consumed queue: a queue without a consumer never counts. */
export const inactive = (etat: EtatSqs, horizonMs: number) => {
  const limite = Date.now() + horizonMs;
  for (const file of etat.files.values()) {
    if (!file.consommateur) continue;
    if (file.lotsEnCours > 0 || file.messages.some((m) => m.enVol || m.visibleMs <= limite)) return false;
  }
  return true;
};

export const messages = (etat: EtatSqs, nomFile: string) =>
  fileNommee(etat, nomFile).messages.map((m) => ({ id: m.id, corps: m.corps, receptions: m.receptions }));
