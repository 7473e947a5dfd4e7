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
 *
 * Money that goes back to the buyer takes its credits back (`reprendre`), since they were spent or
 * could be: a refund (`charge.refunded`) in proportion to the amount refunded, rounded up, and a
 * dispute (`charge.dispute.created`, a chargeback: the money is withdrawn at once) the whole pack. Both
 * name the payment (the PaymentIntent), which the credit recorded with the session; what was taken
 * back is counted on that record and each event raises it to a total, never beyond the pack, so a
 * replay, deliveries that race, a second partial refund or a refund after a dispute take only what is
 * still due. The balance may go below zero (credits already spent): then no job starts until it is
 * back (core/domaine/facturation.ts, verifierSolde).
 */
import * as v from 'valibot';
import * as apports from '../depots/apports';
import type { AvecTable } from '../infra/dependances';
import type { EvenementStripe } from '../infra/stripe';
import { estUuid } from '../modele/uuid';

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

/** The events that give money back: a refund (whole or partial) of a charge, a dispute opened on it. */
const EVENEMENTS_REPRISE = { 'charge.refunded': 'achat_rembourse', 'charge.dispute.created': 'achat_conteste' } as const;

export type IssueAchat =
  | { statut: 'credite'; compte: string; credits: number }
  | { statut: 'deja_credite'; compte: string }
  /** Credits taken back by this event (`credits`, positive), `repris` in all from this purchase, of its `pack` credits. */
  | { statut: 'repris'; compte: string; credits: number; repris: number; pack: number }
  /** This event's share was taken back before (a replay, a race, or a larger refund or a dispute first). */
  | { statut: 'deja_repris'; compte: string; repris: number; pack: number }
  /** Nothing to credit: another kind of event, or a session not yet paid (its later event will be). */
  | { statut: 'ignore'; raison: 'autre_evenement' | 'non_paye' }
  /**
   * Paid, and not credited; or money given back whose credits cannot be taken back (`paiement_inconnu`:
   * no purchase of ours by that payment, or one credited before payments were recorded): an operator
   * must look (the function logs it as an error).
   */
  | { statut: 'refuse'; raison: 'lien_inconnu' | 'compte_inconnu' | 'paiement_inconnu' };

/** An id Stripe sends as a string, or as the object when expanded. */
const idDe = (valeur: string | { id: string } | null | undefined): string | undefined => (typeof valeur === 'string' ? valeur : valeur?.id);

/** Credits the account a paid Checkout Session names, once per session; takes them back when its payment is refunded or disputed. */
export const traiterEvenement = async (d: AvecTable, evenement: EvenementStripe, packs: readonly Pack[]): Promise<IssueAchat> => {
  if (Object.hasOwn(EVENEMENTS_REPRISE, evenement.type)) return reprendre(d, evenement);
  if (!EVENEMENTS_PAYES.has(evenement.type)) return { statut: 'ignore', raison: 'autre_evenement' };
  const session = evenement.data.object as {
    id: string;
    payment_status?: string;
    payment_link?: string | { id: string } | null;
    payment_intent?: string | { id: string } | null;
    client_reference_id?: string | null;
  };
  if (session.payment_status !== 'paid') return { statut: 'ignore', raison: 'non_paye' };
  const lien = idDe(session.payment_link);
  const pack = packs.find((p) => p.lien === lien);
  if (!pack) return { statut: 'refuse', raison: 'lien_inconnu' };
  const compte = session.client_reference_id ?? '';
  if (!estUuid(compte)) return { statut: 'refuse', raison: 'compte_inconnu' };
  const cree_le = d.horloge().toISOString();
  // A session paid nothing has no PaymentIntent (a 100 % discount): nothing can be refunded then.
  const paiement = idDe(session.payment_intent);
  const issue = await apports.crediter(
    d,
    {
      id: `stripe-${session.id}`,
      compte,
      credits: pack.credits,
      origine: 'achat',
      cree_le,
      pack: pack.lien,
      evenement: evenement.id,
      ...(paiement ? { paiement } : {}),
    },
    paiement ? { paiement, compte, session: session.id, pack: pack.lien, credits: pack.credits, repris: 0, cree_le } : undefined,
  );
  if (issue === 'sans_compte') return { statut: 'refuse', raison: 'compte_inconnu' };
  return issue === 'deja' ? { statut: 'deja_credite', compte } : { statut: 'credite', compte, credits: pack.credits };
};

/**
 * How many of a pack's credits a purchase owes back, in all: the whole pack for a dispute; for a
 * refund, the share of the charge refunded so far (`amount_refunded` is Stripe's running total),
 * rounded up so that a refund never leaves a fraction of a credit paid for by nobody. A refund whose
 * amounts are missing takes the whole pack when the charge says it is refunded.
 */
export const creditsDus = (
  credits: number,
  evenement: { type: 'achat_rembourse'; montant?: number; rembourse?: number; integral?: boolean } | { type: 'achat_conteste' },
): number => {
  if (evenement.type === 'achat_conteste') return credits;
  const { montant, rembourse, integral } = evenement;
  if (integral || !montant || montant <= 0) return integral || (rembourse ?? 0) > 0 ? credits : 0;
  return Math.min(credits, Math.ceil((credits * Math.max(0, rembourse ?? 0)) / montant));
};

/** Enough for the deliveries of one payment's events that race: each round, one of them commits. */
const ESSAIS_REPRISE = 8;

/** A refund or a dispute: the purchase's credits taken back, up to what it owes in all. */
const reprendre = async (d: AvecTable, evenement: EvenementStripe): Promise<IssueAchat> => {
  const origine = EVENEMENTS_REPRISE[evenement.type as keyof typeof EVENEMENTS_REPRISE];
  // A charge (charge.refunded) or a dispute (charge.dispute.created): both name the PaymentIntent.
  const objet = evenement.data.object as {
    payment_intent?: string | { id: string } | null;
    amount?: number;
    amount_refunded?: number;
    refunded?: boolean;
  };
  const id = idDe(objet.payment_intent);
  if (!id) return { statut: 'refuse', raison: 'paiement_inconnu' };
  for (let essai = 1; ; essai++) {
    const paiement = await apports.lirePaiement(d, id);
    if (!paiement) return { statut: 'refuse', raison: 'paiement_inconnu' };
    const cible =
      origine === 'achat_conteste'
        ? creditsDus(paiement.credits, { type: origine })
        : creditsDus(paiement.credits, { type: origine, montant: objet.amount, rembourse: objet.amount_refunded, integral: objet.refunded });
    const suivi = { compte: paiement.compte, pack: paiement.credits };
    if (cible <= paiement.repris) return { statut: 'deja_repris', ...suivi, repris: paiement.repris };
    const issue = await apports.reprendre(d, paiement, cible, { origine, cree_le: d.horloge().toISOString(), evenement: evenement.id });
    if (issue === 'repris') return { statut: 'repris', ...suivi, credits: cible - paiement.repris, repris: cible };
    if (issue === 'sans_compte') return { statut: 'refuse', raison: 'compte_inconnu' };
    // Another event of this payment took credits back meanwhile: read again, and take what is still due.
    if (essai >= ESSAIS_REPRISE) throw new Error(`payment ${id}: credits still contended after ${essai} attempts`);
  }
};
