/**
 * The wording of refusals as a client receives it: through the local gateway and the real handlers,
 * in JSON and in multipart, and on POST /televersements. Each answer names the field as the client
 * wrote it, says what is allowed, lists every problem in `error.details`, carries none of the
 * validator's words, and costs nothing. (The full list of mistakes is in test/unit/messages.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appeler, imageTest, type Reponse } from '../support/client';
import { pilePartagee, type PileTest } from '../support/pile';

type Pile = PileTest;
let pile: Pile;
let cle: string;
const CREDITS = 50;

beforeAll(async () => {
  pile = await pilePartagee();
  cle = (await pile.creerCompte(CREDITS)).cle;
});
afterAll(async () => pile?.arreter());

/** valibot's words and type names (the unit test holds the longer list). */
const JARGON = ['Expected', 'expected', 'Invalid', 'received', 'never', 'undefined', 'picklist', 'strict_object', 'union', 'literal', 'Object', 'Array'];

interface Probleme {
  chemin: string;
  message: string;
}

/** Status, code and the details' paths; every message free of jargon and naming its field. */
const refuse = (r: Reponse, statut: number, code: string, chemins: string[]): Probleme[] => {
  expect(r.statut, JSON.stringify(r.corps).slice(0, 400)).toBe(statut);
  expect(r.corps.error.code).toBe(code);
  const details = r.corps.error.details as Probleme[];
  expect(details.map((d) => d.chemin)).toEqual(chemins);
  for (const texte of [r.corps.error.message as string, ...details.map((d) => d.message)]) {
    for (const fragment of JARGON) expect(texte, texte).not.toContain(fragment);
  }
  for (const { chemin, message } of details) if (chemin) expect(message).toContain(chemin);
  return details;
};

const travaux = (json: unknown) => appeler(pile.urlBase, 'POST', '/travaux', { cle, json });
const formulaire = (remplir: (f: FormData) => void) => {
  const f = new FormData();
  remplir(f);
  return appeler(pile.urlBase, 'POST', '/travaux', { cle, corps: f });
};
const image = { url: 'https://photos.example.com/salon.jpg' };

describe('POST /travaux in JSON', () => {
  it('the three answers of the issue, now in plain English', async () => {
    const [lieu] = refuse(await travaux({ outil: 'annonce', valeurs: {} }), 422, 'invalid_settings', ['valeurs.lieu']);
    expect(lieu!.message).toMatch(/^valeurs\.lieu is required for annonce: the place of the property \(text, at most 1000 characters\), e\.g\. /);
    const [valeurs] = refuse(await travaux({ outil: 'annonce' }), 422, 'invalid_settings', ['valeurs']);
    expect(valeurs!.message).toMatch(/^valeurs is required for annonce: an object of its settings \(lieu required/);
    const [style] = refuse(await travaux({ outil: 'staging', style: 'moderne', images: [image] }), 422, 'invalid_settings', ['style']);
    expect(style!.message).toContain('style is a setting of staging: put it inside valeurs, e.g. {"outil":"staging","valeurs":{"style":"moderne"}}');
    expect(style!.message).toContain('did you mean "modern"?');
  });

  it('typos in outil and in a value, and an image with both url and base64: each with its path', async () => {
    const [outil] = refuse(await travaux({ outil: 'stagging', images: [image] }), 422, 'invalid_tool', ['outil']);
    expect(outil!.message).toContain('outil "stagging" is not a tool: did you mean "staging"?');
    const r = await travaux({
      outil: 'staging',
      valeurs: { style: 'moderen', stlye: 'modern' },
      images: [image, { url: image.url, base64: 'AAAA' }, { url: 'http://photos.example.com/a.jpg' }],
    });
    const details = refuse(r, 422, 'invalid_settings', ['valeurs.style', 'valeurs.stlye', 'images[1]', 'images[2].url']);
    expect(details[0]!.message).toContain('not "moderen": did you mean "modern"?');
    expect(details[1]!.message).toContain('did you mean style?');
    expect(details[2]!.message).toMatch(/^images\[1\] has both url and base64/);
    expect(details[3]!.message).toContain('must be an https URL');
    expect(r.corps.error.message).toMatch(/^4 problems: valeurs\.style /);
  });

  it('a body that is not JSON says where', async () => {
    const r = await appeler(pile.urlBase, 'POST', '/travaux', { cle, corps: '{"outil":"ciel",}', entetes: { 'Content-Type': 'application/json' } });
    refuse(r, 400, 'invalid_body', ['']);
    expect(r.corps.error.message).toBe('The body is not valid JSON at line 1, column 17 ("}"): remove the comma before }');
  });
});

describe('POST /travaux as a form', () => {
  it('names the form fields the client used', async () => {
    const photo = new Blob([await imageTest(1)], { type: 'image/jpeg' });
    const reglage = await formulaire((f) => {
      f.append('outil', 'staging');
      f.append('style', 'moderen');
      f.append('photo', photo, 'salon.jpg');
    });
    expect(refuse(reglage, 422, 'invalid_settings', ['style'])[0]!.message).toContain('style must be one of "modern"');
    const url = await formulaire((f) => {
      f.append('outil', 'ciel');
      f.append('photo', photo, 'salon.jpg');
      f.append('image_url', 'http://photos.example.com/a.jpg');
    });
    expect(refuse(url, 422, 'invalid_image', ['image_url'])[0]!.message).toMatch(/^image_url must be an https URL/);
    const lieu = await formulaire((f) => f.append('outil', 'annonce'));
    expect(refuse(lieu, 422, 'invalid_settings', ['lieu'])[0]!.message).toContain('send it as the form field lieu');
    const outil = await formulaire((f) => {
      f.append('outil', 'Ciel');
      f.append('photo', photo, 'salon.jpg');
    });
    expect(refuse(outil, 422, 'invalid_tool', ['outil'])[0]!.message).toContain('did you mean "ciel"?');
  });
});

describe('POST /televersements', () => {
  const annoncer = (json: unknown) => appeler(pile.urlBase, 'POST', '/televersements', { cle, json });

  it('fichiers missing or not an array, a bad type, taille not a whole number', async () => {
    refuse(await annoncer({ files: [] }), 422, 'invalid_image', ['fichiers', 'files']);
    expect(refuse(await annoncer({ fichiers: 'salon.jpg' }), 422, 'invalid_image', ['fichiers'])[0]!.message).toMatch(/^fichiers must be an array of files/);
    const details = refuse(await annoncer({ fichiers: [{ type: 'jpg', taille: 1.5 }, { type: 'image/png' }] }), 422, 'invalid_image', [
      'fichiers[0].type',
      'fichiers[0].taille',
      'fichiers[1].taille',
    ]);
    expect(details.map((d) => d.message)).toEqual([
      'fichiers[0].type must be one of "image/jpeg", "image/png" or "image/webp", not "jpg": did you mean "image/jpeg"?',
      'fichiers[0].taille must be a whole number (the exact size of the file in bytes), not 1.5',
      'fichiers[1].taille is required: the exact size of the file in bytes, e.g. 2483116',
    ]);
  });
});

describe('what it cost', () => {
  it('nothing', async () => {
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits).toBe(CREDITS);
    expect((await appeler(pile.urlBase, 'GET', '/travaux', { cle })).corps.travaux).toEqual([]);
  });
});
