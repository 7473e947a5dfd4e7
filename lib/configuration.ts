/**
 * What differs between stages, read from the CDK context (`cdk deploy -c stage=prod`). Everything
 * else is the same everywhere, so a stage that works is the stage that ships.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CONSERVATION_JOURNAUX_JOURS } from '../lambdas/core/modele/retention';
import { estOutil, lireCouts, OUTILS, type IdOutil } from '../lambdas/core/modele/outils';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { SchemaPacks, type Pack } from '../lambdas/core/domaine/achats';
import { ADRESSE_EMAIL, lienDeContact, refusContact } from '../lambdas/core/domaine/contact-credits';

/**
 * A refusal the operator acts on: a context value, a Region or an EU-residence rule the stage does not accept. Its
 * message is complete (what is wrong, what to type instead), so bin/retouche.ts prints it alone, without the stack
 * trace an unexpected error keeps.
 */
export class RefusDeConfiguration extends Error {
  override readonly name = 'RefusDeConfiguration';
}

export interface ConfigurationStage {
  /** Stage name: part of the stack name (`Retouche-<stage>`). */
  stage: string;
  /** Production stages keep their data when the stack or a resource is deleted. */
  production: boolean;
  /** The engine of the tool step: `bedrock` (production models) or `local` (sharp previews, free). */
  moteur: 'bedrock' | 'local';
  /** How result links are served: CloudFront signed URLs, or the API itself (LocalStack fallback). */
  liens: 'cloudfront' | 'api';
  /** Optional e-mail address subscribed to the alarms topic. */
  emailAlarmes?: string;
  /**
   * The address the user pool sends its codes from, through Amazon SES (`-c emailExpediteur=no-reply@example.com`):
   * its domain verified in SES in the stage's Region. Required on a production stage; without it, Cognito's
   * own sender, capped at 50 emails a day (sign-ups and password resets stop there).
   */
  emailExpediteur?: string;
  /**
   * Optional reserved concurrency of the tool step: at most this many model calls at once, the
   * rest wait in the state machine's backoff. Off by default: a new account's concurrency quota
   * (10) cannot spare any.
   */
  concurrenceOutil?: number;
  /**
   * The certificate chain of the C2PA signing key (PEM blocks, leaf first), read at synth from the
   * file named by `-c c2paChaine=<path>`: certificates only, never a key. Without it, the deploy-time
   * resource issues a test chain (results validate, untrusted). See lib/provenance.ts.
   */
  c2paChaine?: string;
  /**
   * `eu`: an EU-resident stage (lib/residence.ts, docs/deployment.md "EU residence"): its Region, Bedrock and Rekognition
   * Regions and models all in the EU, or the synth stops. Absent: no such check.
   */
  residence?: 'eu';
  /** The stage's Region (`-c region`); without it, the one the CLI or the shell names (lib/region.ts, `regionConfiguree`). */
  region?: string;
  /**
   * The tools this stage offers (`-c outils=annonce,ciel`); all when absent. `GET /outils` lists only
   * these, `POST /travaux` refuses the others (422 invalid_tool), and an EU stage needs models in the EU
   * for these only (lib/residence.ts).
   */
  outils?: readonly IdOutil[];
  /**
   * The stage's prices, where they differ from the catalogue's (`-c couts=fusion:3,ciel:2`): GET /outils says
   * them, POST /travaux debits them. As written, for the functions' RETOUCHE_COUTS (outils.ts, coutsDeLaPile).
   */
  couts?: string;
  /** Credits a new web site account starts with (`-c creditsInscription=N`); 0 when absent. */
  creditsInscription?: number;
  /**
   * The packs of credits this stage sells, each a Stripe Payment Link (`-c packs=<file.json>`, or the
   * array itself in cdk.json's context; core/domaine/achats.ts). Absent: no payments, no webhook secret.
   */
  packs?: Pack[];
  /** Where the packs came from, as the next command must give them again: the file's path, or the JSON quoted for a shell. */
  sourcePacks?: string;
  /**
   * How to reach the operator for credits (`-c contactCredits=sales@example.com` or `=https://…`), shown as a link on
   * the account page of a stage that sells no packs (core/domaine/contact-credits.ts): an address becomes a
   * mailto: link, an https URL stays. Absent: the page says to ask the operator, with no way to reach them.
   */
  contactCredits?: string;
}

/** `-c packs`: a JSON file's path, a JSON text, or the array itself (cdk.json); checked against the packs' schema. */
export const lirePacks = (valeur: unknown, racine = process.cwd()): Pack[] => {
  let brut = valeur;
  if (typeof valeur === 'string') {
    const texte = valeur.trim().startsWith('[')
      ? valeur
      : existsSync(path.resolve(racine, valeur))
        ? readFileSync(path.resolve(racine, valeur), 'utf8')
        : undefined;
    if (texte === undefined)
      throw new RefusDeConfiguration(`context packs: no file ${path.resolve(racine, valeur)} (give a JSON file of packs, or the JSON itself)`);
    try {
      brut = JSON.parse(texte);
    } catch (e) {
      throw new RefusDeConfiguration(`context packs: not JSON (${(e as Error).message})`);
    }
  }
  const lus = v.safeParse(SchemaPacks, brut);
  if (!lus.success) {
    const problemes = lus.issues.map((i) => `${v.getDotPath(i) ?? 'packs'}: ${i.message}`).join('; ');
    throw new RefusDeConfiguration(`context packs must list 1 to 10 packs {lien: "plink_…", url: "https://buy.stripe.com/…", credits, prix}: ${problemes}`);
  }
  return lus.output;
};

/**
 * The chain file of `-c c2paChaine`: its certificates, leaf first, as one PEM text. A missing file, one
 * without a certificate, one that does not parse or one holding a private key stops the synth: the
 * chain goes into the template, and the key must never leave the account.
 */
export const lireChaineC2pa = (fichier: string, racine = process.cwd()): string => {
  const chemin = path.resolve(racine, fichier);
  if (!existsSync(chemin)) throw new RefusDeConfiguration(`context c2paChaine: no file ${chemin}`);
  const texte = readFileSync(chemin, 'utf8');
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(texte)) {
    throw new RefusDeConfiguration(
      `context c2paChaine: ${chemin} holds a private key; give the certificates only (the signing key is generated in the account and never leaves it)`,
    );
  }
  const blocs = [...texte.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => m[0].replace(/\r\n?/g, '\n'));
  if (blocs.length === 0) throw new RefusDeConfiguration(`context c2paChaine: ${chemin} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  blocs.forEach((bloc, i) => {
    try {
      new X509Certificate(bloc);
    } catch (e) {
      throw new RefusDeConfiguration(`context c2paChaine: certificate ${i + 1} of ${chemin} does not parse (${(e as Error).message})`);
    }
  });
  return `${blocs.join('\n')}\n`;
};

/** An e-mail address, as far as a synth can tell: SES checks the rest when it verifies the domain. */
const ADRESSE = ADRESSE_EMAIL;

/** Stages that hold customers' data unless told otherwise. */
const STAGES_PRODUCTION = new Set(['prod', 'production']);

type LireContexte = (cle: string) => unknown;

const choix = <T extends string>(valeur: unknown, permis: readonly T[], defaut: T, cle: string): T => {
  if (valeur === undefined) return defaut;
  if (typeof valeur === 'string' && (permis as readonly string[]).includes(valeur)) return valeur as T;
  throw new RefusDeConfiguration(`context ${cle} must be one of ${permis.join(', ')} (got ${String(valeur)})`);
};

export const configurationDepuisContexte = (lire: LireContexte): ConfigurationStage => {
  const stage = String(lire('stage') ?? 'dev');
  if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) throw new RefusDeConfiguration(`context stage must be lower-case letters, digits or - (got ${stage})`);
  const production = lire('production') === undefined ? STAGES_PRODUCTION.has(stage) : String(lire('production')) === 'true';
  const email = lire('emailAlarmes');
  const expediteur = lire('emailExpediteur');
  if (expediteur !== undefined && !(typeof expediteur === 'string' && ADRESSE.test(expediteur))) {
    throw new RefusDeConfiguration(`context emailExpediteur must be an e-mail address such as no-reply@example.com (got ${String(expediteur)})`);
  }
  if (production && expediteur === undefined) {
    throw new RefusDeConfiguration(
      `Stage ${stage} is a production stage: name the address its sign-up and password-reset codes come from, e.g. -c emailExpediteur=no-reply@your-domain (its domain verified in Amazon SES in the stage's Region; docs/deployment.md, "Email"); Cognito's own sender stops at 50 emails a day.`,
    );
  }
  const concurrence = lire('concurrenceOutil');
  const chaine = lire('c2paChaine');
  const residence = lire('residence');
  const region = lire('region');
  const outils = lire('outils');
  const creditsInscription = lire('creditsInscription');
  const couts = lire('couts');
  if (couts !== undefined) {
    try {
      lireCouts(String(couts));
    } catch (erreur) {
      throw new RefusDeConfiguration(`context ${(erreur as Error).message}`);
    }
  }
  const packs = lire('packs');
  const contact = lire('contactCredits');
  const lienContact = contact === undefined || contact === '' ? undefined : lienDeContact(contact);
  if (contact !== undefined && contact !== '' && !lienContact) throw new RefusDeConfiguration(refusContact('context contactCredits', contact));
  if (creditsInscription !== undefined && !(Number.isSafeInteger(Number(creditsInscription)) && Number(creditsInscription) >= 0)) {
    throw new RefusDeConfiguration(`context creditsInscription must be a whole number, 0 or more (got ${String(creditsInscription)})`);
  }
  if (region !== undefined && !(typeof region === 'string' && /^[a-z]{2}(-[a-z]+)+-\d$/.test(region))) {
    throw new RefusDeConfiguration(`context region must be an AWS Region code such as eu-west-1 (got ${String(region)})`);
  }
  const offerts =
    outils === undefined
      ? undefined
      : String(outils)
          .split(',')
          .map((o) => o.trim());
  if (offerts && (offerts.length === 0 || offerts.some((o) => !estOutil(o)))) {
    throw new RefusDeConfiguration(`context outils must list tools separated by commas, among ${OUTILS.join(', ')} (got ${String(outils)})`);
  }
  if (concurrence !== undefined && !(Number.isInteger(Number(concurrence)) && Number(concurrence) >= 1)) {
    throw new RefusDeConfiguration(`context concurrenceOutil must be a positive integer (got ${String(concurrence)})`);
  }
  return {
    stage,
    production,
    moteur: choix(lire('moteur'), ['bedrock', 'local'] as const, 'bedrock', 'moteur'),
    liens: choix(lire('liens'), ['cloudfront', 'api'] as const, 'cloudfront', 'liens'),
    ...(typeof email === 'string' && email ? { emailAlarmes: email } : {}),
    ...(typeof expediteur === 'string' ? { emailExpediteur: expediteur } : {}),
    ...(concurrence !== undefined ? { concurrenceOutil: Number(concurrence) } : {}),
    ...(chaine !== undefined && chaine !== '' ? { c2paChaine: lireChaineC2pa(String(chaine)) } : {}),
    ...(residence !== undefined ? { residence: choix(residence, ['eu'] as const, 'eu', 'residence') } : {}),
    ...(typeof region === 'string' ? { region } : {}),
    ...(offerts ? { outils: OUTILS.filter((o) => offerts.includes(o)) } : {}),
    ...(couts !== undefined && String(couts).trim() !== '' ? { couts: String(couts) } : {}),
    ...(creditsInscription !== undefined ? { creditsInscription: Number(creditsInscription) } : {}),
    ...(packs !== undefined && packs !== ''
      ? { packs: lirePacks(packs), ...(typeof packs === 'string' ? { sourcePacks: packs.trim().startsWith('[') ? `'${packs}'` : packs } : {}) }
      : {}),
    ...(lienContact ? { contactCredits: lienContact } : {}),
  };
};

/** Data survives a `cdk destroy` on production stages only. */
export const politiqueDonnees = (c: ConfigurationStage): RemovalPolicy => (c.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);

/** Logs are evidence for support and billing disputes: kept longer in production. */
export const retentionJournaux = (c: ConfigurationStage): RetentionDays =>
  // RetentionDays' values are the days themselves (THREE_MONTHS = 90, TWO_WEEKS = 14).
  (c.production ? CONSERVATION_JOURNAUX_JOURS.production : CONSERVATION_JOURNAUX_JOURS.autres) as RetentionDays;
