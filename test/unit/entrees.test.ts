/** Inputs of POST /travaux: image bytes, base64 and data URLs, multipart forms. */
import { describe, expect, it } from 'vitest';
import { decoderBase64, detecterFormat, MAX_OCTETS_IMAGE, tailleDecodee } from '../../lambdas/core/modele/images';
import { lireMultipart } from '../../lambdas/core/contrat/multipart';
import { imageTest } from '../support/client';
import { codeDe } from '../support/refus';

describe('image formats', () => {
  it('recognises JPEG, PNG and WebP by their bytes, nothing else', async () => {
    expect(detecterFormat(await imageTest(1, 'jpeg'))).toBe('jpeg');
    expect(detecterFormat(await imageTest(1, 'png'))).toBe('png');
    expect(detecterFormat(await imageTest(1, 'webp'))).toBe('webp');
    expect(detecterFormat(Buffer.from('GIF89a'))).toBeNull();
    expect(detecterFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(detecterFormat(Buffer.from('RIFF....WAVE'))).toBeNull();
    expect(detecterFormat(Buffer.alloc(0))).toBeNull();
  });
});

describe('base64', () => {
  it('takes raw base64, URL-safe base64, wrapped lines and data URLs', async () => {
    const octets = await imageTest(2, 'png');
    const texte = octets.toString('base64');
    expect(decoderBase64(texte).equals(octets)).toBe(true);
    expect(decoderBase64(octets.toString('base64url')).equals(octets)).toBe(true);
    expect(decoderBase64(texte.replace(/(.{76})/g, '$1\n')).equals(octets)).toBe(true);
    expect(decoderBase64(`data:image/png;base64,${texte}`).equals(octets)).toBe(true);
  });

  it('refuses junk instead of silently decoding part of it', async () => {
    expect(await codeDe(() => decoderBase64('abc$def'))).toBe('invalid_image');
    expect(await codeDe(() => decoderBase64('data:image/png;base64,'))).toBe('invalid_image');
    expect(await codeDe(() => decoderBase64('A'))).toBe('invalid_image');
  });

  it('refuses more than 15 MB before decoding', async () => {
    const trop = 'A'.repeat(Math.ceil(((MAX_OCTETS_IMAGE + 4) * 4) / 3));
    expect(tailleDecodee(trop)).toBeGreaterThan(MAX_OCTETS_IMAGE);
    expect(await codeDe(() => decoderBase64(trop))).toBe('image_too_large');
    expect(decoderBase64(Buffer.alloc(MAX_OCTETS_IMAGE, 1).toString('base64')).length).toBe(MAX_OCTETS_IMAGE);
  });
});

const formulaire = async (remplir: (f: FormData) => void) => {
  const f = new FormData();
  remplir(f);
  const reponse = new Response(f);
  return { corps: Buffer.from(await reponse.arrayBuffer()), type: reponse.headers.get('content-type')! };
};

describe('multipart', () => {
  it('keeps repeated fields, files under any name, UTF-8 names and zero-byte files', async () => {
    const image = await imageTest(3);
    const { corps, type } = await formulaire((f) => {
      f.append('outil', 'ciel');
      f.append('image_url', 'https://a.example/1.jpg');
      f.append('image_url', 'https://a.example/2.jpg');
      f.append('n_importe', new Blob([image]), 'séjour été.jpg');
      f.append('vide', new Blob([]), 'vide.jpg');
    });
    const lu = await lireMultipart(corps, type);
    expect(lu.champs).toEqual([
      { nom: 'outil', valeur: 'ciel' },
      { nom: 'image_url', valeur: 'https://a.example/1.jpg' },
      { nom: 'image_url', valeur: 'https://a.example/2.jpg' },
    ]);
    expect(lu.fichiers.map((f) => [f.partie, f.nomFichier, f.contenu.length])).toEqual([
      ['n_importe', 'séjour été.jpg', image.length],
      ['vide', 'vide.jpg', 0],
    ]);
    expect(lu.fichiers[0]!.contenu.equals(image)).toBe(true);
  });

  it('stops at 15 MB per file and 50 files, with 413 codes', async () => {
    const gros = await formulaire((f) => f.append('f', new Blob([Buffer.alloc(MAX_OCTETS_IMAGE + 1)]), 'gros.jpg'));
    expect(await codeDe(() => lireMultipart(gros.corps, gros.type))).toBe('image_too_large');
    const nombreux = await formulaire((f) => {
      for (let i = 0; i < 51; i++) f.append(`f${i}`, new Blob([Buffer.from([0xff, 0xd8, 0xff])]), `${i}.jpg`);
    });
    expect(await codeDe(() => lireMultipart(nombreux.corps, nombreux.type))).toBe('too_many_images');
  });

  it('answers 400 for a malformed or truncated body, never crashing', async () => {
    expect(await codeDe(() => lireMultipart(Buffer.from('garbage'), 'multipart/form-data'))).toBe('invalid_body');
    const tronque = Buffer.from('--x\r\nContent-Disposition: form-data; name="outil"\r\n\r\nciel');
    expect(await codeDe(() => lireMultipart(tronque, 'multipart/form-data; boundary=x'))).toBe('invalid_body');
    const sansFin = Buffer.from('--x\r\nContent-Disposition: form-data; name="f"; filename="a.jpg"\r\n\r\n\xff\xd8\xff');
    expect(await codeDe(() => lireMultipart(sansFin, 'multipart/form-data; boundary=x'))).toBe('invalid_body');
  });
});
