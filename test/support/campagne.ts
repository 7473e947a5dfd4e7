/**
 * A fault campaign, seeded so that a failure replays: the requests, and whether each call of each
 * step of each job faults and how, are a function of the seed alone (a hash of the seed, the job's
 * name, the step and the call's rank), whatever order concurrent calls come in. Only the instant the
 * stack is stopped depends on timing. The campaign: many requests on several accounts, and at
 * every step — the debit, the start, each task of the state machine — a random fault now and then:
 * a transient error, an answer lost after the work was done, a timeout, a permanent error, an
 * execution lost with its process; and once, the whole stack stopped mid-flight and started again on
 * the same data. Then the sweeper runs (its clock moved forward as time would pass) until nothing is
 * open, and the invariant is read from the records (invariant.ts).
 *
 * Used by test/integration/pannes.test.ts (a small campaign) and bench/pannes.ts (a large one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { creerCompte } from '../../lambdas/core/domaine/comptes';
import { balayer, type BilanBalayage } from '../../lambdas/core/domaine/balayage';
import type { Dependances } from '../../lambdas/core/infra/dependances';
import { ErreurApi, ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { lancer } from '../../lambdas/core/domaine/lancement';
import { lire as lireEnregistrementTravail } from '../../lambdas/core/depots/travaux';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { detecteurCouleurs } from '../../lambdas/moteurs/local/detecteur-local';
import { demarrerPile, type Pile } from '../../local/pile';
import type { Panne } from '../../local/stepfunctions';
import { imageTest } from './images';
import { travailOuvert, verifierInvariant, type Ecarts } from './invariant';

/** mulberry32: a small seeded generator, so that a campaign replays exactly from its seed. */
export const generateur = (graine: number) => {
  let a = graine >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A number in [0, 1) fixed by the seed and a key: the same decision whatever the order of calls. */
export const tirage = (graine: number, cle: string): number => createHash('sha256').update(`${graine}:${cle}`).digest().readUInt32BE(0) / 4294967296;

export type SortePanne = 'transitoire' | 'reponse_perdue' | 'delai' | 'permanente' | 'perte';
export const SORTES: readonly SortePanne[] = ['transitoire', 'reponse_perdue', 'delai', 'permanente', 'perte'];

const nommee = (nom: string, message: string): Error => Object.assign(new Error(message), { name: nom });

/** What each kind of fault looks like to Step Functions, as AWS reports it. */
export const panneDe = (sorte: SortePanne, etat: string): Panne => {
  switch (sorte) {
    case 'transitoire':
      return { quand: 'avant', erreur: nommee('Lambda.ServiceException', 'Injected: Lambda service error') };
    case 'reponse_perdue':
      return { quand: 'apres', erreur: nommee('erreur_transitoire', 'Injected: the answer was lost after the work was done') };
    case 'delai':
      // A Lambda timeout reaches Step Functions as Lambda.Unknown; the work may or may not be done.
      return { quand: 'apres', erreur: nommee('Lambda.Unknown', 'Injected: Task timed out after 300.00 seconds') };
    case 'permanente':
      return {
        quand: 'avant',
        erreur: etat === 'Outil' ? new ErreurTravail('contenu_refuse') : new ErreurTravail('erreur_interne', 'Injected: permanent failure'),
      };
    case 'perte':
      return { quand: 'perte' };
  }
};

export interface OptionsCampagne {
  graine: number;
  comptes: number;
  requetesParCompte: number;
  /** Probability of a fault at each call of each step. */
  probabilite: number;
  /** Simulated model time per job, so that work is in flight when the stack is stopped. */
  delaiMoteurMs?: number;
  dynamoEndpoint: string;
}

export interface BilanCampagne {
  graine: number;
  requetes: number;
  refusees: number;
  pannes: Record<string, number>;
  passes: number;
  balayages: BilanBalayage[];
  ecarts: Ecarts;
  dureeMs: number;
}

const CREDITS = 1000;

export const lancerCampagne = async (o: OptionsCampagne): Promise<BilanCampagne> => {
  const debut = Date.now();
  const aleatoire = generateur(o.graine);
  const pannes: Record<string, number> = {};
  const compter = (cle: string) => (pannes[cle] = (pannes[cle] ?? 0) + 1);
  const dossier = mkdtempSync(join(tmpdir(), 'retouche-campagne-'));
  const table = `retouche-campagne-${randomUUID()}`;
  let panneActive = true;
  /** Calls so far per key (a job's step, a request's debit): the rank is part of the decision. */
  const rangs = new Map<string, number>();
  const decider = (cle: string): number | undefined => {
    const rang = rangs.get(cle) ?? 0;
    rangs.set(cle, rang + 1);
    const x = tirage(o.graine, `${cle}#${rang}`);
    return panneActive && x < o.probabilite ? x / o.probabilite : undefined;
  };
  /** A job's stable name: its account's rank and the image's name (r<request>-<image>.jpg). */
  const indexComptes = new Map<string, number>();
  const nomStable = async (travail: string | undefined): Promise<string> => {
    const t = travail ? await lireEnregistrementTravail(pile.deps, travail) : undefined;
    return `${indexComptes.get(t?.compte ?? '') ?? '?'}/${t?.nom ?? t?.outil ?? '?'}`;
  };

  const injecteur = async (etat: string, entree: { travail?: string }): Promise<Panne | undefined> => {
    const x = decider(`${await nomStable(entree.travail)}:${etat}`);
    if (x === undefined) return undefined;
    const sorte = SORTES[Math.floor(x * SORTES.length)]!;
    compter(`${etat}:${sorte}`);
    return panneDe(sorte, etat);
  };
  const demarrer = () =>
    demarrerPile({
      port: 0,
      dossier,
      dynamoEndpoint: o.dynamoEndpoint,
      table,
      pauseReessaiMs: 2,
      intervalleBalayageMs: 0,
      moteur: creerMoteurLocal({ delaiMs: o.delaiMoteurMs ?? 5, detecteur: detecteurCouleurs }),
      panne: injecteur,
    });

  let pile: Pile = await demarrer();
  try {
    const comptes = await Promise.all(Array.from({ length: o.comptes }, () => creerCompte(pile.deps, CREDITS)));
    const images = await Promise.all([0, 1, 2, 3].map((i) => imageTest(i)));

    comptes.forEach((c, i) => indexComptes.set(c.compte, i));
    type Commande = { constructor: { name: string }; input: { input?: string } };
    /** A client whose chosen calls fail now and then: before reaching the service, or after it did the work. */
    const avecPanne = <C extends object>(client: C, quoi: string, cleDe: (c: Commande) => Promise<string | undefined>, avant: Error, apres: Error): C =>
      new Proxy(client, {
        get(cible, p, r) {
          if (p !== 'send') return Reflect.get(cible, p, r);
          const envoyer = (c: Commande, options?: unknown) => (cible as unknown as { send: (c: Commande, o?: unknown) => Promise<unknown> }).send(c, options);
          return async (commande: Commande, options?: unknown) => {
            const cle = await cleDe(commande);
            const x = cle === undefined ? undefined : decider(cle);
            if (x === undefined) return envoyer(commande, options);
            if (x < 0.5) {
              compter(`${quoi}:avant`);
              throw avant;
            }
            compter(`${quoi}:reponse_perdue`);
            await envoyer(commande, options);
            throw apres;
          };
        },
      });
    // The debit and the start go through clients that fail now and then.
    const avecPannes = (d: Dependances, etiquette: string): Dependances => ({
      ...d,
      ddb: avecPanne(
        d.ddb,
        'debit',
        async (c) => (c.constructor.name === 'TransactWriteCommand' ? `${etiquette}:debit` : undefined),
        nommee('NetworkingError', 'Injected: connection reset before the debit'),
        nommee('TimeoutError', 'Injected: the debit committed but its answer was lost'),
      ),
      sfn: avecPanne(
        d.sfn,
        'demarrage',
        async (c) => {
          if (c.constructor.name !== 'StartExecutionCommand') return undefined;
          return `${await nomStable((JSON.parse(c.input.input ?? '{}') as { travail?: string }).travail)}:demarrage`;
        },
        nommee('ServiceUnavailable', 'Injected: StartExecution unavailable'),
        nommee('TimeoutError', 'Injected: the execution started but the answer was lost'),
      ),
    });

    // The requests, drawn in order from the seed before anything runs.
    const plan = comptes.flatMap((c, rangCompte) =>
      Array.from({ length: o.requetesParCompte }, (_, r) => {
        const sorte = aleatoire();
        const n = sorte < 0.4 ? 1 : 2 + Math.floor(aleatoire() * 3);
        const outil = sorte < 0.9 ? (aleatoire() < 0.5 ? 'ciel' : 'vider') : 'annonce';
        const etiquette = `${rangCompte}/r${r}`;
        const corps =
          outil === 'annonce'
            ? { outil, valeurs: { lieu: 'Gent' }, images: [{ base64: images[0]!.toString('base64') }] }
            : { outil, images: Array.from({ length: n }, (_, i) => ({ base64: images[i % images.length]!.toString('base64'), nom: `r${r}-${i}.jpg` })) };
        return { compte: c.compte, etiquette, corps, cle: aleatoire() < 0.5 ? `cle-${etiquette}` : undefined };
      }),
    );
    let refusees = 0;
    const envoyer = async (requete: (typeof plan)[number]) => {
      try {
        await lancer(avecPannes(pile.deps, requete.etiquette), {
          compte: requete.compte,
          contentType: 'application/json',
          corps: Buffer.from(JSON.stringify(requete.corps)),
          cleIdempotence: requete.cle,
        });
      } catch (erreur) {
        // A refused request must have charged nothing: the invariant checks it.
        if (!(erreur instanceof ErreurApi) && (erreur as Error).name !== 'NetworkingError') throw erreur;
        refusees++;
      }
    };

    // Half of the requests, then the stack dies mid-flight and starts again on the same data.
    const moitie = plan.filter((_, i) => i % 2 === 0);
    await Promise.all(moitie.map(envoyer));
    await new Promise((r) => setTimeout(r, 5 + aleatoire() * 30));
    compter('processus:arret');
    await pile.arreter();
    pile = await demarrer();
    await Promise.all(plan.filter((_, i) => i % 2 === 1).map(envoyer));
    const requetes = plan.length;

    // The sweeper, as time passes: each pass sees the clock 13 minutes further (ZIP claims expire).
    const balayages: BilanBalayage[] = [];
    let passes = 0;
    for (; passes < 12; passes++) {
      await pile.attendreInactivite();
      if ((await travailOuvert(pile.deps)) === 0) break;
      if (passes === 8) panneActive = false; // long enough: let the last runs go through clean
      const decalage = passes * 13 * 60_000;
      balayages.push(await balayer({ ...pile.deps, horloge: () => new Date(Date.now() + decalage) }, { ageMinimumMs: 0 }));
    }
    panneActive = false;
    await pile.attendreInactivite();
    const ecarts = await verifierInvariant(
      pile.deps,
      comptes.map((c) => ({ compte: c.compte, accordes: CREDITS })),
    );
    return { graine: o.graine, requetes, refusees, pannes, passes, balayages, ecarts, dureeMs: Date.now() - debut };
  } finally {
    await pile.attendreInactivite().catch(() => undefined);
    await pile.arreter();
    rmSync(dossier, { recursive: true, force: true });
  }
};

/** One line per figure, for the test's output and the benchmark. */
export const resumer = (b: BilanCampagne): string => {
  const total = Object.values(b.pannes).reduce((s, n) => s + n, 0);
  const reprises = b.balayages.reduce(
    (s, x) => ({
      demarres: s.demarres + x.demarres,
      relances: s.relances + x.relances,
      rembourses: s.rembourses + x.rembourses,
      lots: s.lots + x.lotsFinalises,
    }),
    { demarres: 0, relances: 0, rembourses: 0, lots: 0 },
  );
  return [
    `seed ${b.graine}: ${b.requetes} requests (${b.refusees} refused, charged nothing), ${b.ecarts.travaux} jobs (${b.ecarts.termines} termine, ${b.ecarts.echecs} echec refunded), ${b.ecarts.lots} batches`,
    `faults injected: ${total} — ${Object.entries(b.pannes)
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `sweeper: ${b.passes} passes; started ${reprises.demarres}, ran again ${reprises.relances}, refunded ${reprises.rembourses}, closed ${reprises.lots} batches`,
    `drift = ${b.ecarts.derive}${b.ecarts.problemes.length ? `: ${b.ecarts.problemes.slice(0, 5).join('; ')}` : ''} (${(b.dureeMs / 1000).toFixed(1)} s)`,
  ].join('\n');
};
