/**
 * What each function of the local stack (local/pile.ts) is given as its dependencies. The handlers
 * are built before the dependencies exist (the links need the gateway's port), so they get a provider,
 * filled once the stack is up. With a recorder, each function gets its own recorded clients, as each
 * has its own role on AWS (test/integration/iam.test.ts); without one, all share one set.
 */
import type { DependancesPipeline } from '../lambdas/pipeline/dependances-pipeline';
import { dependancesEnregistrees, type EnregistreurIam, type FabriquesClients } from './enregistreur-iam';

export type FournisseurDependances = ReturnType<typeof fournisseurDependances>;

export const fournisseurDependances = (enregistreur: EnregistreurIam | undefined) => {
  let deps!: DependancesPipeline;
  let clients!: FabriquesClients;
  const fournir = async () => deps;
  const parFonction = new Map<string, DependancesPipeline>();
  /** `fonction`: its construct path in lib/ ('Api/TravauxCreer', 'Flux/Outil', …). */
  const depsDe = (fonction: string): DependancesPipeline => {
    if (!enregistreur) return deps;
    let d = parFonction.get(fonction);
    if (!d) {
      d = dependancesEnregistrees(deps, fonction, clients, enregistreur);
      parFonction.set(fonction, d);
    }
    return d;
  };
  return {
    depsDe,
    /** What a handler is built with: it is called only once the stack is up. */
    fournirPour: (fonction: string) => (enregistreur ? async () => depsDe(fonction) : fournir),
    /** The stack's dependencies, and the clients a recorded function gets its own of. */
    definir: (d: DependancesPipeline, c: FabriquesClients) => {
      deps = d;
      clients = c;
    },
  };
};
