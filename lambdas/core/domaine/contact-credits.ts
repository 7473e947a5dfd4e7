/**
 * How a user of a stage that sells no packs gets credits (issue 41, point 4): the operator's contact, which the
 * account page shows as a link beside the account's address to give them. On AWS it is the stage setting
 * `-c contactCredits` (lib/configuration.ts), in the account page's function as RETOUCHE_CONTACT_CREDITS: an email
 * address (it becomes a mailto: link) or an https URL (a form, a page). Locally the operator is whoever runs
 * `npm start`, so the page shows them their own command instead (RETOUCHE_COMMANDE_CREDITS, set by local/start.ts:
 * `{email}` stands for the account's address).
 */

/** What GET /compte says under `contact_credits`: a link to the operator, or (locally) the command that adds credits. */
export interface ContactCredits {
  lien?: string;
  commande?: string;
}

/** An e-mail address, as far as a setting can tell (the same test as `-c emailExpediteur`). */
export const ADRESSE_EMAIL = /^[^\s@<>]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** An address's local part as a mailto: link takes it unquoted (RFC 5322's atext and dots): no `:`, so no URL passes for one. */
const LOCALE = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+$/i;

/**
 * The link a contact setting stands for: an address or a `mailto:` link becomes `mailto:<address>`, an https URL
 * stays as given; anything else (another scheme, a URL with credentials, a bare word) is undefined.
 */
export const lienDeContact = (valeur: unknown): string | undefined => {
  if (typeof valeur !== 'string') return undefined;
  const texte = valeur.trim();
  const adresse = texte.toLowerCase().startsWith('mailto:') ? texte.slice('mailto:'.length) : texte;
  if (ADRESSE_EMAIL.test(adresse) && LOCALE.test(adresse.split('@')[0]!)) return `mailto:${adresse}`;
  let url: URL;
  try {
    url = new URL(texte);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || !url.hostname || url.username || url.password || /\s/.test(texte)) return undefined;
  return texte;
};

/** The message refusing a contact setting, after the setting's name (`context contactCredits`, RETOUCHE_CONTACT_CREDITS). */
export const refusContact = (nom: string, valeur: unknown): string =>
  `${nom} must be an e-mail address (sales@example.com, or mailto:sales@example.com) or an https:// URL (got ${String(valeur)})`;

/** An address as one shell word: as it is when it can be, else single-quoted. */
const motShell = (texte: string) => (/^[\w.@%+=:,/-]+$/.test(texte) ? texte : `'${texte.replaceAll("'", "'\\''")}'`);

/**
 * The stage's contact for this account, from the function's environment: RETOUCHE_CONTACT_CREDITS (a link) first,
 * else RETOUCHE_COMMANDE_CREDITS (a local stack's command, the address filled in); null when neither is set.
 */
export const contactCreditsDepuisEnv = (env: NodeJS.ProcessEnv): ((email: string | undefined) => ContactCredits | null) => {
  const brut = env.RETOUCHE_CONTACT_CREDITS;
  if (brut) {
    const lien = lienDeContact(brut);
    if (!lien) throw new Error(refusContact('RETOUCHE_CONTACT_CREDITS', brut));
    return () => ({ lien });
  }
  const commande = env.RETOUCHE_COMMANDE_CREDITS;
  if (!commande) return () => null;
  return (email) => ({ commande: commande.replaceAll('{email}', email ? motShell(email) : '<address>') });
};
