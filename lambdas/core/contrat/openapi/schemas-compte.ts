/**
 * The answers of the web site's own routes (/compte…), described with valibot as the API's are
 * (schemas.ts), so that the site's types are generated from the document like the SDK's. Apart from
 * schemas.ts: these routes take a web session only, and their shapes follow the account pages.
 */
import * as v from 'valibot';
import { REPONSES } from './schemas';

const dateHeure = v.pipe(v.string(), v.isoTimestamp());
const entier = v.pipe(v.number(), v.integer());
const uuid = v.pipe(v.string(), v.uuid());

export const SchemaCle = v.strictObject({
  id: v.pipe(
    v.string(),
    v.regex(/^[0-9a-f]{64}$/),
    v.description("The key's SHA-256 (hex): names it in DELETE /compte/cles/{id}, and says nothing of the key."),
  ),
  nom: v.pipe(v.nullable(v.string()), v.description('null for a key the admin CLI made.')),
  apercu: v.pipe(v.string(), v.description("The key's first characters (rtch_ or rtch_test_ and four more), to tell keys apart.")),
  cree_le: dateHeure,
  utilisee_le: v.pipe(v.nullable(dateHeure), v.description('When it was last used, to the minute; null: never.')),
  test: v.pipe(v.boolean(), v.description('A test key (rtch_test_…): its jobs are free, run the preview engine and are kept apart from live ones.')),
});

export const SchemaCleCreee = v.strictObject({
  ...SchemaCle.entries,
  cle: v.pipe(v.string(), v.startsWith('rtch_'), v.description('The key itself: in this answer and never again.')),
});

export const SchemaListeCles = v.strictObject({ cles: v.pipe(v.array(SchemaCle), v.description('Active keys, newest first.')) });

export const SchemaPack = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^plink_[A-Za-z0-9]+$/), v.description("The pack's Stripe Payment Link.")),
  credits: entier,
  prix: v.pipe(v.string(), v.description('The price as the buyer reads it ("49 €"): shown, never computed with.')),
  url: v.pipe(v.string(), v.url(), v.description('The Payment Link naming this account (client_reference_id), which is how a payment finds it.')),
});

export const SchemaContactCredits = v.strictObject({
  lien: v.optional(v.pipe(v.string(), v.description("The operator's contact: a mailto: or https link (the stage's -c contactCredits)."))),
  commande: v.optional(v.pipe(v.string(), v.description("On a local stack, the admin command that adds credits, this account's address filled in."))),
});

export const SchemaCompte = v.strictObject({
  id: uuid,
  email: v.nullable(v.string()),
  credits: v.pipe(entier, v.description('The balance; below 0 when credits already spent were taken back.')),
  travaux_ouverts: v.pipe(entier, v.description('Jobs not yet ended.')),
  cles: v.strictObject({ actives: entier, max: entier }),
  cree_le: dateHeure,
  achats: v.pipe(
    v.nullable(v.strictObject({ packs: v.array(SchemaPack) })),
    v.description("The stage's packs of credits, each a link that names this account; null when the stage sells none."),
  ),
  contact_credits: v.pipe(v.nullable(SchemaContactCredits), v.description('How to ask the operator for credits; null when the stage names no contact.')),
});

export const SchemaMouvement = v.strictObject({
  date: dateHeure,
  type: v.pipe(
    v.picklist(['debit', 'remboursement', 'achat', 'inscription', 'operateur', 'achat_rembourse', 'achat_conteste', 'retrait_operateur']),
    v.description(
      "A job's debit and, when it failed, its refund; credits added (a purchase, the sign-up's, an operator's); credits taken back (a purchase refunded or disputed, an operator's removal).",
    ),
  ),
  credits: v.pipe(entier, v.description('Signed: a debit or a removal is negative.')),
  travail: v.nullable(uuid),
  lot: v.nullable(uuid),
  outil: v.nullable(REPONSES.IdOutil),
  efface: v.pipe(v.boolean(), v.description('The movement of a job erased since: its date, tool and credits only, no link.')),
});

export const SchemaListeMouvements = v.strictObject({
  credits: v.pipe(entier, v.description('The balance.')),
  mouvements: v.pipe(v.array(SchemaMouvement), v.description('Newest first; they add up to the balance.')),
});

/**
 * The web site's answers, each a named component after the API's (a `$ref` to IdOutil, not a copy).
 * The handlers build them from the domain's types; test/unit/schemas.test.ts holds the two to the same
 * shape, so that neither drifts.
 */
export const REPONSES_COMPTE = {
  Compte: SchemaCompte,
  Pack: SchemaPack,
  ContactCredits: SchemaContactCredits,
  Cle: SchemaCle,
  CleCreee: SchemaCleCreee,
  ListeCles: SchemaListeCles,
  Mouvement: SchemaMouvement,
  ListeMouvements: SchemaListeMouvements,
} satisfies Record<string, v.GenericSchema>;
