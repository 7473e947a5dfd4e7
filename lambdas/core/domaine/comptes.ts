/**
 * Accounts and API keys: the rules. A key is shown once, at creation; only its SHA-256 is stored
 * (depots/comptes.ts). Keys are 256 random bits, so a fast hash is enough: there is nothing to
 * brute-force (unlike a password).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AvecTable, Dependances } from '../infra/dependances';
import * as apports from '../depots/apports';
import * as comptes from '../depots/comptes';
import { lireUtilisations } from '../depots/cadences';
import { ErreurApi } from '../modele/erreurs';
import type { Source } from '../modele/enregistrements';
import { assurerCompte, compteDeSession } from './utilisateurs';

export const MAX_CLES_PAR_COMPTE = 5;
/** Fixed prefix of every key: lets secret scanners and people recognise a Retouche key. */
export const PREFIXE_CLE = 'rtch_';
/**
 * A test key's prefix (after PREFIXE_CLE, so it is a Retouche key all the same): what a key is used for is
 * visible in a configuration file or a log line, and a live key cannot be mistaken for one.
 */
export const PREFIXE_CLE_TEST = `${PREFIXE_CLE}test_`;

export type DepsComptes = AvecTable;

/** Problems of the admin operations (not HTTP answers: the admin CLI prints them). */
export class ErreurCompte extends Error {
  override readonly name = 'ErreurCompte';
}

export const empreinteCle = (cle: string): string => createHash('sha256').update(cle, 'utf8').digest('hex');

const nouvelleCle = (test = false): string => (test ? PREFIXE_CLE_TEST : PREFIXE_CLE) + randomBytes(32).toString('base64url');

/** What is stored of a key: its hash, and its first characters to tell keys apart in a listing. */
const aStocker = (cle: string, nom?: string): comptes.NouvelleCle => {
  const test = cle.startsWith(PREFIXE_CLE_TEST);
  return {
    empreinte: empreinteCle(cle),
    apercu: cle.slice(0, (test ? PREFIXE_CLE_TEST : PREFIXE_CLE).length + 4),
    ...(nom ? { nom } : {}),
    ...(test ? { test: true as const } : {}),
  };
};

const verifierCredits = (credits: number): void => {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new ErreurCompte('credits must be a whole number, 0 or more');
};

export const creerCompte = async (d: DepsComptes, credits: number) => {
  verifierCredits(credits);
  const compte = randomUUID();
  const cle = nouvelleCle();
  await comptes.creer(d, compte, credits, aStocker(cle), apports.elementsOuverture(d.table, compte, credits, 'operateur', d.horloge().toISOString()));
  return { compte, cle, credits };
};

/** A key for the account (the admin CLI); `test`: a test key. */
export const creerCle = async (d: DepsComptes, compte: string, options: { test?: boolean } = {}) => {
  const cle = nouvelleCle(options.test);
  const issue = await comptes.ajouterCle(d, compte, aStocker(cle), MAX_CLES_PAR_COMPTE);
  if (issue === 'plein') throw new ErreurCompte(`account ${compte} already has ${MAX_CLES_PAR_COMPTE} active keys: revoke one first`);
  if (issue === 'absent') throw new ErreurCompte(`no account ${compte}`);
  return { cle };
};

export const revoquerCle = async (d: DepsComptes, cle: string) => {
  const enregistrement = await comptes.lireCle(d, empreinteCle(cle));
  if (!enregistrement) throw new ErreurCompte('unknown key');
  if (enregistrement.revoquee) return { revoque: true };
  // Cancelled: revoked meanwhile by a concurrent call, and the outcome asked for holds.
  await comptes.revoquerEmpreinte(d, empreinteCle(cle), enregistrement.compte, d.horloge());
  return { revoque: true };
};

/** A key as the web site's API page lists it: never the key, which is shown once at creation. */
export interface CleDuCompte {
  /** The key's SHA-256 (hex): names it in `DELETE /compte/cles/{id}`, and says nothing of the key. */
  id: string;
  nom: string | null;
  /** The key's first characters, to tell keys apart. */
  apercu: string;
  cree_le: string;
  /** To the minute; null when never used. */
  utilisee_le: string | null;
  /** A test key (its jobs are free and kept apart); false for a live key. */
  test: boolean;
}

const versCleDuCompte = (cle: comptes.CleListee, utilisee_le: string | undefined): CleDuCompte => ({
  id: cle.empreinte,
  nom: cle.nom ?? null,
  apercu: cle.apercu,
  cree_le: cle.cree_le,
  utilisee_le: utilisee_le ?? null,
  test: cle.test === true,
});

/** The account's active keys, newest first, each with when it was last used. */
export const clesDuCompte = async (d: Pick<Dependances, 'ddb' | 'table'>, compte: string): Promise<CleDuCompte[]> => {
  const actives = (await comptes.listerCles(d, compte)).filter((c) => !c.revoquee);
  const utilisations = await lireUtilisations(
    d,
    actives.map((c) => c.empreinte),
  );
  return actives.map((c) => versCleDuCompte(c, utilisations.get(c.empreinte)));
};

/** A named key for the account (the web site's API page): the key itself is in this answer only. 409 past the limit. */
export const creerCleNommee = async (d: DepsComptes, compte: string, nom: string, test = false): Promise<CleDuCompte & { cle: string }> => {
  const cle = nouvelleCle(test);
  const stockee = aStocker(cle, nom);
  const issue = await comptes.ajouterCle(d, compte, stockee, MAX_CLES_PAR_COMPTE);
  if (issue === 'plein') {
    throw new ErreurApi(
      'too_many_keys',
      `An account has at most ${MAX_CLES_PAR_COMPTE} API keys, and this one has ${MAX_CLES_PAR_COMPTE}: revoke one you no longer use, then create this one.`,
      { max: MAX_CLES_PAR_COMPTE },
    );
  }
  if (issue === 'absent') throw new ErreurApi('unauthorized', 'The account of this session no longer exists.');
  return { ...versCleDuCompte({ ...stockee, compte, nom, cree_le: d.horloge().toISOString(), revoquee: false }, undefined), cle };
};

/** Revokes one of the account's keys by its id; another account's key, or one already revoked, is a 404. */
export const revoquerCleDuCompte = async (d: DepsComptes, compte: string, id: string): Promise<void> => {
  const introuvable = () => new ErreurApi('not_found', `No active API key ${id} in this account.`);
  if (!/^[0-9a-f]{64}$/.test(id)) throw introuvable();
  const cle = await comptes.lireCle(d, id);
  if (!cle || cle.compte !== compte || cle.revoquee) throw introuvable();
  // False: revoked meanwhile by a concurrent call, and the outcome asked for holds.
  await comptes.revoquerEmpreinte(d, id, compte, d.horloge());
};

/** An operator's credits (the admin CLI), recorded as such in the account's movements. */
export const ajouterCredits = async (d: DepsComptes, compte: string, credits: number) => {
  verifierCredits(credits);
  const issue = await apports.crediter(d, { id: randomUUID(), compte, credits, origine: 'operateur', cree_le: d.horloge().toISOString() });
  if (issue === 'sans_compte') throw new ErreurCompte(`no account ${compte}`);
  return { compte, credits: (await comptes.lire(d, compte))!.credits };
};

/** The longest reason an operator may give for removing credits: a sentence, or a ticket's reference. */
export const MAX_CARACTERES_RAISON = 500;

/**
 * An operator's removal of credits (the admin CLI), recorded with its reason among the account's
 * movements. By default the balance must cover it: an operator correcting a mistake should not leave an
 * account owing credits by a slip of a number; `soldeNegatif` allows it (taking back what was spent),
 * and then no job starts until the balance is back (facturation.ts, verifierSolde).
 */
export const retirerCredits = async (d: DepsComptes, compte: string, credits: number, raison: string, options: { soldeNegatif?: boolean } = {}) => {
  if (!Number.isSafeInteger(credits) || credits < 1) throw new ErreurCompte('credits must be a whole number, 1 or more');
  const motif = raison.trim();
  if (!motif || motif.length > MAX_CARACTERES_RAISON) throw new ErreurCompte(`a reason is required, ${MAX_CARACTERES_RAISON} characters at most`);
  const issue = await apports.retirer(
    d,
    { id: randomUUID(), compte, credits: -credits, origine: 'retrait_operateur', cree_le: d.horloge().toISOString(), raison: motif },
    options.soldeNegatif ? undefined : 0,
  );
  if (issue.issue === 'sans_compte') throw new ErreurCompte(`no account ${compte}`);
  if (issue.issue === 'solde_insuffisant') {
    throw new ErreurCompte(`account ${compte} has ${issue.credits} credits, fewer than ${credits}: nothing removed (--allow-negative takes them all the same)`);
  }
  return { compte, credits: (await comptes.lire(d, compte))!.credits };
};

export interface Appelant {
  compte: string;
  /** Hash of the key used (of the user's id for a web session): the rate limit is counted per key. */
  empreinte: string;
  /** `api` with an API key, `web` with a web site session: what the jobs it launches carry as `source`. */
  source: Extract<Source, 'api' | 'web'>;
  /** A web session's email address. */
  email?: string;
  /** Called with a test key: its jobs are free, run the preview engine and are kept apart from live ones. */
  test?: boolean;
}

export interface ExigencesAuthentification {
  /** Only a web site session may call (keys and movements: a key cannot mint keys). */
  sessionSeule?: boolean;
  /** A session's first call creates its account with these credits (`GET /compte`, core/domaine/utilisateurs.ts). */
  creerCompte?: number;
}

const jetonInvalide = (message: string) => new ErreurApi('unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

const parSession = async (
  d: Pick<Dependances, 'ddb' | 'table' | 'horloge' | 'sessions'>,
  jeton: string,
  exigences: ExigencesAuthentification,
): Promise<Appelant> => {
  const session = d.sessions ? await d.sessions(jeton) : undefined;
  if (!session) {
    throw jetonInvalide(exigences.sessionSeule ? 'Invalid or expired session: sign in to the web site again.' : 'Invalid or revoked API key.');
  }
  const compte = exigences.creerCompte === undefined ? await compteDeSession(d, session) : await assurerCompte(d, session, exigences.creerCompte);
  if (!compte) throw jetonInvalide('This user has no account yet: open the account page of the web site once (GET /compte) to create it.');
  return { compte, empreinte: empreinteCle(`session:${session.utilisateur}`), source: 'web', email: session.email };
};

/** The request header by which a client says its jobs come from an assistant (the MCP servers send it). */
export const ENTETE_SOURCE = 'Retouche-Source';

/**
 * The `source` of the jobs a call starts. A web session's are `web`, always; an API key's are `api`,
 * or `mcp` when the client says so with `Retouche-Source: mcp` (our MCP servers do, on the command and
 * on the stage). Nobody can claim `web` through the API: the web site's figures stay the web site's.
 */
export const sourceDesTravaux = (appelant: Pick<Appelant, 'source'>, entete: string | undefined): Source => {
  if (appelant.source === 'web' || entete === undefined) return appelant.source;
  const demandee = entete.trim().toLowerCase();
  if (demandee === 'api' || demandee === 'mcp') return demandee;
  throw new ErreurApi(
    'invalid_parameter',
    demandee === 'web'
      ? `${ENTETE_SOURCE}: web is the web site's own; through the API, jobs come from api (the default) or mcp.`
      : `${ENTETE_SOURCE} must be api (the default) or mcp.`,
    { parametre: ENTETE_SOURCE },
  );
};

/** The token of `Authorization: Bearer <token>`, or undefined when the header is not that. */
export const jetonPorteur = (autorisation: string | undefined): string | undefined => /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(autorisation ?? '')?.[1];

/**
 * `Authorization: Bearer <API key>` or `Bearer <web session's ID token>` → the calling account, or 401.
 * A key is told from a token by its prefix; the source of the jobs follows from which it was, so the
 * public API cannot claim `web`.
 */
export const authentifier = async (
  d: Pick<Dependances, 'ddb' | 'table' | 'horloge' | 'sessions'>,
  autorisation: string | undefined,
  exigences: ExigencesAuthentification = {},
): Promise<Appelant> => {
  const jeton = jetonPorteur(autorisation);
  if (!jeton) {
    throw new ErreurApi('unauthorized', 'Missing API key: send the header Authorization: Bearer <API key>.', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  if (!jeton.startsWith(PREFIXE_CLE)) return parSession(d, jeton, exigences);
  if (exigences.sessionSeule) {
    throw new ErreurApi('forbidden', "This route is the web site's: sign in there. An API key cannot manage keys or see the account's movements.");
  }
  const empreinte = empreinteCle(jeton);
  const cle = await comptes.lireCle(d, empreinte);
  if (!cle || cle.revoquee) throw jetonInvalide('Invalid or revoked API key.');
  return { compte: cle.compte, empreinte, source: 'api', ...(cle.test ? { test: true } : {}) };
};
