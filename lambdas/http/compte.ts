/**
 * GET /compte — the web site's account page: who is signed in, the balance, what is pending, the keys
 * counted against their limit, the packs of credits on sale (core/domaine/achats.ts) or how to ask the operator for
 * credits (core/domaine/contact-credits.ts). A user's first call creates their account with the stage's sign-up
 * credits (core/domaine/utilisateurs.ts).
 */
import { lire as lireCompte } from '../core/depots/comptes';
import { lienDAchat, packsDepuisEnv } from '../core/domaine/achats';
import { MAX_CLES_PAR_COMPTE } from '../core/domaine/comptes';
import { contactCreditsDepuisEnv } from '../core/domaine/contact-credits';
import { creditsInscription } from '../core/domaine/utilisateurs';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { ErreurApi } from '../core/modele/erreurs';
import { reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps, env: NodeJS.ProcessEnv = process.env) => {
  // The stage's setting, read once per container like the rest of its environment.
  const exigences = { sessionSeule: true, creerCompte: creditsInscription(env) };
  const packs = packsDepuisEnv(env);
  const contact = contactCreditsDepuisEnv(env);
  return routeAuthentifiee(
    deps,
    async ({ d, appelant }) => {
      const compte = await lireCompte(d, appelant.compte);
      if (!compte) throw new ErreurApi('unauthorized', 'The account of this session no longer exists.');
      return reponseJson(200, {
        id: compte.id,
        email: appelant.email ?? null,
        credits: compte.credits,
        travaux_ouverts: compte.travaux_ouverts,
        cles: { actives: compte.nb_cles, max: MAX_CLES_PAR_COMPTE },
        cree_le: compte.cree_le,
        // The stage's packs, each a link that names this account; null when the stage sells none.
        achats: packs ? { packs: packs.map((p) => ({ id: p.lien, credits: p.credits, prix: p.prix, url: lienDAchat(p, compte.id, appelant.email) })) } : null,
        // How to ask the operator for credits (core/domaine/contact-credits.ts); null when the stage names no contact.
        contact_credits: contact(appelant.email),
      });
    },
    exigences,
  );
};
// DynamoDB only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
