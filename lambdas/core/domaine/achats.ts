/**
 * Buying credits: packs sold through Stripe Payment Links, one link per pack, configured per stage
 * (`-c packs=…` in CDK, RETOUCHE_PACKS in a function's environment). The web site's account page links
 * to each with the account's id as `client_reference_id`; when Stripe says a Checkout Session of one of
 * those links is paid, its webhook (POST /paiements/stripe) credits that account with the pack's
 * credits, once: the credits are recorded under the Checkout Session's id in the transaction that
 * raises the balance (depots/apports.ts), so a replayed event, two deliveries racing, or a session's
 * second event (an async payment's "succeeded" after its "completed") credit nothing more.
 *
 * The credits come from the pack the link is, never from the amount paid or from metadata: a link
 * not configured here credits nothing. A pack's link must therefore sell one fixed quantity (no
 * adjustable quantity: the session's event does not carry its line items).
 */
import * as v from 'valibot';
import * as apports from '../depots/apports';
import type { Dependances } from '../infra/dependances';
import type { EvenementStripe } from '../infra/stripe';

export const SchemaPack = v.object({
  /** The Payment Link's id (`plink_…`), which a paid Checkout Session names. */
  lien: v.pipe(v.string(), v.regex(/^plink_[A-Za-z0-9]+$/)),
  /** Its URL (`https://buy.stripe.com/…`), where the account page sends the buyer. */
  url: v.pipe(v.string(), v.url(), v.startsWith('https://')),
  credits: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
  /** The price as the buyer reads it on the link ("49 € TTC"): shown, never computed with. */
  prix: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
});
export type Pack = v.InferOutput<typeof SchemaPack>;
export const SchemaPacks = v.pipe(v.array(SchemaPack), v.minLength(1), v.maxLength(10));

/** The stage's packs (RETOUCHE_PACKS, JSON), or undefined when it sells none. */
export const packsDepuisEnv = (env: NodeJS.ProcessEnv): Pack[] | undefined => {
  if (!env.RETOUCHE_PACKS) return undefined;
  const lus = v.safeParse(SchemaPacks, JSON.parse(env.RETOUCHE_PACKS));
  if (!lus.success) throw new Error(`RETOUCHE_PACKS: ${lus.issues.map((i) => `${v.getDotPath(i) ?? ''} ${i.message}`).join('; ')}`);
  return lus.output;
};

/** What the account page links to: the pack's link, naming the account (and the buyer's email, filled in). */
export const lienDAchat = (pack: Pack, compte: string, email: string | undefined): string => {
  const url = new URL(pack.url);
  url.searchParams.set('client_reference_id', compte);
  if (email) url.searchParams.set('prefilled_email', email);
  return url.toString();
};

/** The two events that say a Checkout Session is paid: at once (a card), or later (a bank debit). */
const EVENEMENTS_PAYES = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

export type IssueAchat =
  | { statut: 'credite'; compte: string; credits: number }
  | { statut: 'deja_credite'; compte: string }
  /** Nothing to credit: another kind of event, or a session not yet paid (its later event will be). */
  | { statut: 'ignore'; raison: 'autre_evenement' | 'non_paye' }
  /** Paid, and not credited: an operator must look (the function logs it as an error). */
  | { statut: 'refuse'; raison: 'lien_inconnu' | 'compte_inconnu' };

const ID_COMPTE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Credits the account a paid Checkout Session names, once per session. */
export const traiterEvenement = async (
  d: Pick<Dependances, 'ddb' | 'table' | 'horloge'>,
  evenement: EvenementStripe,
  packs: readonly Pack[],
): Promise<IssueAchat> => {
  if (!EVENEMENTS_PAYES.has(evenement.type)) return { statut: 'ignore', raison: 'autre_evenement' };
  const session = evenement.data.object as {
    id: string;
    payment_status?: string;
    payment_link?: string | { id: string } | null;
    client_reference_id?: string | null;
  };
  if (session.payment_status !== 'paid') return { statut: 'ignore', raison: 'non_paye' };
  const lien = typeof session.payment_link === 'string' ? session.payment_link : session.payment_link?.id;
  const pack = packs.find((p) => p.lien === lien);
  if (!pack) return { statut: 'refuse', raison: 'lien_inconnu' };
  const compte = session.client_reference_id ?? '';
  if (!ID_COMPTE.test(compte)) return { statut: 'refuse', raison: 'compte_inconnu' };
  const issue = await apports.crediter(d, {
    id: `stripe-${session.id}`,
    compte,
    credits: pack.credits,
    origine: 'achat',
    cree_le: d.horloge().toISOString(),
    pack: pack.lien,
    evenement: evenement.id,
  });
  if (issue === 'sans_compte') return { statut: 'refuse', raison: 'compte_inconnu' };
  return issue === 'deja' ? { statut: 'deja_credite', compte } : { statut: 'credite', compte, credits: pack.credits };
};
