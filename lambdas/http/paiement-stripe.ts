/**
 * POST /paiements/stripe — Stripe's webhook: a paid Checkout Session of one of the stage's packs
 * credits the account it names, once, and a refund or dispute of its payment takes the credits back,
 * once (core/domaine/achats.ts). Public (Stripe has no key of ours): the body is trusted only once
 * its Stripe-Signature checks with the endpoint's signing secret. A 2xx tells
 * Stripe to stop sending the event, so everything that was handled or can never be (another event, a
 * link or account we do not know) is a 200, and only what may succeed later (our failure) is not:
 * Stripe then delivers again, for up to three days. A paid session that credits nobody is logged as
 * an error for an operator, who refunds it in Stripe; so is money given back whose credits no purchase
 * of ours can return, for the operator to take them back by hand (admin -- remove-credits).
 *
 * The stack creates the signing secret with a placeholder, which the operator replaces with the
 * endpoint's whsec_… once Stripe shows it: until then every event is a 503 that says so (and an error
 * in the log), which Stripe retries; the secret is read again at each event until it is set, then kept
 * five minutes (core/infra/secret-en-cache.ts), so warm containers take it without a deploy.
 */
import { packsDepuisEnv, traiterEvenement } from '../core/domaine/achats';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { signaler } from '../core/infra/signalement';
import { SecretNonConfigure } from '../core/infra/secret-en-cache';
import { lecteurSecretStripe, verifierEvenement } from '../core/infra/stripe';
import { ErreurApi } from '../core/modele/erreurs';
import { entete, reponseJson, routePublique } from './adaptateur';
import type { FournisseurDeps } from './authentifiee';

const NON_CONFIGURE =
  'Payments are not ready on this stage yet: its Stripe webhook signing secret (whsec_…) has not been set. Nothing was recorded; Stripe retries the event.';

export const creer = (deps: FournisseurDeps, env: NodeJS.ProcessEnv = process.env) => {
  const packs = packsDepuisEnv(env);
  const lireSecret = lecteurSecretStripe(env);
  return routePublique(async (event) => {
    if (!packs || !lireSecret) throw new ErreurApi('not_found', 'This stage sells no credits: payments are not configured.');
    const signant = await lireSecret().catch(async (erreur: unknown) => {
      if (!(erreur instanceof SecretNonConfigure)) throw erreur;
      await signaler('error', erreur.message, { arn: env.RETOUCHE_STRIPE_SECRET_ARN });
      throw new ErreurApi('service_unavailable', NON_CONFIGURE);
    });
    // The signature covers the body's exact bytes, as Stripe sent them.
    const corps = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
    const evenement = verifierEvenement(corps, entete(event, 'stripe-signature'), signant);
    if (!evenement) throw new ErreurApi('invalid_signature', 'The Stripe-Signature header does not sign this body with this endpoint’s secret.');
    const issue = await traiterEvenement(await deps(), evenement, packs);
    if (issue.statut === 'refuse') {
      const message = evenement.type.startsWith('charge.')
        ? 'refunded or disputed payment: no credits taken back'
        : 'paid Checkout Session credited to no account';
      await signaler('error', message, { evenement: evenement.id, type: evenement.type, issue });
    }
    return reponseJson(200, { recu: true, evenement: evenement.id, ...issue });
  });
};
// DynamoDB only (and Secrets Manager, at the first event and every five minutes).
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
