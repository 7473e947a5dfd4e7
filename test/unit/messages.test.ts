/**
 * What a client is told when its body is refused (lambdas/core/contrat/messages/): for each common mistake,
 * the status, the code, the exact path as the client wrote it, and a message in plain English that
 * names the field and what is allowed. Nothing of valibot's own wording may reach a client: every
 * message and every detail of every refusal below goes through `sansJargon`.
 */
import { describe, expect, it } from 'vitest';
import { lireDemande } from '../../lambdas/core/contrat/demande';
import { ErreurApi } from '../../lambdas/core/modele/erreurs';
import { lireCorpsJson } from '../../lambdas/core/contrat/json';
import type { Probleme } from '../../lambdas/core/contrat/messages/formulation';
import { MEMBRES_FICHIER } from '../../lambdas/core/contrat/messages/televersements';
import { MEMBRES_CORPS, MEMBRES_IMAGE, validerRequete } from '../../lambdas/core/contrat/messages/travaux';
import { suggerer } from '../../lambdas/core/contrat/suggestions';
import { CATALOGUE, OUTILS } from '../../lambdas/core/modele/outils';
import { FichierAnnonce, ImageBase64, ImageTeleversement, ImageUrl, RequeteTeleversements, SCHEMAS_REQUETE } from '../../lambdas/core/contrat/schemas';
import { creerTeleversements } from '../../lambdas/core/domaine/televersements';
import { refus, refusDe } from '../support/refus';

/** Fragments of valibot's messages and type names; none may appear in anything a client reads. */
const JARGON = [
  'Expected',
  'expected',
  'Invalid',
  'received',
  'Received',
  'never',
  'undefined',
  'NaN',
  'picklist',
  'strict_object',
  'strictObject',
  'union',
  'variant',
  'literal',
  'min_length',
  'max_length',
  'min_value',
  'Object',
  'Array',
  '[object',
  'valibot',
  'issue',
];

/** Every message of the refusal, its summary and each detail: plain English, each naming its field. */
const sansJargon = (erreur: ErreurApi): Probleme[] => {
  const details = erreur.details.details as Probleme[];
  expect(Array.isArray(details), `details of ${erreur.message}`).toBe(true);
  expect(details.length).toBeGreaterThan(0);
  for (const texte of [erreur.message, ...details.map((d) => d.message)]) {
    for (const fragment of JARGON) expect(texte, `"${fragment}" in: ${texte}`).not.toContain(fragment);
    expect(texte.length).toBeGreaterThan(10);
  }
  for (const { chemin, message } of details) {
    expect(typeof chemin).toBe('string');
    // The field is named in its own message, as the client wrote it.
    if (chemin) expect(message, chemin).toContain(chemin);
  }
  return details;
};

/** A JSON body through the real reader (json.ts, outil, schemas), as POST /travaux reads it. */
const json = (corps: unknown) => refusDe(lireDemande('application/json', Buffer.from(typeof corps === 'string' ? corps : JSON.stringify(corps))));

const formulaire = async (remplir: (f: FormData) => void) => {
  const f = new FormData();
  remplir(f);
  const reponse = new Response(f);
  return refusDe(lireDemande(reponse.headers.get('content-type')!, Buffer.from(await reponse.arrayBuffer())));
};

/** The one problem of a refusal: status, code, path, and the message checked by the caller. */
const seul = (erreur: ErreurApi, statut: number, code: string, chemin: string): string => {
  expect(erreur.statut, erreur.message).toBe(statut);
  expect(erreur.code).toBe(code);
  const details = sansJargon(erreur);
  expect(details.map((d) => d.chemin)).toEqual([chemin]);
  expect(erreur.message).toBe(details[0]!.message);
  return details[0]!.message;
};

const image = { url: 'https://photos.example.com/salon.jpg' };
const STYLES = '"modern", "Scandinavian", "industrial", "classic elegant", "japandi" or "warm bohemian"';

describe('POST /travaux in JSON: the common mistakes', () => {
  it('a required setting missing: annonce without lieu, in the words of the catalogue', async () => {
    const message = seul(await json({ outil: 'annonce', valeurs: {} }), 422, 'invalid_settings', 'valeurs.lieu');
    expect(message).toBe(
      'valeurs.lieu is required for annonce: the place of the property (text, at most 1000 characters), e.g. {"outil":"annonce","valeurs":{"lieu":"<place of the property>"}}',
    );
  });

  it('valeurs missing where it is required, or not an object', async () => {
    expect(seul(await json({ outil: 'annonce' }), 422, 'invalid_settings', 'valeurs')).toBe(
      'valeurs is required for annonce: an object of its settings (lieu required; langue, infos and atouts optional), e.g. {"outil":"annonce","valeurs":{"lieu":"<place of the property>"}}',
    );
    expect(seul(await json({ outil: 'annonce', valeurs: 'Gent' }), 422, 'invalid_settings', 'valeurs')).toMatch(
      /^valeurs must be an object of settings, not the text "Gent": lieu required.*e\.g\. \{"outil":"annonce","valeurs":\{"lieu":/,
    );
    expect(seul(await json({ outil: 'staging', valeurs: ['style', 'modern'], images: [image] }), 422, 'invalid_settings', 'valeurs')).toMatch(
      /^valeurs must be an object of settings, not an array: piece, style, mention and floutage optional, e\.g\. \{"outil":"staging","valeurs":\{"piece":"living room"\}\}$/,
    );
    // An empty array was taken for {} (valibot reads arrays as objects); the spec and the OpenAPI document say an object.
    for (const outil of ['ciel', 'staging'] as const) {
      expect(seul(await json({ outil, valeurs: [], images: [image] }), 422, 'invalid_settings', 'valeurs')).toMatch(
        /^valeurs must be an object(?: of settings)?, not an array/,
      );
    }
    expect(seul(await json({ outil: 'ciel', valeurs: 'x', images: [image] }), 422, 'invalid_settings', 'valeurs')).toBe(
      'valeurs must be an object of settings, not the text "x": floutage optional, e.g. {"outil":"ciel","valeurs":{"floutage":"none"}}',
    );
  });

  it('a setting put beside outil: said to go inside valeurs, with the client’s own value', async () => {
    const corps = { outil: 'staging', style: 'japandi', images: [image] };
    expect(seul(await json(corps), 422, 'invalid_settings', 'style')).toBe(
      'style is a setting of staging: put it inside valeurs, e.g. {"outil":"staging","valeurs":{"style":"japandi"}}',
    );
    // The issue's own example: the value is not allowed either, and that is said at once.
    const moderne = seul(await json({ ...corps, style: 'moderne' }), 422, 'invalid_settings', 'style');
    expect(moderne).toContain('style is a setting of staging: put it inside valeurs, e.g. {"outil":"staging","valeurs":{"style":"moderne"}}');
    expect(moderne).toContain(`"moderne" is not one of its values either (one of ${STYLES}): did you mean "modern"?`);
    // A typo of a setting at the top level.
    expect(seul(await json({ outil: 'staging', stlye: 'modern', images: [image] }), 422, 'invalid_settings', 'stlye')).toBe(
      'stlye is not a member of the body: did you mean style? It is a setting of staging: put it inside valeurs, e.g. {"outil":"staging","valeurs":{"style":"modern"}}',
    );
  });

  it('a setting of another tool, an unknown one, and a typo: the tool’s settings listed, the closest suggested', async () => {
    expect(seul(await json({ outil: 'staging', valeurs: { zone: 'facade' }, images: [image] }), 422, 'invalid_settings', 'valeurs.zone')).toBe(
      "valeurs.zone is not a setting of staging but of renovation; staging's settings are piece, style, mention and floutage",
    );
    expect(seul(await json({ outil: 'vider', valeurs: { style: 'modern' }, images: [image] }), 422, 'invalid_settings', 'valeurs.style')).toBe(
      "valeurs.style is not a setting of vider but of staging and renovation; vider's only setting is floutage",
    );
    expect(seul(await json({ outil: 'staging', valeurs: { stlye: 'modern' }, images: [image] }), 422, 'invalid_settings', 'valeurs.stlye')).toBe(
      "valeurs.stlye is not a setting of staging: did you mean style? staging's settings are piece, style, mention and floutage",
    );
    expect(seul(await json({ outil: 'staging', valeurs: { couleur: 'rouge' }, images: [image] }), 422, 'invalid_settings', 'valeurs.couleur')).toBe(
      "valeurs.couleur is not a setting of staging; staging's settings are piece, style, mention and floutage",
    );
    expect(seul(await json({ outil: 'vider', style: 'modern', images: [image] }), 422, 'invalid_settings', 'style')).toBe(
      "style is not a member of the body: it is a setting of staging and renovation, not of vider; vider's only setting is floutage",
    );
    expect(seul(await json({ outil: 'staging', valeurs: { images: [image] }, images: [image] }), 422, 'invalid_settings', 'valeurs.images')).toBe(
      'valeurs.images is not a setting: images goes at the top level of the body, beside valeurs',
    );
  });

  it('a typo in a value: the allowed values listed, the closest suggested; a language by its code', async () => {
    expect(seul(await json({ outil: 'staging', valeurs: { style: 'moderen' }, images: [image] }), 422, 'invalid_settings', 'valeurs.style')).toBe(
      `valeurs.style must be one of ${STYLES}, not "moderen": did you mean "modern"?`,
    );
    expect(seul(await json({ outil: 'annonce', valeurs: { lieu: 'Gent', langue: 'fr' } }), 422, 'invalid_settings', 'valeurs.langue')).toBe(
      'valeurs.langue must be one of "French", "English", "Dutch", "German", "Spanish" or "Italian", not "fr": did you mean "French"?',
    );
    expect(seul(await json({ outil: 'staging', valeurs: { piece: 'living' }, images: [image] }), 422, 'invalid_settings', 'valeurs.piece')).toContain(
      'did you mean "living room"?',
    );
    // Nothing close: the list alone, and no guess.
    const baroque = seul(await json({ outil: 'staging', valeurs: { style: 'baroque' }, images: [image] }), 422, 'invalid_settings', 'valeurs.style');
    expect(baroque).toBe(`valeurs.style must be one of ${STYLES}, not "baroque"`);
  });

  it('wrong types: a number or an array where a string is wanted, in settings and in images', async () => {
    expect(seul(await json({ outil: 'staging', valeurs: { style: 3 }, images: [image] }), 422, 'invalid_settings', 'valeurs.style')).toBe(
      `valeurs.style must be a string, one of ${STYLES}, not the number 3`,
    );
    expect(seul(await json({ outil: 'annonce', valeurs: { lieu: ['Gent'] } }), 422, 'invalid_settings', 'valeurs.lieu')).toBe(
      'valeurs.lieu must be a string (the place of the property), not an array',
    );
    expect(seul(await json({ outil: 'annonce', valeurs: { lieu: '' } }), 422, 'invalid_settings', 'valeurs.lieu')).toBe(
      'valeurs.lieu must not be empty (the place of the property)',
    );
    expect(seul(await json({ outil: 'annonce', valeurs: { lieu: 'Gent', atouts: 'x'.repeat(1001) } }), 422, 'invalid_settings', 'valeurs.atouts')).toBe(
      'valeurs.atouts is 1001 characters long; at most 1000 are allowed',
    );
    expect(seul(await json({ outil: 'ciel', images: [{ url: 3 }] }), 422, 'invalid_image', 'images[0].url')).toBe(
      'images[0].url must be a string (the https URL of the image), not the number 3',
    );
  });

  it('images that are not an array, or an image that is none of the three forms', async () => {
    expect(seul(await json({ outil: 'ciel', images: image }), 422, 'invalid_image', 'images')).toBe(
      'images must be an array of images, not an object: put the image inside [ ], e.g. "images":[{"url":"https://example.com/photo.jpg"}]',
    );
    expect(seul(await json({ outil: 'ciel', images: 'https://photos.example.com/a.jpg' }), 422, 'invalid_image', 'images')).toContain(
      'images must be an array of images, not the text "https://photos.example.com/a.jpg"',
    );
    expect(seul(await json({ outil: 'ciel', images: [image, 'https://photos.example.com/b.jpg'] }), 422, 'invalid_image', 'images[1]')).toBe(
      'images[1] must be an object, not a string: write {"url":"https://photos.example.com/b.jpg"}',
    );
    expect(seul(await json({ outil: 'ciel', images: [image, image, 3] }), 422, 'invalid_image', 'images[2]')).toMatch(
      /^images\[2\] must be an object, not the number 3: an image is \{"url":"https:\/\/…"\}, \{"base64":"…"\} or \{"televersement":/,
    );
    expect(seul(await json({ outil: 'ciel', images: [{}] }), 422, 'invalid_image', 'images[0]')).toMatch(
      /^images\[0\] has no url, base64 or televersement\. An image is /,
    );
    expect(seul(await json({ outil: 'ciel', images: [{ link: 'https://a.example/x.jpg' }] }), 422, 'invalid_image', 'images[0]')).toContain(
      'did you mean url instead of link?',
    );
  });

  it('both url and base64 in one image', async () => {
    expect(seul(await json({ outil: 'ciel', images: [{ url: image.url, base64: 'AAAA' }] }), 422, 'invalid_image', 'images[0]')).toMatch(
      /^images\[0\] has both url and base64: an image is exactly one of .*; send each as its own image$/,
    );
  });

  it('the rules of each form of image, at the exact member', async () => {
    expect(seul(await json({ outil: 'ciel', images: [image, { url: 'http://photos.example.com/a.jpg' }] }), 422, 'invalid_image', 'images[1].url')).toBe(
      'images[1].url must be an https URL (http and other schemes are refused), not the text "http://photos.example.com/a.jpg"',
    );
    // Not a URL at all: one problem, not also "not https".
    expect(seul(await json({ outil: 'ciel', images: [{ url: 'salon.jpg' }] }), 422, 'invalid_image', 'images[0].url')).toBe(
      'images[0].url is not a valid URL: the text "salon.jpg"; write a full address such as https://example.com/photo.jpg',
    );
    expect(seul(await json({ outil: 'ciel', images: [{ base64: '' }] }), 422, 'invalid_image', 'images[0].base64')).toBe(
      'images[0].base64 must not be empty (the image in base64, or a data URL)',
    );
    expect(seul(await json({ outil: 'ciel', images: [{ televersement: 'salon.jpg' }] }), 422, 'invalid_image', 'images[0].televersement')).toBe(
      'images[0].televersement must be the id of an upload made with POST /televersements (a UUID), not the text "salon.jpg"',
    );
    expect(seul(await json({ outil: 'ciel', images: [{ ...image, name: 'salon' }] }), 422, 'invalid_image', 'images[0].name')).toMatch(
      /^images\[0\]\.name is not a member of an image: did you mean nom\? An image is /,
    );
    expect(seul(await json({ outil: 'ciel', images: [{ ...image, nom: 'n'.repeat(256) }] }), 422, 'invalid_image', 'images[0].nom')).toBe(
      'images[0].nom is 256 characters long; at most 255 are allowed',
    );
  });

  it('images missing, empty, or too many', async () => {
    expect(seul(await json({ outil: 'ciel' }), 422, 'invalid_image', 'images')).toMatch(/^images is required for ciel: a list of 1 to 50 images, each \{"url"/);
    expect(seul(await json({ outil: 'ciel', images: [] }), 422, 'invalid_image', 'images')).toBe(
      'images is empty: ciel needs at least 1 image, e.g. "images":[{"url":"https://example.com/photo.jpg"}]',
    );
    const sept = Array.from({ length: 7 }, () => image);
    expect(seul(await json({ outil: 'annonce', valeurs: { lieu: 'Gent' }, images: sept }), 422, 'invalid_image', 'images')).toBe(
      'images holds 7 images: annonce takes at most 6',
    );
  });

  it('unknown members of the body, with the closest one', async () => {
    expect(seul(await json({ outil: 'ciel', images: [image], priorite: 'haute' }), 422, 'invalid_settings', 'priorite')).toBe(
      "priorite is not a member of the body: the body has outil, valeurs and images; ciel's settings go inside valeurs: floutage",
    );
    const image1 = await json({ outil: 'ciel', image: [image] });
    expect(image1.code).toBe('invalid_image');
    expect(sansJargon(image1)).toEqual([
      { chemin: 'images', message: expect.stringMatching(/^images is required for ciel/) },
      { chemin: 'image', message: 'image is not a member of the body: did you mean images? The body has outil, valeurs and images' },
    ]);
    const url = sansJargon(await json({ outil: 'ciel', url: 'https://photos.example.com/a.jpg' }));
    expect(url[1]).toEqual({
      chemin: 'url',
      message: 'url is not a member of the body: an image goes inside images, e.g. "images":[{"url":"https://photos.example.com/a.jpg"}]',
    });
  });

  it('outil missing, misspelt, of the wrong type', async () => {
    expect(seul(await json({ images: [image] }), 422, 'invalid_tool', 'outil')).toBe(
      'outil is required: one of vider, staging, renovation, saison, ciel, annonce, fusion, e.g. {"outil":"ciel","images":[{"url":"https://example.com/photo.jpg"}]}',
    );
    expect(seul(await json({ tool: 'ciel', images: [image] }), 422, 'invalid_tool', 'outil')).toContain('; the body has tool: did you mean outil?');
    expect(seul(await json({ outil: 'Ciel', images: [image] }), 422, 'invalid_tool', 'outil')).toBe(
      'outil "Ciel" is not a tool: did you mean "ciel"? The tools are vider, staging, renovation, saison, ciel, annonce, fusion (GET /outils describes them)',
    );
    expect(seul(await json({ outil: 'stagging', images: [image] }), 422, 'invalid_tool', 'outil')).toContain('did you mean "staging"?');
    expect(seul(await json({ outil: 'peinture' }), 422, 'invalid_tool', 'outil')).toBe(
      'outil "peinture" is not a tool. The tools are vider, staging, renovation, saison, ciel, annonce, fusion (GET /outils describes them)',
    );
    expect(seul(await json({ outil: ['ciel'] }), 422, 'invalid_tool', 'outil')).toBe(
      'outil must be a string, one of vider, staging, renovation, saison, ciel, annonce, fusion, not an array',
    );
    expect(seul(await json({ outil: '' }), 422, 'invalid_tool', 'outil')).toBe(
      'outil is empty: it must be one of vider, staging, renovation, saison, ciel, annonce, fusion',
    );
  });

  it('several problems: each in details with its path, the first three in the summary', async () => {
    const erreur = await json({ outil: 'staging', valeurs: { style: 'moderen', piece: 3, couleur: 'rouge' }, images: [{ url: 'http://a.example/1.jpg' }, 3] });
    expect(erreur.code).toBe('invalid_settings');
    const details = sansJargon(erreur);
    expect(details.map((d) => d.chemin)).toEqual(['valeurs.piece', 'valeurs.style', 'valeurs.couleur', 'images[0].url', 'images[1]']);
    expect(erreur.message).toMatch(/^5 problems: valeurs\.piece .*; valeurs\.style .*; valeurs\.couleur .*; and 2 more, listed in details$/);
  });

  it('keys that are not identifiers are quoted in the path', async () => {
    const erreur = await json({ outil: 'staging', valeurs: { 'ma clé': 'x' }, images: [image] });
    expect(sansJargon(erreur)[0]!.chemin).toBe('valeurs["ma clé"]');
  });
});

describe('POST /travaux as a form: the fields the client used', () => {
  const jpeg = () => new Blob([Buffer.from([0xff, 0xd8, 0xff, 0xe0])]);

  it('a setting is named by its field, with the closest one for a typo', async () => {
    expect(
      seul(
        await formulaire((f) => {
          f.append('outil', 'staging');
          f.append('style', 'moderen');
          f.append('photo', jpeg(), 'a.jpg');
        }),
        422,
        'invalid_settings',
        'style',
      ),
    ).toBe(`style must be one of ${STYLES}, not "moderen": did you mean "modern"?`);
    expect(
      seul(
        await formulaire((f) => {
          f.append('outil', 'staging');
          f.append('stlye', 'modern');
          f.append('photo', jpeg(), 'a.jpg');
        }),
        422,
        'invalid_settings',
        'stlye',
      ),
    ).toBe("stlye is not a setting of staging: did you mean style? staging's settings are piece, style, mention and floutage");
    expect(
      seul(
        await formulaire((f) => {
          f.append('outil', 'ciel');
          f.append('couleur', 'rose');
          f.append('photo', jpeg(), 'a.jpg');
        }),
        422,
        'invalid_settings',
        'couleur',
      ),
    ).toBe("couleur is not a setting of ciel; ciel's only setting is floutage");
    // The JSON shape written as form fields.
    for (const champ of ['valeurs[style]', 'valeurs.style']) {
      expect(
        seul(
          await formulaire((f) => {
            f.append('outil', 'staging');
            f.append(champ, 'modern');
            f.append('photo', jpeg(), 'a.jpg');
          }),
          422,
          'invalid_settings',
          champ,
        ),
      ).toBe(`${champ} is not a form field: in a form each setting is its own field, e.g. style=modern`);
    }
  });

  it('a required setting missing, a field given twice, valeurs sent as one field', async () => {
    expect(seul(await formulaire((f) => f.append('outil', 'annonce')), 422, 'invalid_settings', 'lieu')).toBe(
      'lieu is required for annonce: the place of the property (text, at most 1000 characters); send it as the form field lieu',
    );
    const deux = await formulaire((f) => {
      f.append('outil', 'staging');
      f.append('style', 'modern');
      f.append('style', 'japandi');
    });
    expect(seul(deux, 422, 'invalid_settings', 'style')).toMatch(/^style is given 2 times; give it once/);
    expect(
      seul(
        await formulaire((f) => {
          f.append('outil', 'ciel');
          f.append('outil', 'vider');
        }),
        422,
        'invalid_tool',
        'outil',
      ),
    ).toBe('outil is given 2 times; give it once');
    expect(
      seul(
        await formulaire((f) => {
          f.append('outil', 'staging');
          f.append('valeurs', '{"style":"modern"}');
          f.append('photo', jpeg(), 'a.jpg');
        }),
        422,
        'invalid_settings',
        'valeurs',
      ),
    ).toBe('valeurs is not a form field: in a form each setting is its own field, e.g. piece=living room');
  });

  it('images by their field: image_url, televersement, and a file by its own field name', async () => {
    const url = await formulaire((f) => {
      f.append('outil', 'ciel');
      f.append('photo', jpeg(), 'a.jpg');
      f.append('image_url', 'https://a.example/ok.jpg');
      f.append('image_url', 'http://a.example/x.jpg');
    });
    expect(seul(url, 422, 'invalid_image', 'image_url')).toBe(
      'image_url must be an https URL (http and other schemes are refused), not the text "http://a.example/x.jpg"',
    );
    const televersement = await formulaire((f) => {
      f.append('outil', 'ciel');
      f.append('televersement', 'salon.jpg');
    });
    expect(seul(televersement, 422, 'invalid_image', 'televersement')).toContain('televersement must be the id of an upload made with POST /televersements');
    const nom = await formulaire((f) => {
      f.append('outil', 'ciel');
      f.append('maison', jpeg(), `${'n'.repeat(300)}.jpg`);
    });
    expect(seul(nom, 422, 'invalid_image', 'maison')).toBe('the file name of maison is 304 characters long; at most 255 are allowed');
  });

  it('no image, too many images, a misspelt image field, outil missing or misspelt', async () => {
    expect(seul(await formulaire((f) => f.append('outil', 'ciel')), 422, 'invalid_image', '')).toBe(
      'ciel needs at least 1 image: send a file (under any field name), an image_url field or a televersement field',
    );
    const sept = await formulaire((f) => {
      f.append('outil', 'annonce');
      f.append('lieu', 'Gent');
      for (let i = 0; i < 7; i++) f.append('image_url', `https://a.example/${i}.jpg`);
    });
    expect(seul(sept, 422, 'invalid_image', '')).toBe('annonce takes at most 6 images; this form has 7 (files, image_url and televersement fields together)');
    const mal = await formulaire((f) => {
      f.append('outil', 'ciel');
      f.append('imageurl', 'https://a.example/x.jpg');
    });
    expect(mal.code).toBe('invalid_settings');
    expect(sansJargon(mal)[0]).toEqual({
      chemin: 'imageurl',
      message:
        "imageurl is not a field of this form: did you mean image_url? A form has outil, the tool's settings, files (under any field name), image_url and televersement fields",
    });
    expect(seul(await formulaire((f) => f.append('tool', 'ciel')), 422, 'invalid_tool', 'outil')).toBe(
      'outil is required: add the form field outil, one of vider, staging, renovation, saison, ciel, annonce, fusion; the form has tool: did you mean outil?',
    );
    expect(seul(await formulaire((f) => f.append('outil', 'Ciel')), 422, 'invalid_tool', 'outil')).toContain('did you mean "ciel"?');
  });
});

describe('POST /televersements', () => {
  // Validation comes first: the dependencies are never reached.
  const d = new Proxy(
    {},
    {
      get: () => {
        throw new Error('reached a dependency');
      },
    },
  ) as Parameters<typeof creerTeleversements>[0];
  const annoncer = (corps: unknown) => refusDe(creerTeleversements(d, 'compte', 'application/json', Buffer.from(JSON.stringify(corps))));
  const EXEMPLE = '{"fichiers":[{"nom":"salon.jpg","type":"image/jpeg","taille":2483116}]}';

  it('fichiers missing, empty, not an array, too many', async () => {
    expect(seul(await annoncer({}), 422, 'invalid_image', 'fichiers')).toBe(`fichiers is required: the list of files you are about to upload, e.g. ${EXEMPLE}`);
    expect(seul(await annoncer({ fichiers: [] }), 422, 'invalid_image', 'fichiers')).toBe(`fichiers is empty: announce at least 1 file, e.g. ${EXEMPLE}`);
    expect(seul(await annoncer({ fichiers: 'salon.jpg' }), 422, 'invalid_image', 'fichiers')).toBe(
      `fichiers must be an array of files, not the text "salon.jpg", e.g. ${EXEMPLE}`,
    );
    expect(seul(await annoncer({ fichiers: { type: 'image/jpeg', taille: 3 } }), 422, 'invalid_image', 'fichiers')).toContain(
      'not an object: put the file inside [ ]',
    );
    const trop = Array.from({ length: 51 }, () => ({ type: 'image/jpeg', taille: 1 }));
    expect(seul(await annoncer({ fichiers: trop }), 422, 'invalid_image', 'fichiers')).toBe(
      'fichiers holds 51 files; at most 50 per request: announce the others in another request',
    );
    const files = sansJargon(await annoncer({ files: [{ type: 'image/jpeg', taille: 1 }] }));
    expect(files.map((p) => p.chemin)).toEqual(['fichiers', 'files']);
    expect(files[1]!.message).toBe(`files is not a member of the body: did you mean fichiers? The body is ${EXEMPLE}`);
  });

  it('a bad type, with the closest allowed one', async () => {
    expect(seul(await annoncer({ fichiers: [{ type: 'image/gif', taille: 10 }] }), 422, 'invalid_image', 'fichiers[0].type')).toBe(
      'fichiers[0].type must be one of "image/jpeg", "image/png" or "image/webp", not "image/gif"',
    );
    expect(seul(await annoncer({ fichiers: [{ type: 'jpg', taille: 10 }] }), 422, 'invalid_image', 'fichiers[0].type')).toContain(
      'not "jpg": did you mean "image/jpeg"?',
    );
    expect(seul(await annoncer({ fichiers: [{ type: 'image/jpg', taille: 10 }] }), 422, 'invalid_image', 'fichiers[0].type')).toContain(
      'did you mean "image/jpeg"?',
    );
    expect(seul(await annoncer({ fichiers: [{ taille: 10 }] }), 422, 'invalid_image', 'fichiers[0].type')).toBe(
      'fichiers[0].type is required: the Content-Type the file will be uploaded with, one of "image/jpeg", "image/png" or "image/webp"',
    );
  });

  it('taille missing, not a number, not whole, zero', async () => {
    const fichier = { type: 'image/png' };
    expect(seul(await annoncer({ fichiers: [fichier] }), 422, 'invalid_image', 'fichiers[0].taille')).toBe(
      'fichiers[0].taille is required: the exact size of the file in bytes, e.g. 2483116',
    );
    expect(seul(await annoncer({ fichiers: [{ ...fichier, taille: '2483116' }] }), 422, 'invalid_image', 'fichiers[0].taille')).toBe(
      'fichiers[0].taille must be a number (the exact size of the file in bytes), not the text "2483116": write 2483116 without quotes',
    );
    expect(seul(await annoncer({ fichiers: [{ ...fichier, taille: 1.5 }] }), 422, 'invalid_image', 'fichiers[0].taille')).toBe(
      'fichiers[0].taille must be a whole number (the exact size of the file in bytes), not 1.5',
    );
    expect(seul(await annoncer({ fichiers: [{ ...fichier, taille: 0 }] }), 422, 'invalid_image', 'fichiers[0].taille')).toBe(
      'fichiers[0].taille must be at least 1 byte, not 0: an empty file cannot be uploaded',
    );
  });

  it('a file that is not an object, unknown members, and every problem listed', async () => {
    const erreur = await annoncer({ fichiers: [{ type: 'image/jpeg', taille: 1 }, 'salon.jpg', { type: 'image/jpeg', size: 3 }, ['image/jpeg', 3]] });
    const details = sansJargon(erreur);
    expect(details).toEqual([
      {
        chemin: 'fichiers[1]',
        message: 'fichiers[1] must be an object, not the text "salon.jpg": each file is {"nom":"salon.jpg","type":"image/jpeg","taille":2483116}',
      },
      { chemin: 'fichiers[2].taille', message: 'fichiers[2].taille is required: the exact size of the file in bytes, e.g. 2483116' },
      { chemin: 'fichiers[2].size', message: 'fichiers[2].size is not a member of a file: did you mean taille? A file has nom (optional), type and taille' },
      { chemin: 'fichiers[3]', message: 'fichiers[3] must be an object, not an array: each file is {"nom":"salon.jpg","type":"image/jpeg","taille":2483116}' },
    ]);
    expect(erreur.message).toMatch(/^4 problems: fichiers\[1\] must be an object.*; and 1 more, listed in details$/);
  });

  it('a file over 15 MB stays a 413, now with the same details', async () => {
    const erreur = await annoncer({
      fichiers: [
        { type: 'image/jpeg', taille: 1 },
        { type: 'image/jpeg', taille: 20_000_000 },
      ],
    });
    expect(erreur).toMatchObject({ statut: 413, code: 'image_too_large', details: { index: 1, taille: 20_000_000 } });
    expect(sansJargon(erreur)).toEqual([
      { chemin: 'fichiers[1].taille', message: 'fichiers[1].taille is 20000000 bytes; an image is at most 15 MB (15728640 bytes)' },
    ]);
  });
});

describe('bodies that are not JSON objects (400)', () => {
  const corps = (texte: string) => refus(() => lireCorpsJson(Buffer.from(texte)));
  it('say what is wrong and where, with the usual cause', () => {
    expect(seul(corps(''), 400, 'invalid_body', '')).toBe('The body is empty: send a JSON object');
    expect(seul(corps('{"outil":"ciel",}'), 400, 'invalid_body', '')).toBe('The body is not valid JSON at line 1, column 17 ("}"): remove the comma before }');
    expect(seul(corps("{'outil':'ciel'}"), 400, 'invalid_body', '')).toBe(
      'The body is not valid JSON at line 1, column 2 ("\'"): JSON strings and names take double quotes (")',
    );
    expect(seul(corps('{\n  outil: "ciel"\n}'), 400, 'invalid_body', '')).toBe(
      'The body is not valid JSON at line 2, column 3 ("o"): names of members take double quotes, e.g. {"outil":"ciel"}',
    );
    expect(seul(corps('{"lieu":"a\u0001"}'), 400, 'invalid_body', '')).toBe('The body is not valid JSON at line 1, column 11 (U+0001)');
    expect(seul(corps('{"outil":"ciel","images":[{"url":"https://a.example/x.jpg"}'), 400, 'invalid_body', '')).toBe(
      'The body is not valid JSON: it ends too early (a closing }, ] or " is missing)',
    );
    expect(seul(corps('[{"outil":"ciel"}]'), 400, 'invalid_body', '')).toBe('The body must be a JSON object ({…}), not an array');
  });
});

describe('suggerer', () => {
  it('finds a case slip, a swap, a missing or doubled letter, a known alias, a unique beginning', () => {
    expect(suggerer('Ciel', OUTILS)).toBe('ciel');
    expect(suggerer('stlye', ['piece', 'style', 'mention'])).toBe('style');
    expect(suggerer('stagging', OUTILS)).toBe('staging');
    expect(suggerer('moderen', ['modern', 'Scandinavian'])).toBe('modern');
    expect(suggerer('tool', MEMBRES_CORPS)).toBe('outil');
    expect(suggerer('values', MEMBRES_CORPS)).toBe('valeurs');
    expect(suggerer('size', MEMBRES_FICHIER)).toBe('taille');
    expect(suggerer('living', CATALOGUE.staging.champs[0]!.valeurs!)).toBe('living room');
    expect(suggerer('nl', CATALOGUE.annonce.champs[0]!.valeurs!)).toBe('Dutch');
  });

  it('guesses nothing far off, nor an alias that is not allowed here', () => {
    expect(suggerer('peinture', OUTILS)).toBeUndefined();
    expect(suggerer('image/gif', ['image/jpeg', 'image/png', 'image/webp'])).toBeUndefined();
    expect(suggerer('tool', ['fichiers'])).toBeUndefined();
    expect(suggerer('x'.repeat(10_000), OUTILS)).toBeUndefined();
    expect(suggerer('', OUTILS)).toBeUndefined();
  });
});

describe('the wording follows the schemas', () => {
  it('names the same members as the schemas declare', () => {
    for (const outil of OUTILS) expect(Object.keys(SCHEMAS_REQUETE[outil].entries)).toEqual([...MEMBRES_CORPS]);
    const image = new Set([ImageUrl, ImageBase64, ImageTeleversement].flatMap((s) => Object.keys(s.entries)));
    expect([...image].sort()).toEqual([...MEMBRES_IMAGE].sort());
    expect(Object.keys(FichierAnnonce.entries)).toEqual([...MEMBRES_FICHIER]);
    expect(Object.keys(RequeteTeleversements.entries)).toEqual(['fichiers']);
  });

  it('has no jargon and names its field, for every tool and a wide set of bad values', () => {
    const mauvais: unknown[] = [null, 3, 1.5, true, '', 'x', 'moderen', [], ['a'], {}, { a: 1 }, 'x'.repeat(2000)];
    let refus = 0;
    for (const outil of OUTILS) {
      const base = { outil, valeurs: outil === 'annonce' ? { lieu: 'Gent' } : {}, images: [image] };
      const corps: unknown[] = [];
      for (const m of mauvais) {
        corps.push(
          { ...base, valeurs: m },
          { ...base, images: m },
          { ...base, images: [m] },
          { ...base, images: [{ url: m }] },
          { ...base, images: [{ base64: m }] },
        );
        corps.push({ ...base, images: [{ televersement: m }] }, { ...base, images: [{ ...image, nom: m }] }, { ...base, [JSON.stringify(m).slice(0, 20)]: m });
        for (const c of CATALOGUE[outil].champs) corps.push({ ...base, valeurs: { ...base.valeurs, [c.nom]: m } }, { ...base, [c.nom]: m });
        for (const autre of OUTILS) for (const c of CATALOGUE[autre].champs) corps.push({ ...base, valeurs: { ...base.valeurs, [c.nom]: m } });
      }
      corps.push({ outil }, { outil, valeurs: {} }, { ...base, images: [{ url: image.url, base64: 'AA', televersement: 'x' }] });
      for (const c of corps) {
        try {
          validerRequete(outil, c);
        } catch (erreur) {
          refus++;
          sansJargon(erreur as ErreurApi);
          expect((erreur as ErreurApi).statut).toBe(422);
        }
      }
    }
    expect(refus).toBeGreaterThan(500);
  });
});
