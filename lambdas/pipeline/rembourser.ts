/** Step "Rembourser" (the Catch branch): the job is `echec` with its `erreur`, and refunded exactly once. */
import { erreurDepuisEchec, rembourserTravail } from '../core/cycle';
import { dependancesDepuisEnv, type Dependances } from '../core/dependances';
import { compterRemboursement } from '../core/mesures';
import { etape } from './etape';

export const creer = (deps: () => Promise<Dependances>) =>
  etape(deps, 'rembourser', async (etat, d) => {
    const { lot_a_finaliser, rembourse } = await rembourserTravail(d, etat.travail, erreurDepuisEchec(etat.echec), etat.tentative);
    if (rembourse) compterRemboursement(etat.outil);
    return { lot_a_finaliser };
  });
export const handler = creer(() => dependancesDepuisEnv());
