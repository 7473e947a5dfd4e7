/**
 * Web users: a person who signed up on the web site (a Cognito user, core/infra/sessions.ts) has one
 * account, the same kind the API keys of the admin CLI belong to: one balance, the same jobs. The
 * account is created at the user's first visit to their account page (`GET /compte`) with the stage's
 * sign-up credits, rather than by a Cognito trigger, so that the local stack's emulator and AWS
 * follow one code path; the other routes find it or say to open that page.
 */
import { randomUUID } from 'node:crypto';
import type { AvecTable, Dependances } from '../infra/dependances';
import type { Session } from '../infra/sessions';
import * as apports from '../depots/apports';
import * as utilisateurs from '../depots/utilisateurs';

export type DepsUtilisateurs = AvecTable;

/** The account of a signed-in user, or undefined before their first visit to `GET /compte`. */
export const compteDeSession = async (d: Pick<Dependances, 'ddb' | 'table'>, session: Session): Promise<string | undefined> =>
  (await utilisateurs.lire(d, session.utilisateur))?.compte;

/**
 * The account of a signed-in user, created with `creditsInscription` credits at their first visit
 * (an operator's, `operateur`, when the admin CLI makes the user with credits).
 */
export const assurerCompte = async (
  d: DepsUtilisateurs,
  session: Session,
  creditsInscription: number,
  origine: 'inscription' | 'operateur' = 'inscription',
): Promise<string> => {
  const existant = await compteDeSession(d, session);
  if (existant) return existant;
  const compte = randomUUID();
  const ouverture = apports.elementsOuverture(d.table, compte, creditsInscription, origine, d.horloge().toISOString());
  if (await utilisateurs.creerAvecCompte(d, { utilisateur: session.utilisateur, email: session.email, compte, credits: creditsInscription }, ouverture))
    return compte;
  // A concurrent first request linked the user first: theirs is the account.
  const gagnant = await compteDeSession(d, session);
  if (!gagnant) throw new Error(`user ${session.utilisateur} neither linked nor linkable`);
  return gagnant;
};

/** The stage's sign-up credits (RETOUCHE_CREDITS_INSCRIPTION, 0 when unset). */
export const creditsInscription = (env: NodeJS.ProcessEnv): number => {
  const valeur = Number(env.RETOUCHE_CREDITS_INSCRIPTION ?? 0);
  if (!Number.isSafeInteger(valeur) || valeur < 0)
    throw new Error(`RETOUCHE_CREDITS_INSCRIPTION must be a whole number, 0 or more: ${env.RETOUCHE_CREDITS_INSCRIPTION}`);
  return valeur;
};
