/**
 * `npm start`: the whole service on this machine, data kept under RETOUCHE_DATA_DIR between runs.
 *   PORT (3000), RETOUCHE_DATA_DIR (.retouche/), RETOUCHE_LOCAL_DELAY_MS (0): simulated model time per job.
 *   RETOUCHE_CONTACT_CREDITS (none): the account page's contact for credits, as `-c contactCredits` on AWS (an
 *   e-mail address or an https URL); without it, the page shows the admin command that adds credits, since the
 *   operator here is whoever runs npm start.
 *
 * It behaves like a service: one stack per data folder (local/verrou.ts), a busy port or a missing Java
 * is one line and exit code 1 with nothing left running, and Ctrl-C or SIGTERM stops everything. Even
 * a SIGKILL leaves no DynamoDB Local behind (local/dynamodb.ts) and the next start takes the lock over.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { lienDeContact, refusContact } from '../lambdas/core/domaine/contact-credits';
import type { Pile } from './pile';
import { inscrire } from './piles-actives';
import { DossierOccupe, prendreVerrou, type Verrou } from './verrou';

const port = Number(process.env.PORT ?? 3000);
const dossier = resolve(process.env.RETOUCHE_DATA_DIR ?? '.retouche');
const delai = Number(process.env.RETOUCHE_LOCAL_DELAY_MS ?? 0);
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';

let verrou: Verrou | undefined;
/** One line on stderr, exit code 1; the 'exit' handlers release the lock and kill Java. */
const refuser = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};
process.on('exit', () => verrou?.liberer());

const portOccupe = (erreur: unknown): boolean => {
  const e = erreur as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code === 'EADDRINUSE' || e?.cause?.code === 'EADDRINUSE';
};
const messagePort = () => `Port ${port} is already in use: set PORT to a free port, e.g. PORT=${port + 1} npm start`;

/** Whether the gateway could listen: asked before DynamoDB Local starts, so a busy port costs nothing. */
const essayerPort = (): Promise<unknown> =>
  new Promise((resoudre) => {
    const serveur = createServer();
    serveur.once('error', resoudre);
    serveur.listen(port, '127.0.0.1', () => serveur.close(() => resoudre(undefined)));
  });

if (!Number.isInteger(port) || port < 0 || port > 65_535) refuser(`PORT must be a TCP port number (0 to 65535), not '${process.env.PORT}'.`);

// The admin command finds the running stack by its data folder: it must be told the same one.
const citer = (texte: string) => (/^[\w./:@%+-]+$/.test(texte) ? texte : `'${texte.replaceAll("'", "'\\''")}'`);
const prefixeAdmin = process.env.RETOUCHE_DATA_DIR === undefined ? '' : `RETOUCHE_DATA_DIR=${citer(dossier)} `;

// Getting credits where none are sold (core/domaine/contact-credits.ts): the contact given, or this operator's
// own command, which the account page shows with the user's address in place of {email}.
if (process.env.RETOUCHE_CONTACT_CREDITS) {
  const lien = lienDeContact(process.env.RETOUCHE_CONTACT_CREDITS);
  if (!lien) refuser(`${refusContact('RETOUCHE_CONTACT_CREDITS', process.env.RETOUCHE_CONTACT_CREDITS)}.`);
} else {
  process.env.RETOUCHE_COMMANDE_CREDITS ??= `${prefixeAdmin}npm run --silent admin -- add-credits --email {email} --credits 20`;
}

// Ctrl-C during the start: nothing to wait for, the 'exit' handlers stop Java and release the lock.
let pile: Pile | undefined;
let arret = false;
const arreter = async () => {
  if (arret) return;
  arret = true;
  if (!pile) process.exit(0);
  console.log('\nStopping…');
  await pile.arreter();
  process.exit(0);
};
process.on('SIGINT', arreter);
process.on('SIGTERM', arreter);

// The folder of a running stack is refused before anything is started or written in it.
mkdirSync(dossier, { recursive: true });
try {
  verrou = await prendreVerrou(dossier);
} catch (erreur) {
  if (erreur instanceof DossierOccupe) refuser(erreur.message);
  throw erreur;
}

if (port !== 0) {
  const erreur = await essayerPort();
  if (portOccupe(erreur)) refuser(messagePort());
}

// Loaded only now: the stack's modules (the AWS SDK, sharp…) take about a second, which a refused
// start does not have to wait for.
// The web site is built when its sources changed since its last build (a fresh clone: once, seconds).
const { siteAJour, construireSite } = await import('./construire-site');
if (!siteAJour()) {
  console.log('Building the web site (site/ → site/dist)…');
  await construireSite().catch((erreur: unknown) =>
    process.stderr.write(`The web site could not be built (the API runs without it): ${(erreur as Error).message.split('\n')[0]}\n`),
  );
}

const { demarrerPile } = await import('./pile');
const { JavaAbsent } = await import('./dynamodb');
try {
  pile = await demarrerPile({
    port,
    dossier,
    delaiMoteurMs: delai,
    // What Cognito would email, shown here: the web site asks for it at sign-up and password reset.
    sessions: { surCode: ({ email, code }) => console.log(`Verification code for ${email}: ${code}`) },
    site: {},
  });
} catch (erreur) {
  // demarrerPile has stopped what it had started.
  if (portOccupe(erreur)) refuser(messagePort()); // taken between the check above and the gateway's listen
  if (erreur instanceof JavaAbsent) refuser(erreur.message);
  throw erreur;
}

// Noted in the project's register while it runs: the admin and credentials commands find it there
// when they are not told its data folder (piles-actives.ts).
process.on('exit', inscrire(dossier, pile.urlBase));

const { DOSSIER_SITE } = await import('./site');
const site = existsSync(join(DOSSIER_SITE, 'index.html'))
  ? `\n  The web site: ${pile.urlBase.replace(/\/api\/v1$/, '/')}  (sign up there; the verification codes appear here)\n`
  : '';
console.log(`Retouche is running on ${pile.urlBase}  (data: ${dossier})
${site}
  ${site ? 'Or create' : 'Create'} an account and its first API key, in another terminal, from this folder:
    ${prefixeAdmin}npm run --silent admin -- create-account --credits 100
  then for example:
    curl ${pile.urlBase}/outils
    curl -H "Authorization: Bearer <key>" ${pile.urlBase}/solde
    ${pile.urlBase.endsWith(':3000/api/v1') ? '' : `RETOUCHE_API=${pile.urlBase} `}RETOUCHE_CLE=<key> npx retouche solde
  AI assistants: ${pile.urlBase}/mcp with the key as bearer token, or \`npx retouche mcp\` (README, "Use it").
${
  process.env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK === '1'
    ? '  Webhooks may be delivered to http://127.0.0.1 (RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1: for trying and tests only).\n'
    : ''
}
Ctrl-C stops everything.`);
