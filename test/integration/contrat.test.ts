/**
 * The contract as a client developer meets it: the document `GET /openapi.json` serves (the real
 * handler behind the local gateway) is valid OpenAPI 3.1 by the recommended rules of a linter; clients
 * generated from it with the default options of openapi-typescript and @hey-api/openapi-ts compile the
 * requests the API accepts and refuse, one by one, those it does not; its examples validate against its
 * schemas; and the real answers of the local stack validate against the schemas the document gives for
 * their path, method and status.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerUtilisateurWeb } from '../../exploitation/utilisateurs-web';
import { RequeteTravaux } from '../../lambdas/core/contrat/schemas';
import { OUTILS } from '../../lambdas/core/modele/outils';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest, pieceTest, type Reponse } from '../support/client';
import { compiler, ecrireCas, generer } from '../support/contrat';
import { demarrerPileTest } from '../support/pile';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;
type Json = Record<string, any>;
let pile: Pile;
let document: Json;
let dossier: string;

const METHODES = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const operations = () =>
  Object.entries(document.paths as Json).flatMap(([chemin, item]) =>
    Object.entries(item as Json)
      .filter(([methode]) => METHODES.includes(methode))
      .map(([methode, operation]) => ({ chemin, methode, operation: operation as Json })),
  );

/**
 * A JSON Schema 2020-12 validator (the dialect of OpenAPI 3.1) over the document itself: a schema is
 * named by its JSON pointer in the document, so `$ref`s resolve as a generator resolves them. Strict:
 * a keyword JSON Schema does not know (a 3.0 `nullable`, a typo) fails the test.
 */
const validateur = (doc: Json) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  for (const cle of Object.keys(doc)) ajv.addKeyword(cle);
  ajv.addSchema(doc, 'urn:retouche:openapi');
  const pointeur = (...parties: string[]) => parties.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
  return (parties: string[], valeur: unknown): string[] => {
    const valider = ajv.compile({ $ref: `urn:retouche:openapi#/${pointeur(...parties)}` });
    return valider(valeur) ? [] : (valider.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  };
};
let valider: ReturnType<typeof validateur>;

beforeAll(async () => {
  // Engine time long enough for a job to be seen en_cours.
  [pile, dossier] = await Promise.all([
    // A user pool too: the web site's routes (/compte…) are in the document, and take a session.
    demarrerPileTest({ delaiMoteurMs: 700, webhooks: { calendrierSecondes: [0.1] }, sessions: {} }),
    mkdtemp(join(tmpdir(), 'retouche-contrat-')),
  ]);
  const servi = await appeler(pile.urlBase, 'GET', '/openapi.json');
  expect(servi.statut).toBe(200);
  document = servi.corps;
  valider = validateur(document);
});
afterAll(async () => {
  await pile?.arreter();
  if (dossier) await rm(dossier, { recursive: true, force: true });
});

describe('the document', () => {
  it('is valid OpenAPI 3.1 by the recommended rules of Redocly: no error, an operationId on every operation', async () => {
    expect(document.openapi).toBe('3.1.0');
    const config = await createConfig({ extends: ['recommended'] });
    const problemes = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const lus = problemes.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(
      lus.filter((p) => p.startsWith('error')),
      lus.join('\n'),
    ).toEqual([]);
    // The one warning left: a proprietary license has no URL and no SPDX identifier to give.
    expect(problemes.filter((p) => p.ruleId !== 'info-license-strict').map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(document.info.license).toEqual({ name: 'Proprietary' });

    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids).toEqual([
      'listerOutils',
      'lireSolde',
      'listerTravaux',
      'creerTravaux',
      'creerTeleversements',
      'lireTravail',
      'effacerTravail',
      'lireLot',
      'effacerLot',
      'listerWebhooks',
      'creerWebhook',
      'supprimerWebhook',
      'tournerSecretWebhook',
      'testerWebhook',
      'listerLivraisons',
      'renvoyerLivraison',
      'lireOpenApi',
      'lireCompte',
      'listerCles',
      'creerCle',
      'revoquerCle',
      'listerMouvements',
    ]);
  });

  it('has examples that validate against their schemas; the request examples, one per tool, pass the service own validation', () => {
    let nombre = 0;
    for (const { chemin, methode, operation } of operations()) {
      const contenus: [string[], Json][] = [
        ...Object.entries((operation.requestBody?.content ?? {}) as Json).map(([type, media]): [string[], Json] => [['requestBody', 'content', type], media]),
        ...Object.entries(operation.responses as Json).flatMap(([statut, reponse]) =>
          Object.entries(((reponse as Json).content ?? {}) as Json).map(([type, media]): [string[], Json] => [['responses', statut, 'content', type], media]),
        ),
      ];
      for (const [ou, media] of contenus) {
        for (const [nom, exemple] of Object.entries((media.examples ?? {}) as Json)) {
          nombre++;
          expect(valider(['paths', chemin, methode, ...ou, 'schema'], exemple.value), `${methode} ${chemin} ${ou.join(' ')} example ${nom}`).toEqual([]);
        }
      }
    }
    expect(nombre).toBeGreaterThan(20);

    const requetes = document.paths['/travaux'].post.requestBody.content['application/json'].examples as Json;
    expect(new Set(Object.values(requetes).map((e) => e.value.outil))).toEqual(new Set(OUTILS));
    for (const [nom, exemple] of Object.entries(requetes)) expect(v.safeParse(RequeteTravaux, exemple.value).issues, nom).toBeUndefined();
  });

  it('holds its answers to their shape: a missing member, an unknown one or a wrong detail is refused', () => {
    const travail = document.paths['/travaux/{id}'].get.responses['200'].content['application/json'].examples.termine.value;
    const schemaTravail = ['components', 'schemas', 'Travail'];
    expect(valider(schemaTravail, travail)).toEqual([]);
    const { statut: _statut, ...sansStatut } = travail;
    expect(valider(schemaTravail, sansStatut)).not.toEqual([]);
    expect(valider(schemaTravail, { ...travail, inconnu: 1 })).not.toEqual([]);
    expect(
      valider(['components', 'schemas', 'Erreur'], { error: { code: 'invalid_settings', message: 'm', details: [{ message: 'sans chemin' }] } }),
    ).not.toEqual([]);
    // Open as the spec wants: a member the document does not name is allowed inside error.
    expect(valider(['components', 'schemas', 'Erreur'], { error: { code: 'not_found', message: 'm', plus_tard: true } })).toEqual([]);
  });
});

describe('clients generated with default options', () => {
  it('compile every valid request and answer read, and refuse each invalid request in its own file', async () => {
    await generer(document, dossier);
    const { valides, invalides } = await ecrireCas(dossier);
    const diagnostics = await compiler(dossier);
    const texte = (fichier: string) => diagnostics.filter((d) => d.fichier === fichier).map((d) => `${d.ligne}: ${d.texte}`);

    // The generated code itself compiles under the project's strict options, and so do the valid uses.
    const horsCas = diagnostics.filter((d) => !d.fichier.startsWith('cas/'));
    expect(horsCas.map((d) => `${d.fichier}(${d.ligne}): ${d.texte}`)).toEqual([]);
    for (const fichier of valides) expect(texte(fichier), fichier).toEqual([]);

    // Each invalid case fails, and only on its own statement.
    for (const { fichier, cas, ligne } of invalides) {
      const erreurs = diagnostics.filter((d) => d.fichier === fichier);
      expect(erreurs.length, `${fichier} (${cas.pourquoi}) compiled`).toBeGreaterThan(0);
      expect(
        erreurs.map((d) => d.ligne),
        `${fichier}: ${texte(fichier).join('\n')}`,
      ).toEqual(erreurs.map(() => ligne));
    }
    expect(invalides.length).toBeGreaterThanOrEqual(28);
  });
});

describe('real answers', () => {
  it('validate against the schema of their path, method and status', async () => {
    const url = pile.urlBase;
    const recues: { chemin: string; methode: string; reponse: Reponse }[] = [];
    const noter = async <T = any>(chemin: string, appel: Promise<Reponse<T>>, attendu: number): Promise<Reponse<T>> => {
      const reponse = await appel;
      expect(reponse.statut, `${chemin}: ${JSON.stringify(reponse.corps)}`).toBe(attendu);
      return reponse;
    };
    const appelNote = async <T = any>(methode: string, gabarit: string, cible: string, attendu: number, options?: Parameters<typeof appeler>[3]) => {
      const reponse = await noter<T>(gabarit, appeler<T>(url, methode, cible, options), attendu);
      recues.push({ chemin: gabarit, methode: methode.toLowerCase(), reponse });
      return reponse;
    };

    const { cle } = await pile.creerCompte(100);
    const image = { base64: enBase64(await imageTest(1)), nom: 'jardin.jpg' };

    await appelNote('GET', '/outils', '/outils', 200);
    await appelNote('GET', '/openapi.json', '/openapi.json', 200);
    await appelNote('GET', '/solde', '/solde', 200, { cle });
    await appelNote('GET', '/solde', '/solde', 401);
    await appelNote('POST', '/televersements', '/televersements', 201, { cle, json: { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: 1200 }] } });

    // One job, seen en_attente (202), en_cours and termine.
    const { corps: lancement } = await appelNote('POST', '/travaux', '/travaux', 202, { cle, json: { outil: 'ciel', images: [image] } });
    const id = lancement.travaux[0].id as string;
    for (let vu = ''; vu !== 'en_cours';) {
      const { corps } = await appeler(url, 'GET', `/travaux/${id}`, { cle });
      vu = corps.statut;
      if (vu === 'en_cours') recues.push({ chemin: '/travaux/{id}', methode: 'get', reponse: { statut: 200, corps, entetes: new Headers() } });
      else expect(['en_attente', 'en_cours'], 'seen en_cours before it ended').toContain(vu);
      await new Promise((r) => setTimeout(r, 20));
    }
    await attendreTravail(url, cle, id);
    await appelNote('GET', '/travaux/{id}', `/travaux/${id}`, 200, { cle });

    // A batch with only style set, seen en_cours and termine; a listing text; a job that fails.
    const { corps: lot } = await appelNote('POST', '/travaux', '/travaux', 202, {
      cle,
      json: {
        outil: 'staging',
        valeurs: { style: 'japandi' },
        images: [{ base64: enBase64(await pieceTest(1)), nom: 'salon.jpg' }, { base64: enBase64(await pieceTest(2)) }],
      },
    });
    await appelNote('GET', '/lots/{id}', `/lots/${lot.lot}`, 200, { cle });
    const { corps: annonce } = await appelNote('POST', '/travaux', '/travaux', 202, { cle, json: { outil: 'annonce', valeurs: { lieu: 'Gent' } } });
    const { corps: echec } = await appelNote('POST', '/travaux', '/travaux', 202, {
      cle,
      json: { outil: 'vider', images: [{ url: 'https://127.0.0.1/interdit.jpg' }] },
    });
    await attendreLot(url, cle, lot.lot);
    await appelNote('GET', '/lots/{id}', `/lots/${lot.lot}`, 200, { cle });
    expect((await attendreTravail(url, cle, annonce.travaux[0].id)).texte).toContain('Gent');
    expect((await attendreTravail(url, cle, echec.travaux[0].id)).statut).toBe('echec');
    await appelNote('GET', '/travaux/{id}', `/travaux/${annonce.travaux[0].id}`, 200, { cle });
    await appelNote('GET', '/travaux/{id}', `/travaux/${echec.travaux[0].id}`, 200, { cle });
    const { corps: liste } = await appelNote('GET', '/travaux', '/travaux?limite=10', 200, { cle });
    expect(liste.travaux.map((t: { statut: string }) => t.statut)).toEqual(expect.arrayContaining(['termine', 'echec']));
    // Erasure (our extension): a failed job, a whole batch; then both are gone.
    await appelNote('DELETE', '/travaux/{id}', `/travaux/${echec.travaux[0].id}`, 200, { cle });
    await appelNote('DELETE', '/lots/{id}', `/lots/${lot.lot}`, 200, { cle });
    await appelNote('DELETE', '/lots/{id}', `/lots/${lot.lot}`, 404, { cle });

    // Webhooks (our extension). Deliveries to example.com fail here (no network): two attempts
    // (the schedule is shortened), then en_echec, which can be resent.
    const { corps: webhook } = await appelNote('POST', '/webhooks', '/webhooks', 201, {
      cle,
      json: { url: 'https://example.com/hook', evenements: ['lot.fini'] },
    });
    await appelNote('GET', '/webhooks', '/webhooks', 200, { cle });
    await appelNote('POST', '/webhooks/{id}/secret', `/webhooks/${webhook.id}/secret`, 200, { cle });
    const { corps: test } = await appelNote('POST', '/webhooks/{id}/test', `/webhooks/${webhook.id}/test`, 202, { cle });
    for (const fin = Date.now() + 30_000; ;) {
      const { corps } = await appelNote('GET', '/webhooks/{id}/livraisons', `/webhooks/${webhook.id}/livraisons`, 200, { cle });
      if (corps.livraisons[0].statut === 'en_echec') break;
      if (Date.now() > fin) throw new Error(`the test delivery is still ${corps.livraisons[0].statut}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await appelNote('POST', '/webhooks/{id}/livraisons/{livraison}/renvoyer', `/webhooks/${webhook.id}/livraisons/${test.id}/renvoyer`, 202, { cle });
    await appelNote('POST', '/webhooks', '/webhooks', 400, { cle, json: { url: 'http://example.com/hook', evenements: ['lot.fini'] } });
    await appelNote('DELETE', '/webhooks/{id}', `/webhooks/${webhook.id}`, 204, { cle });
    await appelNote('DELETE', '/webhooks/{id}', `/webhooks/${webhook.id}`, 404, { cle });

    // The web site's routes, with a session (a web user made as the admin CLI makes one); an API key is refused there.
    const email = `contrat-${randomUUID()}@example.com`;
    await creerUtilisateurWeb(pile.cognito!, pile.deps, { email, motDePasse: 'Motdepasse1', credits: 20 });
    const { cognito } = pile;
    const connexion = await cognito!.sdk.send(
      new InitiateAuthCommand({ ClientId: cognito!.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: 'Motdepasse1' } }),
    );
    const session = connexion.AuthenticationResult!.IdToken!;
    await appelNote('GET', '/compte', '/compte', 200, { cle: session });
    await appelNote('GET', '/compte', '/compte', 403, { cle });
    await appelNote('GET', '/compte', '/compte', 401, { cle: 'pas.une.session' });
    const { corps: nouvelle } = await appelNote('POST', '/compte/cles', '/compte/cles', 201, { cle: session, json: { nom: 'contrat', test: true } });
    await appelNote('POST', '/compte/cles', '/compte/cles', 400, { cle: session, json: { nom: ' ' } });
    await appelNote('GET', '/compte/cles', '/compte/cles', 200, { cle: session });
    // A job of the session's, so that a movement links to its job and tool.
    await appelNote('POST', '/travaux', '/travaux', 202, { cle: session, json: { outil: 'ciel', images: [image] } });
    await appelNote('GET', '/compte/mouvements', '/compte/mouvements', 200, { cle: session });
    await appelNote('GET', '/compte/mouvements', '/compte/mouvements?limite=0', 400, { cle: session });
    await appelNote('DELETE', '/compte/cles/{id}', `/compte/cles/${nouvelle.id}`, 204, { cle: session });
    await appelNote('DELETE', '/compte/cles/{id}', `/compte/cles/${nouvelle.id}`, 404, { cle: session });

    // Errors, with the members they carry.
    await appelNote('GET', '/travaux', '/travaux?limite=0', 400, { cle });
    await appelNote('GET', '/travaux/{id}', `/travaux/${randomUUID()}`, 404, { cle });
    await appelNote('GET', '/lots/{id}', `/lots/${randomUUID()}`, 404, { cle });
    await appelNote('POST', '/travaux', '/travaux', 401, { cle: 'rtch_inconnue', json: { outil: 'ciel', images: [image] } });
    await appelNote('POST', '/travaux', '/travaux', 400, { cle, corps: '{"outil":', entetes: { 'Content-Type': 'application/json' } });
    await appelNote('POST', '/travaux', '/travaux', 415, { cle, corps: 'outil=ciel', entetes: { 'Content-Type': 'text/plain' } });
    await appelNote('POST', '/travaux', '/travaux', 413, {
      cle,
      json: { outil: 'ciel', images: Array.from({ length: 51 }, () => ({ url: 'https://exemple.com/a.jpg' })) },
    });
    const { corps: reglage } = await appelNote('POST', '/travaux', '/travaux', 422, {
      cle,
      json: { outil: 'staging', valeurs: { style: 'baroque' }, images: [image] },
    });
    expect(reglage.error.details.length).toBeGreaterThan(0);
    expect(
      reglage.error.details.some((d: { chemin: string }) => d.chemin.includes('style')),
      JSON.stringify(reglage),
    ).toBe(true);
    const { corps: inconnu } = await appelNote('POST', '/travaux', '/travaux', 422, {
      cle,
      json: { outil: 'ciel', images: [{ televersement: randomUUID() }] },
    });
    expect(inconnu.error).toMatchObject({ index: 0, raison: 'inconnu' });
    await appelNote('POST', '/travaux', '/travaux', 422, { cle, json: { outil: 'peinture', images: [image] } });
    await appelNote('POST', '/televersements', '/televersements', 422, { cle, json: { fichiers: [{ type: 'image/gif', taille: 1 }] } });
    const pauvre = await pile.creerCompte(1);
    const { corps: credits } = await appelNote('POST', '/travaux', '/travaux', 402, { cle: pauvre.cle, json: { outil: 'ciel', images: [image] } });
    expect(credits.error).toMatchObject({ credits: 1, requis: 2 });

    for (const { chemin, methode, reponse } of recues) {
      const statut = String(reponse.statut);
      const ou = `${methode.toUpperCase()} ${chemin} ${statut}`;
      expect(document.paths[chemin]?.[methode]?.responses?.[statut], `${ou} is documented`).toBeDefined();
      if (reponse.statut === 204) {
        // No content: nothing to validate, and nothing sent.
        expect(reponse.corps, ou).toBe('');
        continue;
      }
      expect(
        valider(['paths', chemin, methode, 'responses', statut, 'content', 'application/json', 'schema'], reponse.corps),
        `${ou}: ${JSON.stringify(reponse.corps).slice(0, 500)}`,
      ).toEqual([]);
    }
    // Each operation's success answer was among them, and each job state a client polls for.
    for (const { chemin, methode, operation } of operations()) {
      const succes = Object.keys(operation.responses).find((s) => s.startsWith('2'));
      expect(
        recues.some((r) => r.chemin === chemin && r.methode === methode && String(r.reponse.statut) === succes),
        `${operation.operationId} answered`,
      ).toBe(true);
    }
    const etats = recues.filter((r) => r.chemin === '/travaux/{id}' && r.methode === 'get' && r.reponse.statut === 200).map((r) => r.reponse.corps.statut);
    expect(new Set(etats)).toEqual(new Set(['en_cours', 'termine', 'echec']));
    const lots = recues.filter((r) => r.chemin === '/lots/{id}' && r.methode === 'get' && r.reponse.statut === 200).map((r) => r.reponse.corps.statut);
    expect(lots).toEqual(['en_cours', 'termine']);
  });
});
