/**
 * The web site's door (issue 25, points 1 and 2), through the local stack with its Cognito emulator:
 * sign-up with the emailed code, the account made at the first visit (once, even when first visits
 * race), the API page's keys (5 at most, named, shown once, last use, revoked at once), sessions
 * apart from keys (a key cannot manage keys; a session's jobs say `web`), tenant isolation, and the
 * admin CLI's web user. And (issue 38, point 6) local sessions signed by this data folder's key only,
 * never by the one cognito-local ships.
 */
import { createSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdminConfirmSignUpCommand, ConfirmSignUpCommand, GetUserCommand, InitiateAuthCommand, SignUpCommand } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demarrerCognito, type CodeEnvoye } from '../../local/cognito';
import { verificateurSessions } from '../../lambdas/core/infra/sessions';
import { compteDeEmail, creerUtilisateurWeb } from '../../exploitation/utilisateurs-web';
import { appeler, attendreTravail, enBase64, imageTest } from '../support/client';
import { demarrerPileTest } from '../support/pile';

// The stage's contact for credits (-c contactCredits on AWS), read by the account page's function when the stack starts.
process.env.RETOUCHE_CONTACT_CREDITS = 'ventes@retouche.example';

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
const codes: CodeEnvoye[] = [];
const MOT_DE_PASSE = 'Motdepasse1';

beforeAll(async () => {
  pile = await demarrerPileTest({ sessions: { surCode: (c) => codes.push(c) } });
}, 60_000);
afterAll(async () => pile?.arreter());

const cognito = () => pile.cognito!;

/** Signs up as a person does on the site: the code "emailed" (printed by npm start), then a sign-in. */
const inscrire = async (email = `agent-${crypto.randomUUID()}@example.com`): Promise<{ email: string; jeton: string }> => {
  const c = cognito();
  await c.sdk.send(new SignUpCommand({ ClientId: c.client, Username: email, Password: MOT_DE_PASSE, UserAttributes: [{ Name: 'email', Value: email }] }));
  await expect.poll(() => codes.find((x) => x.email === email)).toBeDefined();
  const code = codes.find((x) => x.email === email)!.code;
  await c.sdk.send(new ConfirmSignUpCommand({ ClientId: c.client, Username: email, ConfirmationCode: code }));
  return { email, jeton: await connecter(email) };
};

const connecter = async (email: string, motDePasse = MOT_DE_PASSE): Promise<string> => {
  const c = cognito();
  const r = await c.sdk.send(
    new InitiateAuthCommand({ ClientId: c.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: motDePasse } }),
  );
  return r.AuthenticationResult!.IdToken!;
};

describe('web users and their account', () => {
  it('a new user gets an account at the first visit, with the stage’s sign-up credits (0 here)', async () => {
    const { email, jeton } = await inscrire();
    const r = await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton });
    expect(r.statut).toBe(200);
    expect(r.corps).toMatchObject({ email, credits: 0, travaux_ouverts: 0, cles: { actives: 0, max: 5 } });
    const encore = await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton });
    expect(encore.corps.id).toBe(r.corps.id);
  });

  it('a stage that sells no credits says how to reach its operator for them (issue 41, point 4): its contact, as a link', async () => {
    const { email, jeton } = await inscrire();
    const r = await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton });
    expect(r.statut).toBe(200);
    expect(r.corps).toMatchObject({ email, achats: null, contact_credits: { lien: 'mailto:ventes@retouche.example' } });
  });

  it('first visits that race make one account', async () => {
    const { jeton } = await inscrire();
    const reponses = await Promise.all(Array.from({ length: 8 }, () => appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })));
    expect(reponses.map((r) => r.statut)).toEqual(Array(8).fill(200));
    expect(new Set(reponses.map((r) => r.corps.id)).size).toBe(1);
  });

  it('refuses what is not a current ID token of the site: no token, a forged one, an access token, a key on the site’s routes', async () => {
    const { email, jeton } = await inscrire();
    expect((await appeler(pile.urlBase, 'GET', '/compte')).statut).toBe(401);
    const [tete, charge] = jeton.split('.');
    const forgee = `${tete}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(charge!, 'base64url').toString()), sub: 'autre' })).toString('base64url')}.${jeton.split('.')[2]}`;
    const r = await appeler(pile.urlBase, 'GET', '/compte', { cle: forgee });
    expect(r.statut).toBe(401);
    expect(r.corps.error.message).toMatch(/sign in to the web site again/);
    const c = cognito();
    const acces = await c.sdk.send(
      new InitiateAuthCommand({ ClientId: c.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: MOT_DE_PASSE } }),
    );
    expect((await appeler(pile.urlBase, 'GET', '/compte', { cle: acces.AuthenticationResult!.AccessToken! })).statut).toBe(401);
    const { cle } = await pile.creerCompte(10);
    const parCle = await appeler(pile.urlBase, 'GET', '/compte/cles', { cle });
    expect(parCle.statut).toBe(403);
    expect(parCle.corps.error).toMatchObject({ code: 'forbidden' });
  });

  it('the admin CLI makes a web user with a password and credits, who signs in at once', async () => {
    const email = `operateur-${crypto.randomUUID()}@example.com`;
    const cree = await creerUtilisateurWeb(cognito(), pile.deps, { email, motDePasse: 'Choisi-par-1', credits: 40 });
    const r = await appeler(pile.urlBase, 'GET', '/compte', { cle: await connecter(email, 'Choisi-par-1') });
    expect(r.corps).toMatchObject({ id: cree.account, email, credits: 40 });
    await expect(creerUtilisateurWeb(cognito(), pile.deps, { email, motDePasse: 'Choisi-par-1', credits: 1 })).rejects.toThrow(/already exists/);
  });

  it('the operator finds a web user’s account by their email address (admin add-credits --email), once it exists', async () => {
    const email = `demande-${crypto.randomUUID()}@example.com`;
    const c = cognito();
    await c.sdk.send(new SignUpCommand({ ClientId: c.client, Username: email, Password: MOT_DE_PASSE, UserAttributes: [{ Name: 'email', Value: email }] }));
    await expect(compteDeEmail(c, pile.deps, email)).rejects.toThrow(/no account yet: it is made at their first visit/);
    const { jeton } = await (async () => {
      await expect.poll(() => codes.find((x) => x.email === email)).toBeDefined();
      await c.sdk.send(new ConfirmSignUpCommand({ ClientId: c.client, Username: email, ConfirmationCode: codes.find((x) => x.email === email)!.code }));
      return { jeton: await connecter(email) };
    })();
    const id = (await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.id;
    expect(await compteDeEmail(c, pile.deps, email)).toBe(id);
    await expect(compteDeEmail(c, pile.deps, `personne-${crypto.randomUUID()}@example.com`)).rejects.toThrow(/no web user/);
  });
});

describe('the API page: keys', () => {
  it('creates up to 5 named keys, each shown once; the 6th is refused until one is revoked', async () => {
    const { jeton } = await inscrire();
    await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton });
    const creees: { id: string; cle: string }[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: ` CRM ${i} ` } });
      expect(r.statut).toBe(201);
      expect(r.corps.cle).toMatch(/^rtch_/);
      expect(r.corps).toMatchObject({ nom: `CRM ${i}`, apercu: r.corps.cle.slice(0, 9), utilisee_le: null });
      creees.push(r.corps);
    }
    const sixieme = await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: 'one more' } });
    expect(sixieme.statut).toBe(409);
    expect(sixieme.corps.error).toMatchObject({ code: 'too_many_keys', max: 5 });
    expect(sixieme.corps.error.message).toMatch(/at most 5 API keys.*revoke one/);

    const liste = await appeler(pile.urlBase, 'GET', '/compte/cles', { cle: jeton });
    expect(liste.corps.cles.map((c: { nom: string }) => c.nom).sort()).toEqual(['CRM 1', 'CRM 2', 'CRM 3', 'CRM 4', 'CRM 5']);
    // Never the key itself again.
    expect(JSON.stringify(liste.corps)).not.toContain(creees[0]!.cle);

    // A key works on the public API at once, and its use shows.
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: creees[0]!.cle })).statut).toBe(200);
    const apres = await appeler(pile.urlBase, 'GET', '/compte/cles', { cle: jeton });
    const utilisee = apres.corps.cles.find((c: { id: string }) => c.id === creees[0]!.id);
    expect(Date.parse(utilisee.utilisee_le)).toBeGreaterThan(Date.now() - 60_000);

    const revoque = await appeler(pile.urlBase, 'DELETE', `/compte/cles/${creees[0]!.id}`, { cle: jeton });
    expect(revoque.statut).toBe(204);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: creees[0]!.cle })).statut).toBe(401);
    expect((await appeler(pile.urlBase, 'DELETE', `/compte/cles/${creees[0]!.id}`, { cle: jeton })).statut).toBe(404);
    expect((await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: 'replacement' } })).statut).toBe(201);
    expect((await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.cles.actives).toBe(5);
  });

  it('5 keys asked at once: 5 made, never a 6th', async () => {
    const { jeton } = await inscrire();
    await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton });
    const r = await Promise.all(Array.from({ length: 9 }, (_, i) => appeler(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: `k${i}` } })));
    expect(r.filter((x) => x.statut === 201)).toHaveLength(5);
    expect(r.filter((x) => x.statut === 409)).toHaveLength(4);
    expect((await appeler(pile.urlBase, 'GET', '/compte/cles', { cle: jeton })).corps.cles).toHaveLength(5);
  });

  it('another account’s key is a 404, and a bad body says what is wrong', async () => {
    const a = await inscrire();
    const b = await inscrire();
    await appeler(pile.urlBase, 'GET', '/compte', { cle: a.jeton });
    await appeler(pile.urlBase, 'GET', '/compte', { cle: b.jeton });
    const cleDeA = await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: a.jeton, json: { nom: 'a' } });
    expect((await appeler(pile.urlBase, 'DELETE', `/compte/cles/${cleDeA.corps.id}`, { cle: b.jeton })).statut).toBe(404);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: cleDeA.corps.cle })).statut).toBe(200);

    const vide = await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: a.jeton, json: { nom: '   ' } });
    expect(vide.statut).toBe(400);
    expect(vide.corps.error).toMatchObject({ code: 'invalid_body', details: [{ chemin: 'nom' }] });
    expect((await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: a.jeton, json: {} })).corps.error.message).toMatch(/nom is required/);
    const texte = await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: a.jeton, corps: 'nom=a', entetes: { 'Content-Type': 'text/plain' } });
    expect(texte.statut).toBe(415);
    // A +json type is JSON here as on every JSON route (contrat/json.ts).
    const suffixe = await appeler(pile.urlBase, 'POST', '/compte/cles', {
      cle: a.jeton,
      corps: JSON.stringify({ nom: 'suffixe' }),
      entetes: { 'Content-Type': 'application/vnd.retouche+json; charset=utf-8' },
    });
    expect(suffixe.statut).toBe(201);
  });
});

describe('a session on the public API', () => {
  it('launches jobs marked `web` (a key’s say `api`), on the same balance, and sees no other account’s job', async () => {
    const email = `studio-${crypto.randomUUID()}@example.com`;
    await creerUtilisateurWeb(cognito(), pile.deps, { email, motDePasse: MOT_DE_PASSE, credits: 20 });
    const jeton = await connecter(email);
    const image = enBase64(await imageTest());
    const lance = await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: { outil: 'ciel', images: [{ base64: image }] } });
    expect(lance.statut).toBe(202);
    const travail = await attendreTravail(pile.urlBase, jeton, lance.corps.travaux[0].id);
    expect(travail).toMatchObject({ statut: 'termine', source: 'web' });
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: jeton })).corps.credits).toBe(20 - lance.corps.cout_total);

    const cle = await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: 'script' } });
    const parCle = await appeler(pile.urlBase, 'POST', '/travaux', { cle: cle.corps.cle, json: { outil: 'ciel', images: [{ base64: image }] } });
    expect((await attendreTravail(pile.urlBase, cle.corps.cle, parCle.corps.travaux[0].id)).source).toBe('api');

    const autre = await inscrire();
    await appeler(pile.urlBase, 'GET', '/compte', { cle: autre.jeton });
    expect((await appeler(pile.urlBase, 'GET', `/travaux/${travail.id}`, { cle: autre.jeton })).statut).toBe(404);
  });

  it('a user who never opened the account page is told to', async () => {
    const { jeton } = await inscrire();
    const r = await appeler(pile.urlBase, 'GET', '/solde', { cle: jeton });
    expect(r.statut).toBe(401);
    expect(r.corps.error.message).toMatch(/open the account page/);
  });
});

describe('local sessions are this stack’s own (issue 38, point 6)', () => {
  const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  /** The private key cognito-local ships in its package: anyone with the project's node_modules can read it. */
  const clePaquet = (): string =>
    (JSON.parse(readFileSync(join(RACINE, 'node_modules', 'cognito-local', 'lib', 'keys', 'cognitoLocal.private.json'), 'utf8')) as { pem: string }).pem;
  const partie = (jeton: string, i: number) => JSON.parse(Buffer.from(jeton.split('.')[i]!, 'base64url').toString()) as Record<string, unknown>;
  /** The token `vrai` again, as signed by `pem` under `kid`: what cognito-local's own key would sign for that user. */
  const resigner = (vrai: string, kid: string, pem: string) => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const corps = `${b64({ ...partie(vrai, 0), kid })}.${b64(partie(vrai, 1))}`;
    return `${corps}.${createSign('RSA-SHA256').update(corps).sign(pem, 'base64url')}`;
  };

  it('refuses an ID token of an existing user signed with cognito-local’s key, under its kid or ours; the real one is accepted', async () => {
    const { jeton } = await inscrire();
    expect((await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: jeton })).statut).toBe(200);
    expect(partie(jeton, 0).kid).toMatch(/^retouche-local-/);
    for (const kid of ['CognitoLocal', partie(jeton, 0).kid as string]) {
      const forgee = resigner(jeton, kid, clePaquet());
      const compte = await appeler(pile.urlBase, 'GET', '/compte', { cle: forgee });
      expect(compte.statut).toBe(401);
      expect(compte.corps.error.message).toMatch(/sign in to the web site again/);
      expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: forgee })).statut).toBe(401);
    }
  });

  it('the emulator verifies an access token before it acts on it: one signed with its package’s key is refused', async () => {
    const { email } = await inscrire();
    const c = cognito();
    const { AuthenticationResult } = await c.sdk.send(
      new InitiateAuthCommand({ ClientId: c.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: MOT_DE_PASSE } }),
    );
    const acces = AuthenticationResult!.AccessToken!;
    expect((await c.sdk.send(new GetUserCommand({ AccessToken: acces }))).Username).toBeDefined();
    await expect(c.sdk.send(new GetUserCommand({ AccessToken: resigner(acces, 'CognitoLocal', clePaquet()) }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  it('a data folder of an earlier version (no key yet) gets one, owner-only, and its users sign in with it', async () => {
    const dossier = mkdtempSync(join(tmpdir(), 'retouche-cognito-'));
    try {
      const email = `ancien-${crypto.randomUUID()}@example.com`;
      const premier = await demarrerCognito({ dossier });
      await premier.sdk.send(
        new SignUpCommand({ ClientId: premier.client, Username: email, Password: MOT_DE_PASSE, UserAttributes: [{ Name: 'email', Value: email }] }),
      );
      await premier.sdk.send(new AdminConfirmSignUpCommand({ UserPoolId: premier.pool, Username: email }));
      await premier.arreter();
      rmSync(join(dossier, 'cognito', 'cle-jetons.json'));

      const second = await demarrerCognito({ dossier });
      try {
        expect(second.pool).toBe(premier.pool);
        expect(statSync(join(dossier, 'cognito', 'cle-jetons.json')).mode & 0o777).toBe(0o600);
        expect(second.jwks.keys[0]!.kid).not.toBe(premier.jwks.keys[0]!.kid);
        const { AuthenticationResult } = await second.sdk.send(
          new InitiateAuthCommand({ ClientId: second.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: MOT_DE_PASSE } }),
        );
        const verifier = verificateurSessions({ emetteur: second.emetteur, client: second.client, jwks: second.jwks });
        expect(await verifier(AuthenticationResult!.IdToken!)).toMatchObject({ email });
      } finally {
        await second.arreter();
      }
    } finally {
      rmSync(dossier, { recursive: true, force: true });
    }
  });
});
