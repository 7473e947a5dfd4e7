/**
 * The SSRF guard and the caps of the image downloader, against https servers on 127.0.0.1 only.
 * Addresses outside loopback appear only as IP literals or stubbed DNS answers that must be refused
 * before any connection is attempted.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerTelechargeur } from '../../lambdas/core/infra/telechargement';
import { codeDe } from '../support/refus';

let serveur: Server;
let base: string;
let ca: string;
const IMAGE = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)]);

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '127.0.0.2' },
        ],
      },
    ],
  });
  ca = pems.cert;
  serveur = createServer({ key: pems.private, cert: pems.cert }, (requete, reponse) => {
    const url = new URL(requete.url ?? '/', 'https://x');
    switch (url.pathname) {
      case '/image.jpg':
        reponse.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': IMAGE.length });
        return reponse.end(IMAGE);
      case '/sans-longueur.jpg':
        reponse.writeHead(200, { 'Content-Type': 'image/jpeg' });
        reponse.write(IMAGE.subarray(0, 1000));
        return reponse.end(IMAGE.subarray(1000));
      case '/redirection':
        reponse.writeHead(302, { Location: url.searchParams.get('vers') ?? '/image.jpg' });
        return reponse.end();
      case '/boucle':
        reponse.writeHead(301, { Location: '/boucle' });
        return reponse.end();
      case '/lent':
        return; // never answers
      default:
        reponse.writeHead(404);
        return reponse.end();
    }
  });
  await new Promise<void>((r) => serveur.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(serveur.address() as AddressInfo).port}`;
});
afterAll(async () => {
  serveur.closeAllConnections();
  await new Promise((r) => serveur.close(r));
});

/** The test server is on loopback, so success cases allow exactly 127.0.0.1 and trust its CA. */
const autorise = (options: Record<string, unknown> = {}) =>
  creerTelechargeur({ agent: new RequestFilteringHttpsAgent({ ca, allowIPAddressList: ['127.0.0.1'] }), ...options });

describe('downloads', () => {
  it('fetches an https image, with or without Content-Length, and follows a redirect on an allowed host', async () => {
    expect((await autorise()(`${base}/image.jpg`)).equals(IMAGE)).toBe(true);
    expect((await autorise()(`${base}/sans-longueur.jpg`)).equals(IMAGE)).toBe(true);
    expect((await autorise()(`${base}/redirection?vers=/image.jpg`)).equals(IMAGE)).toBe(true);
  });

  it('caps the size while streaming, announced or not', async () => {
    expect(await codeDe(autorise({ maxOctets: 1000 })(`${base}/image.jpg`))).toBe('image_trop_grande');
    expect(await codeDe(autorise({ maxOctets: 1000 })(`${base}/sans-longueur.jpg`))).toBe('image_trop_grande');
  });

  it('gives up on HTTP errors, endless redirects and silent servers', async () => {
    expect(await codeDe(autorise()(`${base}/absente.jpg`))).toBe('telechargement_echoue');
    expect(await codeDe(autorise()(`${base}/boucle`))).toBe('url_refusee');
    expect(await codeDe(autorise({ delaiMs: 300 })(`${base}/lent`))).toBe('telechargement_echoue');
  });
});

describe('SSRF', () => {
  const defaut = creerTelechargeur();

  it('refuses anything but https, and credentials in the URL', async () => {
    expect(await codeDe(defaut('http://photos.example/a.jpg'))).toBe('url_refusee');
    expect(await codeDe(defaut('ftp://photos.example/a.jpg'))).toBe('url_refusee');
    expect(await codeDe(defaut('https://user:secret@photos.example/a.jpg'))).toBe('url_refusee');
    expect(await codeDe(defaut('pas une url'))).toBe('url_refusee');
  });

  it('refuses loopback, private, link-local (metadata), CGNAT, mapped and NAT64 addresses before connecting', async () => {
    for (const url of [
      `${base}/image.jpg`,
      'https://localhost/a.jpg',
      'https://127.0.0.2/a.jpg',
      'https://[::1]/a.jpg',
      'https://10.0.0.1/a.jpg',
      'https://192.168.1.10/a.jpg',
      'https://172.16.0.1/a.jpg',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/a.jpg',
      'https://0.0.0.0/a.jpg',
      'https://[::ffff:127.0.0.1]/a.jpg',
      'https://[::ffff:a9fe:a9fe]/a.jpg',
      'https://[64:ff9b::a9fe:a9fe]/a.jpg',
      'https://[fd00:ec2::254]/a.jpg',
    ]) {
      expect(await codeDe(defaut(url)), url).toBe('url_refusee');
    }
  });

  it('checks the address a name resolves to, at connect time (DNS rebinding)', async () => {
    // A public-looking name whose DNS answer is loopback: refused, though the name itself looks fine.
    const rebind = creerTelechargeur({
      agent: new RequestFilteringHttpsAgent({
        ca,
        lookup: ((_nom: string, options: { all?: boolean }, rappel: (...a: unknown[]) => void) =>
          options.all ? rappel(null, [{ address: '127.0.0.1', family: 4 }]) : rappel(null, '127.0.0.1', 4)) as never,
      }),
    });
    expect(await codeDe(rebind('https://photos.example/a.jpg'))).toBe('url_refusee');
  });

  it('checks every redirect again: an allowed host cannot bounce the request to a refused one', async () => {
    const port = new URL(base).port;
    expect(await codeDe(autorise()(`${base}/redirection?vers=${encodeURIComponent(`https://127.0.0.2:${port}/image.jpg`)}`))).toBe('url_refusee');
    expect(await codeDe(autorise()(`${base}/redirection?vers=${encodeURIComponent(`http://127.0.0.1:${port}/image.jpg`)}`))).toBe('url_refusee');
  });
});
