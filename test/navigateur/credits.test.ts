/**
 * Getting credits is never a dead end (issue 41, point 4), in Chromium against `npm start`: on a stage that sells
 * no packs, the account page says how to get credits. With a contact (RETOUCHE_CONTACT_CREDITS, `-c contactCredits`
 * on AWS): the sentence, the contact as a link, the account's address with a copy button. Without one, locally: the
 * operator is whoever runs npm start, so the page shows the admin command that adds credits, the address filled
 * in, ready to copy — and the command works. axe-core and the Content Security Policy checked on each.
 *
 * `npm run test:site`. CHROMIUM names another browser binary.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { accessibilite, demarrerService, RACINE, type Service } from '../support/navigateur';

const MOT_DE_PASSE = 'Motdepasse1';
let service: Service | undefined;
afterEach(async () => {
  await service?.arreter();
  service = undefined;
});

const admin = (s: Service, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(RACINE, 'exploitation/admin.ts'), ...args], {
    cwd: RACINE,
    env: { ...process.env, RETOUCHE_DATA_DIR: s.dossier },
    encoding: 'utf8',
  });

/** A user the admin CLI makes (no credits), signed in, on the account page. */
const surLeCompte = async (s: Service, email: string) => {
  const cree = admin(s, 'create-user', '--email', email, '--password', MOT_DE_PASSE, '--credits', '0');
  expect(cree.status, cree.stderr).toBe(0);
  await s.navigateur.defaultBrowserContext().overridePermissions(s.origine, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  await s.page.goto(`${s.origine}/connexion`, { waitUntil: 'networkidle0' });
  await s.page.locator('#email').fill(email);
  await s.page.locator('#mot-de-passe').fill(MOT_DE_PASSE);
  await s.page.locator('form button[type=submit]').click();
  await s.page.waitForFunction("location.pathname !== '/connexion'");
  await s.page.goto(`${s.origine}/compte`, { waitUntil: 'networkidle0' });
  await s.page.waitForFunction(`document.body.innerText.includes(${JSON.stringify('0 credits')})`);
};
// (Page code as text: the tests compile without the DOM's types.)
const valeur = (s: Service, champ: string) => s.page.evaluate(`document.querySelector(${JSON.stringify(champ)}).value`) as Promise<string>;
const pressePapiers = (s: Service) => s.page.evaluate('navigator.clipboard.readText()') as Promise<string>;

describe('getting credits where none are sold, in Chromium', () => {
  it("with the stage's contact: a sentence, the contact as a link, the account's address to copy", async () => {
    service = await demarrerService({ prefixe: 'retouche-credits-', langue: 'en-US', env: { RETOUCHE_CONTACT_CREDITS: 'sales@retouche.example' } });
    const s = service;
    const email = `credits-${Date.now()}@example.com`;
    await surLeCompte(s, email);
    const texte = (await s.page.evaluate('document.body.innerText')) as string;
    expect(texte).toContain('This service does not sell credits on its site: ask its operator');
    expect(await s.page.$eval('#contact-credits a', (a) => [a.getAttribute('href'), a.textContent?.trim()])).toEqual([
      'mailto:sales@retouche.example',
      'sales@retouche.example',
    ]);
    expect(await valeur(s, '#adresse-compte')).toBe(email);
    await s.page.locator('button ::-p-text(Copy the address)').click();
    await s.page.waitForFunction("document.body.innerText.includes('Address copied.')");
    expect(await pressePapiers(s)).toBe(email);
    expect(await s.page.$('#commande-credits')).toBeNull();
    expect(await accessibilite(s.page)).toEqual([]);
    expect(s.violationsCsp).toEqual([]);
  }, 240_000);

  it('locally without a contact: the admin command, the address filled in, ready to copy, and it adds the credits', async () => {
    service = await demarrerService({ prefixe: 'retouche-credits-local-', langue: 'en-US' });
    const s = service;
    const email = `credits-local-${Date.now()}@example.com`;
    await surLeCompte(s, email);
    expect(await s.page.$eval('#aide-commande', (p) => p.textContent)).toContain('you are its operator');
    const commande = await valeur(s, '#commande-credits');
    expect(commande).toBe(`RETOUCHE_DATA_DIR=${s.dossier} npm run --silent admin -- add-credits --email ${email} --credits 20`);
    await s.page.locator('button ::-p-text(Copy the command)').click();
    await s.page.waitForFunction("document.body.innerText.includes('Command copied.')");
    expect(await pressePapiers(s)).toBe(commande);
    expect(await accessibilite(s.page)).toEqual([]);
    // What the page says to run does add the credits.
    const ajout = admin(s, 'add-credits', '--email', email, '--credits', '20');
    expect(ajout.status, ajout.stderr).toBe(0);
    await s.page.reload({ waitUntil: 'networkidle0' });
    await s.page.waitForFunction("document.body.innerText.includes('20 credits')");
    expect(s.violationsCsp).toEqual([]);
  }, 240_000);
});
