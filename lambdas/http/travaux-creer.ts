/**
 * POST /travaux — starts a job or a batch (JSON or multipart). The answer must leave before the
 * function's own timeout (20 s, under API Gateway's 29 s): the launch gets that deadline, less the
 * time to send the answer, and never commits a debit it could not answer for (facturation.ts).
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { objetsDepuisEnv } from '../core/infra/objets';
import { dependancesAvec } from '../core/infra/dependances';
import { ENTETE_SOURCE, sourceDesTravaux } from '../core/domaine/comptes';
import { lancer, type DepsLancement } from '../core/domaine/lancement';
import { langueDemandee } from '../core/contrat/langue';
import { apercuDeLaPile, coutsDeLaPile, outilsOfferts } from '../core/modele/outils';
import { entete, reponseJson } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';

/** What this stage offers, read once per container. */
const OUTILS = outilsOfferts();

/** Time to serialise and send the answer once the work is done. */
const MARGE_REPONSE_MS = 1_000;

/** `env`: the stage's engine (RETOUCHE_MOTEUR) and prices (RETOUCHE_COUTS), read once per container like the rest. */
export const creer = (deps: FournisseurDeps<DepsAuthentification & DepsLancement>, env: NodeJS.ProcessEnv = process.env) => {
  const apercu = apercuDeLaPile(env);
  const couts = coutsDeLaPile(env);
  return routeAuthentifiee(deps, async ({ event, contexte, d, appelant }) => {
    const lancement = await lancer(d, {
      echeance: Date.now() + contexte.getRemainingTimeInMillis() - MARGE_REPONSE_MS,
      compte: appelant.compte,
      contentType: entete(event, 'content-type'),
      corps: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
      cleIdempotence: entete(event, 'idempotency-key'),
      outils: OUTILS,
      source: sourceDesTravaux(appelant, entete(event, ENTETE_SOURCE)),
      ...(appelant.test ? { test: true } : {}),
      apercu,
      couts,
      langue: langueDemandee(entete(event, 'accept-language')),
    });
    return reponseJson(202, lancement);
  });
};
// DynamoDB, S3 (inputs) and Step Functions; no link secret: a job just created has nothing to link to.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, objets: objetsDepuisEnv, sfn: () => new SFNClient({}) }));
