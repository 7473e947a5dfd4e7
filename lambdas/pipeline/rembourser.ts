/** Step "Rembourser" (the Catch branch): the job is `echec` with its `erreur`, and refunded exactly once. */
import { erreurDepuisEchec, rembourserTravail } from '../core/domaine/cycle';
import { dependancesDepuisEnv } from '../core/infra/dependances-completes';
import type { Dependances } from '../core/infra/dependances';
import { compterRemboursement } from '../core/infra/mesures';
import { etape } from './etape';

export const creer = (deps: () => Promise<Dependances>) =>
  etape(deps, 'rembourser', async (etat, d) => {
    const { lot_a_finaliser, rembourse } = await rembourserTravail(d, etat.travail, erreurDepuisEchec(etat.echec), { tentative: etat.tentative });
    if (rembourse) compterRemboursement(etat.outil);
    return { lot_a_finaliser };
  });
export const handler = creer(() => dependancesDepuisEnv());
