/**
 * Work of the image tools split between this thread and one worker thread: the full-size passes over an
 * image's rows (a merge's finest band and final assembly, a frame's replaced pixels, straightening and
 * light), and whole computations (a photo's pyramid, each pair's alignment, each photo's ghosts).
 *
 * Why: those are plain JS loops, and JS runs on one thread. libvips works on its own threads beside it
 * (a frame's warp, a resize), but measured on `fusion` with 5 × 24 MP brackets on 2 cores, the process
 * used 1.4 cores on average: 12.5 s of CPU over 9 s of wall time, the main thread busy 95 % of the merge.
 * Shared this way, the same brackets take about 1 s less (docs/engines.md, "fusion").
 *
 * How:
 * - A pass is a kernel (`noyau`), a function of (parameters, first row, end row); its rows are cut into
 *   bands that this thread and the worker take in turn from a shared counter (`parRangees`). When the
 *   worker is busy with a task, this thread takes every band rather than wait. A row's value does not
 *   depend on which thread computed it.
 * - A task (`tache`) runs whole on the worker while this thread goes on (`aCote`), or a stage's independent
 *   ones are dealt between the two (`repartir`). The worker runs tasks in the order they are sent, so
 *   two that add into the same sums add in a fixed order, whatever the timing.
 * - Both are registered by name in their own modules; the worker (parallele-travailleur.ts) imports those
 *   modules, so it runs the same code. Parameters go by structured clone: typed arrays over a
 *   SharedArrayBuffer are shared, any other is copied, so what a kernel or task writes (its `sorties`)
 *   must be shared, or the worker would write into a copy: checked at every call. Big inputs should be
 *   shared too (`partagee`, `flottants`; fusion's planes are), or they are copied at every call.
 *
 * One worker per process, started at the first call (or by `preparer`, so that it boots while the photos
 * decode), and not holding the process open while idle. Same on the local and production engines.
 */
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, Worker } from 'node:worker_threads';

export interface Noyau<P> {
  readonly nom: string;
  /** The parameters the kernel writes into (typed arrays over a SharedArrayBuffer). */
  readonly sorties: readonly (keyof P & string)[];
  /** Rows [debut, fin) of the pass. */
  readonly rangees: (p: P, debut: number, fin: number) => void;
}

type Rangees = (p: never, debut: number, fin: number) => unknown;
const registre = new Map<string, Rangees>();

/** Declares a kernel; its module must be imported by parallele-travailleur.ts for the worker to know it. */
export const noyau = <P>(nom: string, sorties: Noyau<P>['sorties'], rangees: Noyau<P>['rangees']): Noyau<P> => {
  registre.set(nom, rangees as Rangees);
  return { nom, sorties, rangees };
};

/** A whole computation the worker can run (`aCote`, `repartir`), its result sent back by structured clone. */
export interface Tache<P, R> {
  readonly nom: string;
  readonly sorties: readonly (keyof P & string)[];
  readonly executer: (p: P) => R;
}

/** Declares a task; like a kernel, its module must be imported by parallele-travailleur.ts. */
export const tache = <P, R>(nom: string, sorties: Tache<P, R>['sorties'], executer: Tache<P, R>['executer']): Tache<P, R> => {
  registre.set(nom, ((p: P) => executer(p)) as Rangees);
  return { nom, sorties, executer };
};

/** `n` floats over a SharedArrayBuffer: a plane the worker reads or writes without a copy. */
export const flottants = (n: number): Float32Array => new Float32Array(new SharedArrayBuffer(n * 4));

/** A shared copy of `t` (or `t` itself when already shared): an input sent to many calls, copied once. */
export const partagee = <T extends Uint8Array | Uint16Array | Float32Array>(t: T): T => {
  if (t.buffer instanceof SharedArrayBuffer) return t;
  const memoire = new SharedArrayBuffer(t.byteLength);
  // A Buffer stays a Buffer (its constructor is deprecated); the others by their own constructor.
  const copie = Buffer.isBuffer(t) ? Buffer.from(memoire) : new (t.constructor as new (b: SharedArrayBuffer) => T)(memoire);
  copie.set(t as never);
  return copie as T;
};

/** Bands of a pass: enough that neither thread waits long for the other at the end, few enough to cost nothing. */
const BANDES = 32;

/**
 * What the worker is sent: a task (`aCote`, `repartir`), or a kernel's bands to take from `compteurs`
 * ([next band to take, bands done]) with this thread (`parRangees`, `fin` its height).
 */
interface Message {
  id: number;
  nom: string;
  params: unknown;
  fin: number;
  compteurs?: Int32Array;
}
interface Reponse {
  id: number;
  valeur?: unknown;
  erreur?: { message: string; stack?: string };
}

/** Takes bands of rows [0, hauteur) from `compteurs` until none is left; how many this thread did. */
const prendreBandes = (rangees: Rangees, params: unknown, hauteur: number, compteurs: Int32Array): number => {
  const bandes = Math.min(BANDES, hauteur);
  let faites = 0;
  for (let b = Atomics.add(compteurs, 0, 1); b < bandes; b = Atomics.add(compteurs, 0, 1)) {
    rangees(params as never, Math.floor((b * hauteur) / bandes), Math.floor(((b + 1) * hauteur) / bandes));
    Atomics.add(compteurs, 1, 1);
    faites++;
  }
  return faites;
};

/**
 * The worker's garbage collector, run after each task. The worker allocates next to nothing, so its
 * collector would rarely run, and until it does, the shared planes of past calls stay alive through the
 * worker's copies of their handles: measured on 5 × 24 MP, 450 MB more at the fourth frame. Its heap is
 * a few MB, so a collection costs a millisecond or two.
 */
const collecter = (): (() => void) => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
};

/** The worker's loop (parallele-travailleur.ts calls it once its kernels are registered). */
export const servir = (): void => {
  const gc = collecter();
  parentPort!.on('message', ({ id, nom, params, fin, compteurs }: Message) => {
    try {
      const rangees = registre.get(nom);
      if (!rangees) throw new Error(`${nom} is not known to the worker: import its module in ${MODULE_TRAVAILLEUR}.ts`);
      if (compteurs) prendreBandes(rangees, params, fin, compteurs);
      const valeur = compteurs ? undefined : rangees(params as never, 0, fin);
      parentPort!.postMessage({ id, valeur } satisfies Reponse);
    } catch (e) {
      const erreur = e instanceof Error ? { message: e.message, ...(e.stack ? { stack: e.stack } : {}) } : { message: String(e) };
      parentPort!.postMessage({ id, erreur } satisfies Reponse);
    } finally {
      // Once this handler has returned, so that the task's own handles are gone too.
      setImmediate(gc);
    }
  });
};

/** The worker's module's name, beside this one; the bundles' entry point of that name too (lib/fonction.ts). */
export const MODULE_TRAVAILLEUR = 'parallele-travailleur';

/**
 * The worker's module: the TypeScript source when this module runs from source (tsx, vitest), the
 * bundle's own entry point once bundled (lib/fonction.ts), beside index.mjs, whether this code landed
 * in index.mjs or in a chunk one folder down.
 */
const moduleTravailleur = (): { url: URL; execArgv?: string[] } => {
  const source = new URL(`./${MODULE_TRAVAILLEUR}.ts`, import.meta.url);
  if (existsSync(source)) {
    const avecTsx = process.execArgv.some((a) => a.includes('tsx'));
    return { url: source, execArgv: avecTsx ? process.execArgv : [...process.execArgv, '--import', 'tsx'] };
  }
  for (const dossier of ['./', '../']) {
    const url = new URL(`${dossier}${MODULE_TRAVAILLEUR}.mjs`, import.meta.url);
    if (existsSync(url)) return { url };
  }
  throw new Error(`${MODULE_TRAVAILLEUR} not found beside ${import.meta.url}`);
};

let travailleur: Worker | null = null;
let suivant = 0;
const attentes = new Map<number, { resoudre: (valeur: unknown) => void; rejeter: (e: Error) => void }>();

const echec = (e: Error): void => {
  travailleur = null;
  for (const a of attentes.values()) a.rejeter(e);
  attentes.clear();
};

const demarrer = (): Worker => {
  if (travailleur) return travailleur;
  const { url, execArgv } = moduleTravailleur();
  const w = new Worker(url, execArgv ? { execArgv } : {});
  w.on('message', ({ id, valeur, erreur }: Reponse) => {
    const a = attentes.get(id);
    attentes.delete(id);
    if (attentes.size === 0) w.unref();
    if (!a) return;
    if (!erreur) return a.resoudre(valeur);
    const e = new Error(erreur.message);
    if (erreur.stack) e.stack = erreur.stack;
    a.rejeter(e);
  });
  w.on('error', (e) => w === travailleur && echec(e));
  w.on('exit', (code) => w === travailleur && echec(new Error(`the worker thread exited (code ${code})`)));
  w.unref();
  travailleur = w;
  return w;
};

/** Starts the worker now, so that it has booted by the first pass. */
export const preparer = (): void => void demarrer();

/** Whether every typed array in `v` (a typed array, or arrays and objects of them) is over a SharedArrayBuffer. */
const partageTout = (v: unknown): boolean => {
  if (ArrayBuffer.isView(v)) return v.buffer instanceof SharedArrayBuffer;
  if (v === null || typeof v !== 'object') return true;
  return Object.values(v).every(partageTout);
};

const verifierSorties = <P>(n: { nom: string; sorties: readonly (keyof P & string)[] }, p: P): void => {
  for (const cle of n.sorties) {
    if (!partageTout(p[cle])) {
      throw new Error(`kernel ${n.nom}: output ${cle} must be typed arrays over a SharedArrayBuffer, or the worker writes into a copy`);
    }
  }
};

const envoyer = <R>(message: Omit<Message, 'id'>): Promise<R> => {
  const w = demarrer();
  const id = suivant++;
  const fait = new Promise<R>((resoudre, rejeter) => attentes.set(id, { resoudre: resoudre as (v: unknown) => void, rejeter }));
  w.ref();
  w.postMessage({ id, ...message } satisfies Message);
  return fait;
};

/** Bands of `n`'s rows done on the worker since the process started (tests check that the work is shared). */
let bandesAilleurs = 0;
export const bandesDuTravailleur = (): number => bandesAilleurs;

/**
 * Rows [0, hauteur) of `n`, in bands taken by this thread and the worker from one counter; done when every
 * band is. A band the worker took is waited for; the worker's message, when it comes after this thread has
 * done them all (the worker was busy), finds none left.
 */
export const parRangees = async <P>(n: Noyau<P>, p: P, hauteur: number): Promise<void> => {
  verifierSorties(n, p);
  const compteurs = new Int32Array(new SharedArrayBuffer(8));
  const bandes = Math.min(BANDES, hauteur);
  const ouvrier = envoyer<void>({ nom: n.nom, params: p, fin: hauteur, compteurs });
  let ici = 0;
  try {
    ici = prendreBandes(n.rangees as Rangees, p, hauteur, compteurs);
  } catch (e) {
    // Nothing may still write after the call returns: the worker's bands are waited for first.
    await ouvrier.catch(() => undefined);
    throw e;
  }
  if (Atomics.load(compteurs, 1) === bandes) {
    ouvrier.catch(() => undefined);
    return;
  }
  await ouvrier;
  bandesAilleurs += bandes - ici;
};

/**
 * `t` on the worker, while this thread goes on: the caller must not touch what it writes before the
 * promise settles. Tasks run in the order they are sent, so two that write the same sums add in a fixed
 * order and the result does not depend on timing.
 */
export const aCote = <P, R>(t: Tache<P, R>, p: P): Promise<R> => {
  verifierSorties(t, p);
  return envoyer<R>({ nom: t.nom, params: p, fin: 0 });
};

/**
 * `t` for each of `liste`, every other one on the worker, the rest here meanwhile; the results in order.
 * For independent computations of one stage (each photo's ghosts, each pair's alignment).
 */
export const repartir = async <P, R>(t: Tache<P, R>, liste: readonly P[]): Promise<R[]> => {
  const ailleurs = new Map<number, Promise<R>>();
  for (let i = 1; i < liste.length; i += 2) {
    const r = aCote(t, liste[i]!);
    // Handled now (awaited below, in order): one that fails while an earlier one is awaited is not unhandled.
    r.catch(() => undefined);
    ailleurs.set(i, r);
  }
  const resultats: R[] = [];
  try {
    liste.forEach((p, i) => i % 2 === 0 && (resultats[i] = t.executer(p)));
  } catch (e) {
    // Nothing may still run after the call returns: the worker's are waited for first.
    await Promise.allSettled(ailleurs.values());
    throw e;
  }
  for (const [i, r] of ailleurs) resultats[i] = await r;
  return resultats;
};
