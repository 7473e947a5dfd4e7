/**
 * Malformed input answered with a clear 4xx, never an exception that would become a 500: JSON
 * bodies of absurd shape, oversized URLs and image lists, and result links with a broken query.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lireCorpsJson, PROFONDEUR_MAX_JSON, VALEURS_MAX_JSON } from '../../lambdas/core/contrat/json';
import { creerSignataire, verifierLien } from '../../lambdas/core/infra/liens';
import { dispositionPieceJointe } from '../../lambdas/core/modele/disposition';
import { validerRequete } from '../../lambdas/core/contrat/messages/travaux';
import { MAX_CARACTERES_URL } from '../../lambdas/core/contrat/schemas';
import { refus } from '../support/refus';

const json = (texte: string) => lireCorpsJson(Buffer.from(texte));

describe('lireCorpsJson', () => {
  it('reads an object, and keeps the answers for what is not a JSON object', () => {
    expect(json('{"outil":"ciel","images":[{"url":"https://a.example/x.jpg"}]}')).toEqual({ outil: 'ciel', images: [{ url: 'https://a.example/x.jpg' }] });
    expect(refus(() => json('')).message).toBe('The body is empty: send a JSON object');
    expect(refus(() => json('{"outil":')).message).toBe('The body is not valid JSON: it ends too early (a closing }, ] or " is missing)');
    expect(refus(() => json('null')).message).toBe('The body must be a JSON object ({…}), not null');
    expect(refus(() => json('[1]')).message).toBe('The body must be a JSON object ({…}), not an array');
    expect(refus(() => json('"{}"')).code).toBe('invalid_body');
  });

  it(`refuses nesting deeper than ${PROFONDEUR_MAX_JSON} levels with a 400, however deep`, () => {
    const profond = (n: number, ouvrant: string, fermant: string) => `{"outil":"ciel","valeurs":${ouvrant.repeat(n)}1${fermant.repeat(n)}}`;
    for (const texte of [profond(100_000, '[', ']'), profond(100_000, '{"a":', '}'), `{"outil":${'['.repeat(100_000)}`]) {
      const erreur = refus(() => json(texte));
      expect(erreur.code).toBe('invalid_body');
      expect(erreur.statut).toBe(400);
      expect(erreur.message).toContain(`deeper than ${PROFONDEUR_MAX_JSON} levels`);
    }
    // The limit counts the body itself: 32 levels in all pass.
    expect(() => json(profond(PROFONDEUR_MAX_JSON - 1, '[', ']'))).not.toThrow();
    expect(refus(() => json(profond(PROFONDEUR_MAX_JSON, '[', ']'))).code).toBe('invalid_body');
  });

  it('does not count brackets, commas or escaped quotes inside strings', () => {
    const texte = JSON.stringify({ outil: 'ciel', valeurs: { lieu: `${'[{'.repeat(1000)}"\\",${','.repeat(20_000)}` } });
    expect(json(texte)).toEqual(JSON.parse(texte));
  });

  it(`refuses more than ${VALEURS_MAX_JSON} members and elements with a 400`, () => {
    const cles = `{"outil":"ciel","valeurs":{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":"v"`).join(',')}}}`;
    const erreur = refus(() => json(cles));
    expect(erreur.code).toBe('invalid_body');
    expect(erreur.message).toContain(`more than ${VALEURS_MAX_JSON} members and elements`);
    expect(refus(() => json(`{"outil":"annonce","images":[${'1,'.repeat(VALEURS_MAX_JSON)}1]}`)).code).toBe('invalid_body');
    // A full batch is far below the limit.
    const lot = { outil: 'ciel', images: Array.from({ length: 50 }, (_, i) => ({ url: `https://a.example/${i}.jpg`, nom: `${i}.jpg` })) };
    expect(json(JSON.stringify(lot))).toEqual(lot);
  });
});

describe('schemas: sizes that would have reached DynamoDB', () => {
  it(`refuses a url longer than ${MAX_CARACTERES_URL} characters with a 422 invalid_image`, () => {
    const url = `https://a.example/${'a'.repeat(1 << 20)}`;
    const erreur = refus(() => validerRequete('ciel', { outil: 'ciel', images: [{ url }] }));
    expect(erreur.code).toBe('invalid_image');
    expect(erreur.statut).toBe(422);
    expect(erreur.message).toBe(`images[0].url is ${url.length} characters long; at most ${MAX_CARACTERES_URL} are allowed`);
    const juste = `https://a.example/${'a'.repeat(MAX_CARACTERES_URL - 'https://a.example/'.length)}`;
    expect(validerRequete('ciel', { outil: 'ciel', images: [{ url: juste }] }).images).toEqual([{ url: juste }]);
  });

  it('checks the number of images before the images themselves: one issue, not a million', () => {
    const erreur = refus(() => validerRequete('annonce', { outil: 'annonce', valeurs: { lieu: 'Gent' }, images: Array.from({ length: 1_000_000 }, () => 1) }));
    expect(erreur.code).toBe('invalid_image');
    expect(erreur.details.details).toEqual([{ chemin: 'images', message: 'images holds 1000000 images: annonce takes at most 6' }]);
    // Within the count, every bad image is still listed with its path.
    const deux = refus(() => validerRequete('ciel', { outil: 'ciel', images: [1, { url: 'http://a.example/x.jpg' }] }));
    expect((deux.details.details as { chemin: string }[]).map((p) => p.chemin)).toEqual(['images[0]', 'images[1].url']);
  });
});

describe('verifierLien on malformed links', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const base = 'http://127.0.0.1:3000/fichiers';
  const maintenant = new Date('2026-03-01T12:00:00Z');
  const cles = { K1: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  const lien = creerSignataire({ base, idCle: 'K1', clePrivee: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }, () => maintenant)(
    'resultats/compte/travail/a.jpg',
    'a.jpg',
  ).url;
  const avec = (parametre: string, valeur: string) => {
    const url = new URL(lien);
    url.searchParams.set(parametre, valeur);
    return url.toString();
  };
  const verdict = (url: string) => verifierLien(url, cles, base, maintenant);

  it('accepts the link as signed', () => {
    expect(verdict(lien)).toEqual({ valide: true, cle: 'resultats/compte/travail/a.jpg', disposition: dispositionPieceJointe('a.jpg') });
  });

  it('refuses, without throwing, whatever the query holds', () => {
    const malformes = [
      // Key-Pair-Id naming something every object has.
      avec('Key-Pair-Id', '__proto__'),
      avec('Key-Pair-Id', 'toString'),
      avec('Key-Pair-Id', 'constructor'),
      avec('Key-Pair-Id', 'hasOwnProperty'),
      // Given twice, even with the right value first.
      `${lien}&Key-Pair-Id=K2`,
      `${lien}&Signature=AAAA`,
      `${lien}&Expires=1`,
      // Not base64, not a number, not an algorithm.
      avec('Signature', '%%%not base64!!!'),
      avec('Signature', ''),
      avec('Expires', 'soon'),
      avec('Expires', '1e12'),
      avec('Expires', '9'.repeat(400)),
      avec('Hash-Algorithm', 'MD5'),
      // The download name given twice, changed, or written again otherwise than as signed.
      `${lien}&response-content-disposition=inline`,
      lien.replace('a.jpg%22', 'b.jpg%22'),
      lien.replace(/%20/g, '+'),
      // A custom policy, which these links never use.
      `${lien}&Policy=eyJTdGF0ZW1lbnQiOltdfQ__`,
      `${lien}&Policy=%%%`,
      // Not a URL at all.
      'not a url',
      '',
      `${base}/%E0%A4%A?Expires=1&Signature=a&Key-Pair-Id=K1`,
    ];
    for (const url of malformes) {
      const v = verdict(url);
      expect(v.valide, url).toBe(false);
    }
  });

  it('refuses a key that does not load, instead of failing', () => {
    expect(verifierLien(lien, { K1: 'not a PEM key' }, base, maintenant)).toEqual({ valide: false, raison: 'malformed link' });
  });
});
