/**
 * Bad input costs nothing and never answers 5xx: a battery of malformed requests on every route of
 * the local stack (gateway, handlers, file server). Each answer must be a 4xx with the `Erreur` body,
 * and the account's balance must not move.
 */
import { request } from 'node:http';
import * as v from 'valibot';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { objetsSignes } from '../../lambdas/core/infra/objets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { creerSignataire } from '../../lambdas/core/infra/liens';
import { SchemaErreur } from '../../lambdas/core/contrat/openapi/schemas';
import { creer as creerFichier } from '../../lambdas/http/fichier';
import { bombePng } from '../support/bombe';
import { demarrerPileTest } from '../support/pile';
import { appeler, attendreTravail, imageTest, type Reponse } from '../support/client';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;
let pile: Pile;
let url: string;
let cle: string;
const CREDITS = 100;

/** 16000×16000 pixels of grey: 256 megapixels in under 1 MB of PNG. */
let bombe: Buffer;

beforeAll(async () => {
  bombe = await bombePng();
  pile = await demarrerPileTest({ telecharger: async () => bombe });
  url = pile.urlBase;
  cle = (await pile.creerCompte(CREDITS)).cle;
});
afterAll(async () => pile?.arreter());

const solde = async (): Promise<number> => (await appeler(url, 'GET', '/solde', { cle })).corps.credits;

/**
 * A request exactly as given (request target, headers, bytes), for what fetch would normalise or
 * refuse to send. Checks the `Erreur` body of any answer >= 400, like `appeler`.
 */
const brut = async (methode: string, cible: string, entetes: Record<string, string> = {}, corps?: Buffer | string): Promise<Reponse> => {
  const { reponse, texte } = await envoyer(methode, cible, entetes, corps);
  if (reponse.statut >= 400) {
    expect(v.safeParse(SchemaErreur, reponse.corps).success, `Erreur body for ${methode} ${cible.slice(0, 80)}: ${texte.slice(0, 200)}`).toBe(true);
  }
  return reponse;
};

const envoyer = (methode: string, cible: string, entetes: Record<string, string>, corps?: Buffer | string): Promise<{ reponse: Reponse; texte: string }> =>
  new Promise((resoudre, rejeter) => {
    const { hostname, port } = new URL(url);
    const req = request({ host: hostname, port, method: methode, path: cible, headers: entetes }, (rep) => {
      const morceaux: Buffer[] = [];
      rep.on('data', (m: Buffer) => morceaux.push(m));
      rep.on('end', () => {
        const texte = Buffer.concat(morceaux).toString('utf8');
        let contenu: unknown = texte;
        try {
          contenu = JSON.parse(texte);
        } catch {
          // kept as text
        }
        resoudre({ reponse: { statut: rep.statusCode ?? 0, corps: contenu, entetes: new Headers(rep.headers as Record<string, string>) }, texte });
      });
    });
    req.on('error', rejeter);
    req.end(corps);
  });

const api = (chemin: string) => `${new URL(url).pathname}${chemin}`;
const json = { 'Content-Type': 'application/json' };
const auth = () => ({ Authorization: `Bearer ${cle}` });

/** Posts a raw body to POST /travaux with the key. */
const poster = (corps: string | Buffer, entetes: Record<string, string> = json) => brut('POST', api('/travaux'), { ...auth(), ...entetes }, corps);

const attendu = (r: Reponse, statut: number, code: string) => {
  expect(r.statut, JSON.stringify(r.corps).slice(0, 300)).toBe(statut);
  expect(r.corps.error.code).toBe(code);
};

describe('POST /travaux: bodies of absurd shape', () => {
  // These four need POST /travaux to read JSON with lireCorpsJson (lambdas/core/contrat/json.ts).
  it('JSON nested 100 000 levels deep is a 400, wherever the nesting is', async () => {
    const profond = (n: number) => '['.repeat(n) + ']'.repeat(n);
    attendu(await poster(`{"outil":"ciel","valeurs":${profond(100_000)}}`), 400, 'invalid_body');
    attendu(await poster(`{"outil":"ciel","valeurs":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`), 400, 'invalid_body');
    attendu(await poster(`{"outil":${profond(100_000)}}`), 400, 'invalid_body');
    attendu(await poster(`{"outil":"ciel","images":[{"url":${profond(100_000)}}]}`), 400, 'invalid_body');
  });

  it('JSON with a million members or elements is a 400, answered at once', async () => {
    const cles = Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":"v"`).join(',');
    attendu(await poster(`{"outil":"ciel","valeurs":{${cles}},"images":[{"url":"https://example.com/a.jpg"}]}`), 400, 'invalid_body');
    attendu(await poster(`{"outil":"annonce","valeurs":{"lieu":"Gent"},"images":[${'1,'.repeat(999_999)}1]}`), 400, 'invalid_body');
  });

  it('a url of a megabyte, or a name over 255 characters, is a 422 invalid_image', async () => {
    const grande = `https://example.com/${'a'.repeat(1 << 20)}`;
    const r = await poster(JSON.stringify({ outil: 'ciel', images: [{ url: grande }] }));
    attendu(r, 422, 'invalid_image');
    expect(r.corps.error.message).toBe(`images[0].url is ${grande.length} characters long; at most 8192 are allowed`);
    expect(r.corps.error.details).toEqual([{ chemin: 'images[0].url', message: r.corps.error.message }]);
    attendu(
      await poster(
        JSON.stringify({ outil: 'annonce', valeurs: { lieu: 'Gent' }, images: Array.from({ length: 6 }, () => ({ url: grande.slice(0, 100_000) })) }),
      ),
      422,
      'invalid_image',
    );
    attendu(await poster(JSON.stringify({ outil: 'ciel', images: [{ url: 'https://example.com/a.jpg', nom: 'n'.repeat(256) }] })), 422, 'invalid_image');
    const formulaire = new FormData();
    formulaire.append('outil', 'ciel');
    formulaire.append('image_url', `https://example.com/${'a'.repeat(9000)}`);
    attendu(await appeler(url, 'POST', '/travaux', { cle, corps: formulaire }), 422, 'invalid_image');
  });

  it('empty, null, non-object and non-UTF-8 bodies are 4xx', async () => {
    attendu(await poster(''), 400, 'invalid_body');
    attendu(await poster('null'), 400, 'invalid_body');
    attendu(await poster('[]'), 400, 'invalid_body');
    attendu(await poster('{"outil":'), 400, 'invalid_body');
    attendu(await poster(Buffer.from([0x7b, 0x22, 0x6f, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])), 422, 'invalid_tool');
    attendu(await poster('{"outil":"__proto__"}'), 422, 'invalid_tool');
    attendu(await poster('{"outil":"ciel","__proto__":{"x":1},"images":[{"url":"https://example.com/a.jpg"}]}'), 422, 'invalid_settings');
  });

  it('content types other than JSON and multipart, and broken multipart, are 4xx', async () => {
    attendu(await brut('POST', api('/travaux'), auth(), '{}'), 415, 'unsupported_media_type');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'image/jpeg', 'nonsense', ';;;']) {
      attendu(await poster('{}', { 'Content-Type': type }), 415, 'unsupported_media_type');
    }
    const mp = (type: string, corps: string) => poster(corps, { 'Content-Type': type });
    attendu(await mp('multipart/form-data', 'abc'), 400, 'invalid_body');
    attendu(await mp('multipart/form-data; boundary="', '--x'), 400, 'invalid_body');
    attendu(await mp('multipart/form-data; boundary=x', ''), 400, 'invalid_body');
    attendu(await mp('multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="outil"\r\n\r\nciel\r\n--y'), 400, 'invalid_body');
    attendu(
      await mp('multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"; filename="a.jpg"\r\n\r\n\xff\xd8\xff'),
      400,
      'invalid_body',
    );
  });

  it('a bad Idempotency-Key is a 400', async () => {
    const corps = JSON.stringify({ outil: 'ciel', images: [{ url: 'https://example.com/a.jpg' }] });
    attendu(await poster(corps, { ...json, 'Idempotency-Key': 'cl\xe9' }), 400, 'invalid_parameter');
    attendu(await poster(corps, { ...json, 'Idempotency-Key': 'k'.repeat(1000) }), 400, 'invalid_parameter');
    attendu(await poster(corps, { ...json, 'Idempotency-Key': 'a b' }), 400, 'invalid_parameter');
  });
});

describe('POST /travaux: decompression bombs', () => {
  // These need POST /travaux to call verifierDimensions (lambdas/core/modele/dimensions.ts) on each image.
  it('a 16000×16000 PNG sent inline is a 413 image_too_large naming its size', async () => {
    expect(bombe.length).toBeLessThan(1024 * 1024);
    const r = await poster(JSON.stringify({ outil: 'ciel', images: [{ base64: bombe.toString('base64') }] }));
    attendu(r, 413, 'image_too_large');
    expect(r.corps.error).toMatchObject({ index: 0, largeur: 16000, hauteur: 16000, max_pixels: 50_000_000 });
  });

  it('the same as a multipart file, in a batch, refuses the whole request', async () => {
    const formulaire = new FormData();
    formulaire.append('outil', 'ciel');
    formulaire.append('a', new Blob([await imageTest(1)], { type: 'image/jpeg' }), 'a.jpg');
    formulaire.append('b', new Blob([bombe], { type: 'image/png' }), 'b.png');
    const r = await appeler(url, 'POST', '/travaux', { cle, corps: formulaire });
    attendu(r, 413, 'image_too_large');
    expect(r.corps.error).toMatchObject({ index: 1, largeur: 16000, hauteur: 16000 });
  });
});

describe('GET routes: paths and query strings', () => {
  it('malformed percent escapes in a path are a 404, never a 500', async () => {
    for (const chemin of ['/travaux/%E0%A4%A', '/lots/%', '/travaux/%', '/lots/%zz', '/travaux/%00', '/%', '/travaux/%E0%A4%A/x']) {
      attendu(await brut('GET', api(chemin), auth()), 404, 'not_found');
    }
  });

  it('the edges of the URL space: a 404 that says where the route is, never a 405 to the method the path takes', async () => {
    for (const [cible, indice] of [
      ['/', 'GET /api/v1/openapi.json describes every route'],
      ['/api/v1', 'GET /api/v1/openapi.json describes every route'],
      ['/openapi.json', 'as in GET /api/v1/openapi.json'],
      ['/outils', 'as in GET /api/v1/outils'],
      [api('/openapi.json/'), 'without the trailing slash, GET /api/v1/openapi.json'],
      [api('/factures'), 'GET /api/v1/outils lists the tools'],
    ] as const) {
      const r = await brut('GET', cible, auth());
      attendu(r, 404, 'not_found');
      expect(r.corps.error.message, cible).toContain(indice);
    }
  });

  it('request targets that are not a plain path are a 404', async () => {
    for (const cible of ['//', '//[', '//[::1', `/${'%'.repeat(50)}`]) attendu(await brut('GET', cible, auth()), 404, 'not_found');
  });

  it('bad limite and outil on GET /travaux are a 400 invalid_parameter', async () => {
    for (const requete of [
      'limite=1e3',
      'limite=0',
      'limite=-1',
      'limite=101',
      'limite=%',
      'limite=',
      'limite=1.5',
      'outil=__proto__',
      'outil=toString',
      'outil=',
      'outil=%E0%A4%A',
    ]) {
      const r = await brut('GET', api(`/travaux?${requete}`), auth());
      attendu(r, 400, 'invalid_parameter');
    }
  });

  it('repeated and unknown query parameters never fail the request', async () => {
    for (const requete of ['limite=5&limite=6', 'outil=ciel&outil=vider', 'outil[]=ciel', 'limite[]=5', '%=%', '&&&', 'a=%zz']) {
      const r = await brut('GET', api(`/travaux?${requete}`), auth());
      expect(r.statut, requete).toBeLessThan(500);
    }
  });
});

describe('headers', () => {
  it('an Authorization header of 100 KB is a 413 with an Erreur body; of 15 KB, a 401', async () => {
    attendu(await brut('GET', api('/solde'), { Authorization: `Bearer ${'a'.repeat(100_000)}` }), 413, 'payload_too_large');
    attendu(await brut('GET', api('/solde'), { Authorization: `Bearer ${'a'.repeat(15_000)}` }), 401, 'unauthorized');
    attendu(await brut('GET', api('/solde'), { Authorization: 'Bearer cl\xe9' }), 401, 'unauthorized');
    attendu(await brut('GET', api('/solde'), { Authorization: 'Basic abc' }), 401, 'unauthorized');
  });

  it('a malformed request line or Content-Length is a 400 with an Erreur body', async () => {
    attendu(await brut('POST', api('/travaux'), { ...auth(), ...json, 'Content-Length': 'abc' }, '{}'), 400, 'invalid_parameter');
  });
});

describe('result links with a malformed query', () => {
  const lienSigne = () => new URL(pile.deps.signer('resultats/inconnu/inconnu/0.jpg', '0.jpg').url);
  const cibleDe = (lien: URL) => `${lien.pathname}${lien.search}`;
  const avec = (parametre: string, valeur: string) => {
    const lien = lienSigne();
    lien.searchParams.set(parametre, valeur);
    return cibleDe(lien);
  };

  it('a well-signed link to a missing file is a 404 (the links below differ only by their query)', async () => {
    // Asked on the host it was signed for (outside a request, localhost), as a client uses a link.
    attendu(await brut('GET', cibleDe(lienSigne()), { Host: lienSigne().host }), 404, 'not_found');
  });

  it('every malformed query is a 403 forbidden, like CloudFront', async () => {
    const cibles = [
      avec('Key-Pair-Id', '__proto__'),
      avec('Key-Pair-Id', 'toString'),
      avec('Key-Pair-Id', 'constructor'),
      `${cibleDe(lienSigne())}&Key-Pair-Id=KAUTRE`,
      `${cibleDe(lienSigne())}&Signature=AAAA`,
      avec('Signature', '%%% not base64'),
      avec('Expires', 'tomorrow'),
      avec('Expires', '9'.repeat(300)),
      avec('Hash-Algorithm', 'MD5'),
      `${cibleDe(lienSigne())}&Policy=%%%`,
      '/fichiers/a/b.jpg',
      '/fichiers/%?Expires=%&Signature=%zz&Key-Pair-Id=%',
      '/fichiers/%E0%A4%A?Expires=1&Signature=a&Key-Pair-Id=K',
    ];
    for (const cible of cibles) attendu(await brut('GET', cible), 403, 'forbidden');
  });

  it('GET /fichiers/{cle+} (the API-served links) answers the same 403', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const base = 'https://api.example/v1/api/v1/fichiers';
    const signer = creerSignataire({ base, idCle: 'K1', clePrivee: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() });
    const handler = creerFichier(() => ({
      objets: objetsSignes({ bucket: 'b', region: 'us-east-1', cheminStyle: false, identifiants: { accessKeyId: 'x', secretAccessKey: 'x' } }),
      base,
      clesPubliques: { K1: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
      horloge: () => new Date(),
    }));
    const lien = new URL(signer('resultats/a/b/0.jpg', '0.jpg').url);
    const evenement = (requete: Record<string, string[]>, proxy = 'resultats/a/b/0.jpg') =>
      ({
        path: `/fichiers/${proxy}`,
        httpMethod: 'GET',
        headers: {},
        pathParameters: { proxy },
        multiValueQueryStringParameters: requete,
      }) as unknown as APIGatewayProxyEvent;
    const bonne = Object.fromEntries([...lien.searchParams].map(([k, val]) => [k, [val]]));
    const contexte = { awsRequestId: 'test' } as Context;
    expect((await handler(evenement(bonne), contexte)).statusCode).toBe(302);
    for (const requete of [
      { ...bonne, 'Key-Pair-Id': ['__proto__'] },
      { ...bonne, 'Key-Pair-Id': ['K1', 'K2'] },
      { ...bonne, Signature: ['%%%'] },
      { ...bonne, Expires: ['abc'] },
      { ...bonne, Policy: ['not base64'] },
      {},
    ]) {
      const reponse = await handler(evenement(requete), contexte);
      expect(reponse.statusCode).toBe(403);
      expect(v.safeParse(SchemaErreur, JSON.parse(reponse.body)).success).toBe(true);
    }
    expect((await handler(evenement(bonne, '%E0%A4%A'), contexte)).statusCode).toBe(403);
  });
});

describe('what it all cost', () => {
  it('nothing: the balance is unchanged and no job was created', async () => {
    expect(await solde()).toBe(CREDITS);
    const liste = await appeler(url, 'GET', '/travaux', { cle });
    expect(liste.corps.travaux).toEqual([]);
  });

  it('a bomb behind a URL fails its job with image_trop_grande, refunded', async () => {
    const avant = await solde();
    const r = await appeler(url, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ url: 'https://example.com/bombe.png' }] } });
    expect(r.statut).toBe(202);
    const travail = await attendreTravail(url, cle, r.corps.travaux[0].id);
    expect(travail.statut).toBe('echec');
    expect(travail.erreur).toMatchObject({ code: 'image_trop_grande' });
    expect(travail.erreur?.message).toContain('16000×16000');
    expect(travail.rembourse).toBe(true);
    expect(await solde()).toBe(avant);
  });
});
