/**
 * The web site in a real browser (issue 25, point 9): Debian's Chromium, driven by puppeteer-core,
 * against `npm start` as a person runs it. Sign up with the code `npm start` prints, the account page,
 * the API page (a key made, shown once, working on the API, revoked; a test key made with its checkbox, badged,
 * its job free; a webhook added with its secret shown
 * once, tested, its delivery shown, deleted), signing out and in, the language switch; on every page an
 * automated accessibility check (axe-core: no serious or critical violation) and not one Content Security
 * Policy violation. The screenshots it takes are the README's.
 *
 * `npm run test:site` (CI: .ci/run, which installs Chromium). CHROMIUM names another browser binary.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'puppeteer-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilite as accessibiliteDe, CAPTURES, demarrerService, RACINE, type Service } from '../support/navigateur';

const MOT_DE_PASSE = 'Motdepasse1';
const SECRET_STRIPE = 'whsec_site';

let service: Service;
let page: Page;
let origine: string;
let violationsCsp: string[];

beforeAll(async () => {
  service = await demarrerService({
    prefixe: 'retouche-site-',
    // A French browser: the site's first visit follows the browser's language.
    langue: 'fr-FR',
    // New accounts start with 20 credits here, enough for the job the history shows; one pack on sale.
    env: {
      RETOUCHE_CREDITS_INSCRIPTION: '20',
      RETOUCHE_PACKS: JSON.stringify([{ lien: 'plink_1Site', url: 'https://buy.stripe.com/test_site', credits: 100, prix: '49 €' }]),
      RETOUCHE_STRIPE_SECRET: SECRET_STRIPE,
    },
  });
  ({ page, origine, violationsCsp } = service);
}, 180_000);

afterAll(async () => service?.arreter());

const accessibilite = () => accessibiliteDe(page);
const attendre = <T>(quoi: () => T | undefined | false, ms: number, raison: string) => service.attendre(quoi, ms, raison);

const aller = async (chemin: string) => {
  await page.goto(`${origine}${chemin}`, { waitUntil: 'networkidle0' });
};

const saisir = async (id: string, texte: string) => {
  await page.locator(`#${id}`).fill(texte);
};

/** The `n`th code npm start printed for this address (1: the sign-up's, 2: a password reset's). */
const codePour = (email: string, n = 1) =>
  attendre(
    () => [...service.sortie().matchAll(new RegExp(`Verification code for ${email.replace(/[.+]/g, '\\$&')}: (\\d+)`, 'g'))][n - 1]?.[1],
    15_000,
    `no code ${n} for ${email}`,
  );

const capturer = (nom: string) => page.screenshot({ path: join(CAPTURES, `${nom}.png`) as `${string}.png` });

describe('the web site, in Chromium', () => {
  const email = `agent-${Date.now()}@example.com`;

  it('serves its home page under a strict policy, in the browser’s language, switchable', async () => {
    const reponse = await page.goto(`${origine}/`, { waitUntil: 'networkidle0' });
    const csp = reponse!.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.evaluate('document.documentElement.lang')).toBe('fr');
    // The first page's JavaScript, compressed as any server would send it: about 65 KB, well under the
    // issue's 150; Vue's development build, which npm start made under the test runner's NODE_ENV=test
    // until it forced production, was about 120.
    const scripts = (await page.evaluate(
      "performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')).concat([...document.scripts].map((s) => s.src).filter(Boolean))",
    )) as string[];
    const octets = await Promise.all([...new Set(scripts)].map(async (url) => gzipSync(Buffer.from(await (await fetch(url)).arrayBuffer())).length));
    expect(octets.reduce((a, b) => a + b, 0) / 1024).toBeLessThan(100);
    expect(octets.length).toBeGreaterThan(0);
    expect(await accessibilite()).toEqual([]);
    await capturer('accueil-fr');
    await page.locator('::-p-text(English)').click();
    await page.waitForFunction("document.documentElement.lang === 'en'");
    expect(await accessibilite()).toEqual([]);
    await capturer('accueil-en');
  });

  it('signs a new user up with the code npm start prints, and opens their account', async () => {
    await aller('/inscription');
    await saisir('email', email);
    await saisir('mot-de-passe', MOT_DE_PASSE);
    expect(await accessibilite()).toEqual([]);
    await page.locator('form button[type=submit]').click();
    await page.locator('#code').wait();
    await saisir('code', await codePour(email));
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction("location.pathname === '/compte'");
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(email)})`);
    expect(await accessibilite()).toEqual([]);
    await capturer('compte');
  });

  it('makes an API key shown once, which works on the API at once, and revokes it', async () => {
    await aller('/compte/cles');
    await saisir('nom-cle', 'CRM export');
    await page.locator('form button[type=submit]').click();
    await page.locator('#cle-creee').wait();
    const cle = (await page.evaluate("document.querySelector('#cle-creee').value")) as string;
    expect(cle).toMatch(/^rtch_/);
    expect(await accessibilite()).toEqual([]);
    await capturer('cles');
    expect((await fetch(`${origine}/api/v1/solde`, { headers: { Authorization: `Bearer ${cle}` } })).status).toBe(200);
    // A job started with it, which the history shows next.
    const formulaire = new FormData();
    formulaire.set('outil', 'ciel');
    formulaire.set(
      'image',
      new Blob([readFileSync(join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-a.jpg'))], { type: 'image/jpeg' }),
      'facade.jpg',
    );
    const lancement = await fetch(`${origine}/api/v1/travaux`, { method: 'POST', headers: { Authorization: `Bearer ${cle}` }, body: formulaire });
    expect(lancement.status).toBe(202);

    // Shown once: after a reload, the list has the key's name and prefix, never the key.
    await aller('/compte/cles');
    await page.waitForFunction("document.body.innerText.includes('CRM export')");
    expect(await page.evaluate('document.body.innerText')).not.toContain(cle);
    // A live key: no test badge.
    expect(await page.evaluate("document.querySelectorAll('main table .etiquette-test').length")).toBe(0);

    await page.locator('::-p-aria(Revoke CRM export)').click();
    // The confirmation step, then the key is gone.
    await page.locator('::-p-aria(Confirm revoking CRM export)').click();
    await page.waitForFunction("!document.querySelector('main table')?.innerText.includes('CRM export')");
    expect(await page.evaluate('document.body.innerText')).toContain('The key CRM export is revoked');
    expect((await fetch(`${origine}/api/v1/solde`, { headers: { Authorization: `Bearer ${cle}` } })).status).toBe(401);
  });

  it('makes a test key with its checkbox, badged as such, whose jobs cost nothing', async () => {
    await aller('/compte/cles');
    await saisir('nom-cle', 'Staging');
    // The checkbox, found by its label as a person (or a screen reader) finds it.
    await page.locator('::-p-aria(Test key — free jobs on the preview engine, kept apart from live ones)').click();
    expect(await page.evaluate("document.querySelector('#test-cle').checked")).toBe(true);
    await page.locator('form button[type=submit]').click();
    await page.locator('#cle-creee').wait();
    const cle = (await page.evaluate("document.querySelector('#cle-creee').value")) as string;
    expect(cle).toMatch(/^rtch_test_/);
    // The one-time display says it is a test key, and the key's field is described by it.
    expect(await page.evaluate("document.querySelector('#titre-cle-creee').innerText")).toBe('Your new test key “Staging”');
    expect(await page.evaluate("document.querySelector('#cle-creee-test').innerText")).toContain('test key: its jobs cost nothing');
    expect(await page.evaluate("document.querySelector('#cle-creee').getAttribute('aria-describedby')")).toBe('une-fois cle-creee-test');
    // Unticked again: the next key is a live one unless asked.
    expect(await page.evaluate("document.querySelector('#test-cle').checked")).toBe(false);
    const rangee = "[...document.querySelectorAll('main table tbody tr')].find((r) => r.innerText.includes('Staging'))";
    expect(await page.evaluate(`${rangee}?.querySelector('.etiquette-test')?.innerText`)).toBe('test');
    expect(await accessibilite()).toEqual([]);
    // The whole page: the new key shown once, and the list with its badge.
    await page.screenshot({ path: join(CAPTURES, 'cles-test.png') as `${string}.png`, fullPage: true });

    // On the API, from here (not the browser): free, and said to be a test.
    const solde = async () => {
      const reponse = await fetch(`${origine}/api/v1/solde`, { headers: { Authorization: `Bearer ${cle}` } });
      expect(reponse.status).toBe(200);
      return ((await reponse.json()) as { credits: number }).credits;
    };
    const avant = await solde();
    const lancement = await fetch(`${origine}/api/v1/travaux`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cle}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ outil: 'annonce', valeurs: { lieu: 'Gent' } }),
    });
    const reponse = (await lancement.json()) as { cout_total: number; travaux: { id: string; test?: boolean }[] };
    expect(lancement.status, JSON.stringify(reponse)).toBe(202);
    expect(reponse.cout_total).toBe(0);
    expect(reponse.travaux[0]!.test).toBe(true);
    expect(await solde()).toBe(avant);
    // Ended (the preview engine), and still nothing taken.
    const etat = async () =>
      (
        (await (await fetch(`${origine}/api/v1/travaux/${reponse.travaux[0]!.id}`, { headers: { Authorization: `Bearer ${cle}` } })).json()) as {
          statut: string;
        }
      ).statut;
    for (let i = 0; i < 60 && !['termine', 'echec'].includes(await etat()); i++) await new Promise((r) => setTimeout(r, 500));
    expect(await etat()).toBe('termine');
    expect(await solde()).toBe(avant);

    // Still badged after a reload (from GET /compte/cles), the key itself never shown again.
    await aller('/compte/cles');
    await page.waitForFunction("document.body.innerText.includes('Staging')");
    expect(await page.evaluate(`${rangee}?.querySelector('.etiquette-test')?.innerText`)).toBe('test');
    expect(await page.evaluate('document.body.innerText')).not.toContain(cle);
  });

  it('adds a webhook with its secret shown once, sends it a test event, shows the delivery, and deletes it', async () => {
    // https, as a stage wants it (this stack refuses http endpoints); the attempt cannot connect here, or is answered
    // by whoever serves example.com: either way the log shows the delivery.
    const url = 'https://example.com/retouche-hook';
    await aller('/compte/cles');
    await page.waitForFunction("document.body.innerText.includes('No webhook yet.')");
    // An address the API refuses: the site words why, in the page's language (issue 41), about its field.
    await saisir('url-webhook', 'https://localhost/retouche-hook');
    await page.locator('::-p-aria(Add the webhook)').click();
    await page.waitForFunction("document.querySelector('#url-webhook').getAttribute('aria-invalid') === 'true'");
    expect(await page.evaluate("document.querySelector('#erreur-webhooks').innerText")).toMatch(/^This address is refused: .*public host/);
    await saisir('url-webhook', url);
    // Both events are ticked at first: this one for jobs only.
    await page.locator('#evenement-lot').click();
    await page.locator('::-p-aria(Add the webhook)').click();
    await page.locator('#secret-webhook').wait();
    const secret = (await page.evaluate("document.querySelector('#secret-webhook').value")) as string;
    expect(secret).toMatch(/^whsec_/);
    expect(await page.evaluate("document.querySelector('#secret-une-fois').innerText")).toContain('it will never be shown again');
    const entree = "document.querySelector('li.webhook')?.innerText ?? ''";
    expect(await page.evaluate(entree)).toMatch(/example\.com\/retouche-hook\s+active[\s\S]*A job ended/);
    expect(await page.evaluate(entree)).not.toContain('A batch ended');

    await page.locator(`::-p-aria(Send a test event ${url})`).click();
    await page.waitForFunction("document.body.innerText.includes('A test event is on its way')");
    await page.locator(`::-p-aria(Deliveries ${url})`).click();
    await page.waitForSelector('tr.livraison');
    const ligne = "[...document.querySelectorAll('tr.livraison')].map((l) => l.innerText)";
    expect(await page.evaluate(ligne)).toEqual([expect.stringContaining('Test event')]);
    // Its first attempt made (the queue delivers within a second or so): its outcome, or its error and the next one.
    for (let i = 0; i < 30 && (await page.evaluate("document.querySelector('tr.livraison td:nth-child(4)').innerText.trim()")) === '0'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.locator(`::-p-aria(Reload Deliveries to ${url})`).click();
      await page.waitForFunction("!document.querySelector('.journal > button.lien').disabled");
    }
    expect(await page.evaluate(ligne)).toEqual([
      expect.stringMatching(/Test event[\s\S]*(pending|delivered|failed)\s+1\s+(HTTP \d+|connection failed|no answer|refused)/),
    ]);
    expect(await accessibilite()).toEqual([]);
    await (await page.$('section.webhooks'))!.screenshot({ path: join(CAPTURES, 'webhooks.png') as `${string}.png` });

    // Shown once: after a reload, the webhook is listed, never its secret.
    await aller('/compte/cles');
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(url)})`);
    expect(await page.evaluate('document.body.innerText')).not.toContain(secret);
    await page.locator(`::-p-aria(Delete ${url})`).click();
    await page.locator(`::-p-aria(Confirm deleting ${url})`).click();
    await page.waitForFunction("document.body.innerText.includes('The webhook https://example.com/retouche-hook is deleted')");
    await aller('/compte/cles');
    await page.waitForFunction("document.body.innerText.includes('No webhook yet.')");
  });

  it('lists the jobs with their result, and erases one after a confirmation', async () => {
    await page.locator('nav ::-p-aria(History)').click();
    await page.waitForFunction("location.pathname === '/historique'");
    // Until the job has ended (the local engine takes seconds), then its result is the thumbnail.
    for (let i = 0; i < 60 && !(await page.evaluate("document.body.innerText.includes('done')")); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      await aller('/historique');
    }
    await page.waitForFunction("document.querySelector('img.vignette')?.complete && document.querySelector('img.vignette').naturalWidth > 0");
    expect(await page.evaluate('document.body.innerText')).toContain('facade.jpg');
    expect(await accessibilite()).toEqual([]);
    await capturer('historique');
    await page.locator('::-p-aria(Erase facade.jpg)').click();
    await page.locator('::-p-aria(Confirm erasing facade.jpg)').click();
    await page.waitForFunction("document.body.innerText.includes('facade.jpg is erased')");
    await page.waitForFunction("!(document.querySelector('main ul.historique')?.innerText ?? '').includes('facade.jpg')");
  });

  it('sells a pack through its Stripe link, and shows the purchase among the movements', async () => {
    await page.locator('nav ::-p-aria(My account)').click();
    await page.waitForFunction("location.pathname === '/compte'");
    const lien = await page.waitForSelector('ul.packs a');
    const url = new URL((await lien!.evaluate((a) => a.getAttribute('href')))!);
    expect(`${url.origin}${url.pathname}`).toBe('https://buy.stripe.com/test_site');
    expect(url.searchParams.get('prefilled_email')).toBe(email);
    // What Stripe sends once the buyer has paid on its page (which this test cannot reach).
    const corps = JSON.stringify({
      id: 'evt_site',
      type: 'checkout.session.completed',
      data: {
        object: { id: 'cs_site', payment_status: 'paid', payment_link: 'plink_1Site', client_reference_id: url.searchParams.get('client_reference_id') },
      },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: SECRET_STRIPE });
    const reponse = await fetch(`${origine}/api/v1/paiements/stripe`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
      body: corps,
    });
    expect(await reponse.json()).toMatchObject({ statut: 'credite', credits: 100 });
    // Stripe's confirmation page sends the buyer back here.
    await aller('/compte?achat=ok');
    await page.waitForFunction("document.body.innerText.includes('Purchase')");
    const texte = (await page.evaluate('document.body.innerText')) as string;
    expect(texte).toContain('Thank you!');
    expect(texte).toMatch(/Purchase\s+\+100/);
    expect(texte).toMatch(/Welcome credits\s+\+20/);
    expect(texte).toContain('118 credits');
    expect(await accessibilite()).toEqual([]);
    await capturer('compte');
  });

  it('signs out, keeps the account pages closed, and signs in again', async () => {
    await page.locator('::-p-aria(Sign out)').click();
    // Signed out (the refresh token revoked at Cognito), back home.
    await page.waitForFunction("location.pathname === '/' && !document.body.innerText.includes('Sign out')");
    await aller('/compte');
    await page.waitForFunction("location.pathname === '/connexion'");
    await saisir('email', email);
    // A wrong password first: said as a refusal of the pair, with the focus kept in the form.
    await saisir('mot-de-passe', 'Mauvais1motdepasse');
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction("document.querySelector('#erreur')?.innerText.trim().length > 0");
    expect(await page.evaluate('location.pathname')).toBe('/connexion');
    expect(await page.evaluate("document.querySelector('#erreur').innerText")).not.toMatch(/8 characters/);
    await saisir('mot-de-passe', MOT_DE_PASSE);
    expect(await accessibilite()).toEqual([]);
    await capturer('connexion');
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction("location.pathname === '/compte'");
  });

  it('says an address is already signed up, and an unverified one gets its code step at sign-in', async () => {
    await page.locator('::-p-aria(Sign out)').click();
    await page.waitForFunction("location.pathname === '/' && !document.body.innerText.includes('Sign out')");
    await aller('/inscription');
    await saisir('email', email);
    await saisir('mot-de-passe', MOT_DE_PASSE);
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction("document.querySelector('#email')?.getAttribute('aria-invalid') === 'true'");
    expect(await page.evaluate('document.activeElement.id')).toBe('email');
    // Signed up, never verified, then back to sign in: the code step, then the account.
    const autre = `pas-verifie-${Date.now()}@example.com`;
    await saisir('email', autre);
    await page.locator('form button[type=submit]').click();
    await page.locator('#code').wait();
    await aller('/connexion');
    await saisir('email', autre);
    await saisir('mot-de-passe', MOT_DE_PASSE);
    await page.locator('form button[type=submit]').click();
    await page.locator('#code').wait();
    // Signing in sends no new code: the one emailed at sign-up still verifies the address.
    await saisir('code', await codePour(autre, 1));
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction("location.pathname === '/compte'");
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(autre)})`);
  });

  it('resets a forgotten password with the emailed code, and signs in with the new one', async () => {
    await page.locator('::-p-aria(Sign out)').click();
    await page.waitForFunction("location.pathname === '/' && !document.body.innerText.includes('Sign out')");
    await aller('/mot-de-passe');
    await saisir('email', email);
    await page.locator('form button[type=submit]').click();
    await page.locator('#nouveau-mot-de-passe').wait();
    await saisir('code', await codePour(email, 2));
    await saisir('nouveau-mot-de-passe', 'Autremotdepasse2');
    expect(await accessibilite()).toEqual([]);
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction(`location.pathname === '/compte' && document.body.innerText.includes(${JSON.stringify(email)})`);
  });

  it('fits a phone', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await aller('/compte');
    // Still signed in after the reload: the tab's refresh token (site/src/session.ts).
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(email)})`);
    const debordement = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    expect(debordement).toBeLessThanOrEqual(0);
    // The page, not the header (issue 41): one line, the links behind a menu button.
    const hauteurEntete = "document.querySelector('header.entete').getBoundingClientRect().height";
    expect(await page.evaluate(hauteurEntete)).toBeLessThanOrEqual(64);
    await capturer('compte-telephone');
    const bouton = 'button[aria-controls="menu-principal"]';
    const ouvert = `document.querySelector('${bouton}').getAttribute('aria-expanded') === 'true'`;
    expect(await page.evaluate("getComputedStyle(document.getElementById('menu-principal')).display")).toBe('none');
    // By keyboard: the button opens the links, Escape closes them and gives the focus back.
    await page.focus(bouton);
    await page.keyboard.press('Enter');
    await page.waitForFunction(ouvert);
    expect(await page.evaluate("getComputedStyle(document.getElementById('menu-principal')).display")).not.toBe('none');
    expect(await page.evaluate(hauteurEntete)).toBeLessThanOrEqual(64);
    expect(await accessibilite()).toEqual([]);
    await page.keyboard.press('Tab');
    expect(await page.evaluate("document.activeElement.closest('#menu-principal') !== null")).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForFunction(`!(${ouvert}) && document.activeElement === document.querySelector('${bouton}')`);
    // A link followed closes the menu.
    await page.locator(bouton).click();
    await page.waitForFunction(ouvert);
    await page.locator('#menu-principal a[href="/historique"]').click();
    await page.waitForFunction("location.pathname === '/historique'");
    await page.waitForFunction(`!(${ouvert})`);
    expect(await page.evaluate("getComputedStyle(document.getElementById('menu-principal')).display")).toBe('none');
    await page.setViewport({ width: 1280, height: 800 });
    // A wide screen shows the links, never the button.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('${bouton}')).display`)).toBe('none');
  });

  it('broke no Content Security Policy rule on the way', () => {
    expect(violationsCsp).toEqual([]);
  });
});
