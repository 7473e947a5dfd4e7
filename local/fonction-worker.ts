/**
 * One Lambda function of a synthesized template, run locally in its own worker thread: its bundled
 * asset (the directory CloudFormation would upload), its `Handler` resolved the way the Node.js
 * runtime resolves it (`index.handler` → index.js, .mjs or .cjs in the code root, export `handler`),
 * and its own environment (a worker's `process.env` is its own copy, as in a Lambda container).
 * The worker is plain CommonJS given as text, so no TypeScript loader is involved in running a bundle.
 */
import { Worker } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface OptionsFonctionWorker {
  /** Logical id in the template, also the local function name. */
  nom: string;
  /** Directory of the code (the asset, or its copy with the host's sharp). */
  racine: string;
  /** `Handler` of the template. */
  handler: string;
  env: Record<string, string>;
  memoireMo?: number;
  delaiSecondes?: number;
}

export interface FonctionWorker {
  nom: string;
  invoquer(evenement: unknown, contexte?: Partial<Pick<Context, 'getRemainingTimeInMillis'>>): Promise<unknown>;
  arreter(): Promise<void>;
}

/** What the runtime raises when the handler throws: the error's name is what Step Functions' Retry and Catch match. */
export class ErreurFonction extends Error {}

const CODE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
let handler;
const charger = async () => {
  const point = workerData.handler.lastIndexOf('.');
  const module = workerData.handler.slice(0, point);
  const nom = workerData.handler.slice(point + 1);
  const base = path.join(workerData.racine, module);
  const fichier = ['.js', '.mjs', '.cjs'].map((e) => base + e).find((f) => existsSync(f));
  if (point < 1 || !fichier) {
    const e = new Error("Cannot find module '" + module + "'");
    e.name = 'Runtime.ImportModuleError';
    throw e;
  }
  const charge = await import(pathToFileURL(fichier).href);
  handler = charge[nom];
  if (typeof handler !== 'function') {
    const e = new Error(workerData.handler + ' is undefined or not exported');
    e.name = 'Runtime.HandlerNotFound';
    throw e;
  }
};
charger().then(
  () => parentPort.postMessage({ type: 'pret' }),
  (e) => parentPort.postMessage({ type: 'echec', erreur: { name: (e && e.name) || 'Error', message: String((e && e.message) || e) } }),
);
parentPort.on('message', async ({ id, evenement, contexte }) => {
  const fin = Date.now() + contexte.restantMs;
  const ctx = { ...contexte, getRemainingTimeInMillis: () => Math.max(0, fin - Date.now()), done() {}, fail() {}, succeed() {} };
  try {
    const resultat = await handler(JSON.parse(evenement), ctx);
    parentPort.postMessage({ id, ok: true, resultat: resultat === undefined ? undefined : JSON.stringify(resultat) });
  } catch (e) {
    parentPort.postMessage({ id, ok: false, erreur: { name: (e && e.name) || 'Error', message: String((e && e.message) || e) } });
  }
});
`;

export const demarrerFonctionWorker = async (o: OptionsFonctionWorker): Promise<FonctionWorker> => {
  const worker = new Worker(CODE_WORKER, { eval: true, env: o.env, workerData: { racine: o.racine, handler: o.handler } });
  const enAttente = new Map<string, { ok: (v: unknown) => void; ko: (e: Error) => void }>();
  let pret!: () => void;
  let echec!: (e: Error) => void;
  const charge = new Promise<void>((ok, ko) => ((pret = ok), (echec = ko)));
  worker.on('message', (m: { type?: string; id?: string; ok?: boolean; resultat?: string; erreur?: { name: string; message: string } }) => {
    if (m.type === 'pret') return pret();
    if (m.type === 'echec') return echec(Object.assign(new Error(`${o.nom}: ${m.erreur!.name}: ${m.erreur!.message}`), { name: m.erreur!.name }));
    const attente = enAttente.get(m.id!);
    if (!attente) return;
    enAttente.delete(m.id!);
    if (m.ok) attente.ok(m.resultat === undefined ? null : JSON.parse(m.resultat));
    else attente.ko(Object.assign(new ErreurFonction(m.erreur!.message), { name: m.erreur!.name }));
  });
  worker.on('error', (e) => {
    echec(e);
    for (const a of enAttente.values()) a.ko(e);
    enAttente.clear();
  });
  try {
    await charge;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  return {
    nom: o.nom,
    invoquer: (evenement, contexte) =>
      new Promise((ok, ko) => {
        const id = randomUUID();
        enAttente.set(id, { ok, ko });
        worker.postMessage({
          id,
          // A Lambda only ever sees JSON.
          evenement: JSON.stringify(evenement ?? null),
          contexte: {
            awsRequestId: randomUUID(),
            functionName: o.nom,
            functionVersion: '$LATEST',
            invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${o.nom}`,
            memoryLimitInMB: String(o.memoireMo ?? 128),
            logGroupName: `/aws/lambda/${o.nom}`,
            logStreamName: 'local',
            callbackWaitsForEmptyEventLoop: false,
            restantMs: contexte?.getRemainingTimeInMillis?.() ?? (o.delaiSecondes ?? 3) * 1000,
          },
        });
      }),
    arreter: async () => {
      await worker.terminate();
    },
  };
};
