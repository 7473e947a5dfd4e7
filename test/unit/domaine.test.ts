import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sourceDesTravaux } from '../../lambdas/core/domaine/comptes';
import { lireFiltre } from '../../lambdas/core/domaine/consultation';
import { erreurDepuisEchec } from '../../lambdas/core/domaine/cycle';
import { ErreurApi, ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { statutFinalLot, versLot, versTravail, type EnregistrementLot, type EnregistrementTravail } from '../../lambdas/core/modele/enregistrements';
import { creer as creerIntrouvable } from '../../lambdas/http/introuvable';
import { nomFichier } from '../../lambdas/core/modele/cles-s3';

/** A download link names its file in its query, as core/infra/liens.ts signs it; a display link does not. */
const signer = (cle: string, telechargement?: string) => ({
  url: `https://liens.example/${cle}?${telechargement ? `nom=${telechargement}&` : ''}sig`,
  expire_le: '2026-11-24T00:00:00.000Z',
});

const travail = (statut: EnregistrementTravail['statut'], id = 't1'): EnregistrementTravail => ({
  id,
  compte: 'c',
  outil: 'ciel',
  statut,
  cout: 2,
  valeurs: {},
  lot: null,
  index: 0,
  nom: null,
  source: 'api',
  cree_le: '2026-11-23T00:00:00.000Z',
  commence_le: null,
  termine_le: null,
  entrees: [],
  resultats: [{ cle: `resultats/c/${id}/01-ciel.jpg`, fichier: '01-ciel.jpg' }],
  texte: null,
  erreur: null,
  rembourse: false,
  graine: 7,
});

describe('job and batch shapes', () => {
  it('links appear only once a job is termine, and never expose internal fields', () => {
    expect(versTravail(travail('en_cours'), signer).resultats).toEqual([]);
    const fini = versTravail(travail('termine'), signer);
    // A photo without a name downloads as <job id>-<tool>.<extension>.
    expect(fini.resultats).toEqual([
      {
        url: signer('resultats/c/t1/01-ciel.jpg', 't1-ciel.jpg').url,
        url_affichage: signer('resultats/c/t1/01-ciel.jpg').url,
        // No photo of its own stored to compare with (its input is not in the record here).
        avant_affichage: null,
        expire_le: '2026-11-24T00:00:00.000Z',
      },
    ]);
    expect(versTravail({ ...travail('termine'), nom: 'jardin.jpg' }, signer).resultats[0]!.url).toBe(signer('resultats/c/t1/01-ciel.jpg', '01-ciel.jpg').url);
    expect(Object.keys(fini)).not.toContain('compte');
    expect(Object.keys(fini)).not.toContain('entrees');
  });

  it('a batch ends termine, partiel or echec by its counters', () => {
    expect(statutFinalLot(3, 0)).toBe('termine');
    expect(statutFinalLot(2, 1)).toBe('partiel');
    expect(statutFinalLot(0, 3)).toBe('echec');
  });

  it('a batch shows its ZIP only once it has left en_cours, with jobs in request order', () => {
    const lot: EnregistrementLot = {
      id: 'l',
      compte: 'c',
      outil: 'ciel',
      total: 2,
      termines: 2,
      echecs: 0,
      restants: 0,
      statut: 'en_cours',
      travaux: ['b', 'a'],
      zip_cle: 'zips/c/l.zip',
      cree_le: '2026-11-23T10:00:00.000Z',
      termine_le: null,
    };
    const travaux = [travail('termine', 'a'), travail('termine', 'b')];
    expect(versLot(lot, travaux, signer).zip).toBeNull();
    const fini = versLot({ ...lot, statut: 'termine' }, travaux, signer);
    // Downloaded under the batch's day and tool, with the start of its id (issue 41, point 2).
    expect(fini.zip).toEqual(signer('zips/c/l.zip', 'retouche-2026-11-23-ciel-l.zip'));
    expect(fini.travaux.map((t) => t.id)).toEqual(['b', 'a']);
    expect(fini.en_cours).toBe(0);
  });
});

describe('errors of a failed execution', () => {
  it('keeps known job codes and their message, hides anything else', () => {
    const cause = JSON.stringify({ errorType: 'contenu_refuse', errorMessage: 'Filtered by the model.' });
    expect(erreurDepuisEchec({ Error: 'contenu_refuse', Cause: cause })).toEqual({ code: 'contenu_refuse', message: 'Filtered by the model.' });
    expect(erreurDepuisEchec({ Error: 'url_refusee', Cause: 'not json' }).code).toBe('url_refusee');
    expect(erreurDepuisEchec({ Error: 'States.Timeout' }).code).toBe('moteur_indisponible');
    const interne = erreurDepuisEchec({ Error: 'TypeError', Cause: JSON.stringify({ errorMessage: 'x is undefined at /var/task/index.mjs' }) });
    expect(interne).toEqual({ code: 'erreur_interne', message: 'An internal error occurred.' });
    expect(erreurDepuisEchec({ Error: 'erreur_transitoire', Cause: JSON.stringify({ errorMessage: 'DynamoDB down' }) }).code).toBe('erreur_interne');
    expect(erreurDepuisEchec(undefined).code).toBe('erreur_interne');
  });

  it('a job error carries its code as its name, which Step Functions matches on', () => {
    const erreur = new ErreurTravail('moteur_indisponible');
    expect(erreur.name).toBe('moteur_indisponible');
    expect(erreur.message).toBe('The model is temporarily unavailable.');
  });
});

describe('GET /travaux parameters', () => {
  it('defaults to 20, accepts 1 to 100 and a known tool', () => {
    expect(lireFiltre(null)).toEqual({ limite: 20, outil: undefined });
    expect(lireFiltre({ limite: '100', outil: 'annonce' })).toEqual({ limite: 100, outil: 'annonce' });
    for (const limite of ['0', '101', '-1', '2.5', '', '1e2']) {
      expect(() => lireFiltre({ limite })).toThrow(ErreurApi);
    }
    expect(() => lireFiltre({ outil: 'peinture' })).toThrow(/outil/);
  });
});

describe("a job's source (Retouche-Source)", () => {
  it('an API key says api, or mcp when asked; web is never claimed; a session stays web', () => {
    expect(sourceDesTravaux({ source: 'api' }, undefined)).toBe('api');
    expect(sourceDesTravaux({ source: 'api' }, ' MCP ')).toBe('mcp');
    expect(sourceDesTravaux({ source: 'api' }, 'api')).toBe('api');
    expect(() => sourceDesTravaux({ source: 'api' }, 'web')).toThrow(/web is the web site's own/);
    expect(() => sourceDesTravaux({ source: 'api' }, 'slack')).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    expect(sourceDesTravaux({ source: 'web' }, 'mcp')).toBe('web');
  });
});

describe('result file names', () => {
  it('start with the position, keep a safe form of the image name, end with the tool', () => {
    expect(nomFichier(0, 'Salon du haut.JPG', 'ciel', 'jpg')).toBe('01-Salon du haut-ciel.jpg');
    expect(nomFichier(11, null, 'vider', 'png')).toBe('12-vider.png');
    expect(nomFichier(2, '../../etc/passwd', 'saison', 'jpg')).not.toContain('/');
  });
});

describe('unknown routes', () => {
  const appel = (httpMethod: string, path: string) => creerIntrouvable()({ httpMethod, path, headers: {} } as unknown as APIGatewayProxyEvent, {} as Context);

  it('answers 405 with Allow on a known path, 404 elsewhere, both with an Erreur body', async () => {
    const methode = await appel('PUT', '/api/v1/travaux');
    expect(methode.statusCode).toBe(405);
    expect(methode.headers?.Allow).toBe('GET, POST');
    const travail = await appel('PUT', '/api/v1/travaux/2b1a9a55-2a4e-4b77-9a39-5d0d3c1c2f10');
    expect(travail.statusCode).toBe(405);
    expect(JSON.parse(travail.body).error.allow).toEqual(['GET', 'DELETE']);
    const inconnu = await appel('GET', '/api/v1/factures');
    expect(inconnu.statusCode).toBe(404);
    expect(JSON.parse(inconnu.body)).toEqual({
      error: {
        code: 'not_found',
        message: 'No route GET /api/v1/factures (GET /api/v1/outils lists the tools, GET /api/v1/openapi.json describes every route).',
      },
    });
  });

  it('never answers 405 to the method the path accepts, and says where the route is', async () => {
    const message = async (methode: string, chemin: string) => {
      const reponse = await appel(methode, chemin);
      expect(reponse.statusCode, `${methode} ${chemin}`).toBe(404);
      return JSON.parse(reponse.body).error.message as string;
    };
    // Without the base path, or with a trailing slash: the route is named.
    expect(await message('GET', '/openapi.json')).toBe("No route GET /openapi.json: the API's routes are under /api/v1, as in GET /api/v1/openapi.json.");
    expect(await message('GET', '/outils/')).toContain('as in GET /api/v1/outils.');
    expect(await message('GET', '/api/v1/openapi.json/')).toBe('No route GET /api/v1/openapi.json/: without the trailing slash, GET /api/v1/openapi.json.');
    expect(await message('DELETE', '/api/v1/lots/l1/')).toContain('without the trailing slash, DELETE /api/v1/lots/l1.');
    // The root and the base path point to the tools and the document.
    for (const chemin of ['/', '/api/v1', '/api/v1/']) expect(await message('GET', chemin)).toContain('GET /api/v1/openapi.json describes every route');
  });
});

describe('log redaction (core/infra/journal.ts)', () => {
  it('cuts our S3 keys after their prefix, file names with spaces included, and drops members that name files or hold records', async () => {
    const { caviarder, caviarderTexte } = await import('../../lambdas/core/infra/journal');
    expect(caviarderTexte('GetObject resultats/acc/job/01-Maison du lac-ciel.jpg failed')).toBe('GetObject resultats/[redacted]');
    expect(caviarderTexte('zips/acc/lot.zip and televersements/acc/id')).toBe('zips/[redacted]');
    expect(caviarderTexte('job 1234 is missing')).toBe('job 1234 is missing');
    for (const membre of ['Key', 'nom', 'fichier', 'Item', 'CancellationReasons', '$response']) expect(caviarder(membre, { a: 1 })).toBe('[redacted]');
    const erreur = Object.assign(new Error('NoSuchKey: entrees/acc/job/0.jpg'), { Code: 'NoSuchKey' });
    expect(caviarder('erreur', erreur)).toMatchObject({ name: 'Error', message: 'NoSuchKey: entrees/acc/job/0.jpg', Code: 'NoSuchKey' });
  });
});

describe('a result never outlives its job’s 90 days (core/modele/retention.ts)', () => {
  it('tags each file with the whole days left from the next midnight UTC, as S3 counts them', async () => {
    const { joursRestants } = await import('../../lambdas/core/modele/retention');
    const jour = 24 * 3600_000;
    const expireLe = (ecrit: Date, jours: number) => (Math.floor(ecrit.getTime() / jour) + 1 + jours) * jour; // S3: write + days, rounded up to midnight
    for (const cree of ['2026-01-01T00:00:00Z', '2026-01-01T23:59:00Z', '2026-03-15T08:30:00Z']) {
      for (const apresMs of [60_000, 3600_000, 30 * jour, 89 * jour, 89.5 * jour]) {
        const ecrit = new Date(Date.parse(cree) + apresMs);
        const n = joursRestants(cree, ecrit);
        if (n < 1) continue; // not written at all
        expect(expireLe(ecrit, n), `${cree} + ${apresMs}`).toBeLessThanOrEqual(Date.parse(cree) + 90 * jour);
        expect(expireLe(ecrit, n + 1), `${cree} + ${apresMs}`).toBeGreaterThan(Date.parse(cree) + 90 * jour);
      }
    }
    // A ZIP written again on day 89 lives at most to day 90, not to day 179.
    expect(joursRestants('2026-01-01T10:00:00Z', new Date('2026-03-31T09:00:00Z'))).toBe(0);
    expect(joursRestants('2026-01-01T10:00:00Z', new Date('2026-01-01T10:05:00Z'))).toBe(89);
  });
});
