/** Step "Rembourser" (the Catch branch): the job is `echec` with its `erreur`, and refunded exactly once. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { erreurDepuisEchec, rembourserTravail, type DepsFin } from '../core/domaine/cycle';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { compterRemboursement } from '../core/infra/mesures';
import { etape } from './etape';

export const creer = (deps: () => Promise<DepsFin>) =>
  etape(deps, 'rembourser', async (etat, d) => {
    const { lot_a_finaliser, rembourse } = await rembourserTravail(d, etat.travail, erreurDepuisEchec(etat.echec), { tentative: etat.tentative });
    if (rembourse) compterRemboursement(etat.outil);
    return { lot_a_finaliser };
  });
// DynamoDB and the webhook queue (`travail.fini`).
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, sqs: () => new SQSClient({}) }));
