/**
 * What we deploy, run here: `cdk synth` (the CLI, real bundling, `-c moteur=local -c liens=api` so no
 * Bedrock or CloudFront is needed), then jobs run end to end through what the template says: each
 * function's bundled asset and Handler, its environment as the template sets it (references resolved
 * to the local stand-ins, custom resources answered by their own deploy-time functions), the routes
 * of the template's API, and the state machine's definition asset after its substitutions
 * (local/pile-template.ts). The image functions run from a copy of their asset with the host's sharp
 * binary added: the asset's is for linux-arm64.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { creerCompte } from '../../lambdas/core/domaine/comptes';
import { creerUtilisateurWeb } from '../../exploitation/utilisateurs-web';
import { clientDocument } from '../../lambdas/core/infra/client-dynamodb';
import { SchemaLancement } from '../../lambdas/core/contrat/openapi/schemas';
import type { Lancement } from '../../lambdas/core/modele/enregistrements';
import { demarrerPileTemplate, synthetiser, type PileTemplate, type Synthese, type Template } from '../../local/pile-template';
import { Webhook } from 'standardwebhooks';
import { demarrerRecepteur } from '../support/recepteur';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { lireZip } from '../support/zip';

const dossier = mkdtempSync(path.join(tmpdir(), 'retouche-synth-'));
const quiet = { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT' };
let synthese: Synthese;
let pile: PileTemplate;

// The webhook test's receiver is on this machine: allowed here as a local stack started for tests allows it.
const demarrer = (template?: Template) =>
  demarrerPileTemplate({
    synthese,
    template,
    dynamoEndpoint: inject('dynamoEndpoint'),
    pauseReessaiMs: 5,
    environnementLocal: { ...quiet, RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK: '1' },
  });

const compte = (p: PileTemplate, credits: number) => creerCompte({ ddb: clientDocument(p.dynamo), table: p.table, horloge: () => new Date() }, credits);

const solde = async (p: PileTemplate, cle: string) => (await appeler<{ credits: number }>(p.urlBase, 'GET', '/solde', { cle })).corps.credits;

/** Logical id of the template's function behind a route `fonction` (routes.ts), from the template's API methods. */
const idDe = (p: PileTemplate, fonction: string) => p.routes[fonction]!;

beforeAll(async () => {
  synthese = await synthetiser(dossier, { stage: 'gabarit', moteur: 'local', liens: 'api' });
  pile = await demarrer();
}, 120_000);

afterAll(async () => {
  await pile?.arreter();
  rmSync(dossier, { recursive: true, force: true });
});

describe('the synthesized template, run locally', () => {
  it("serves the web site's account and API pages from their bundles, to a session its user pool signed", async () => {
    const email = `gabarit-${crypto.randomUUID()}@example.com`;
    await creerUtilisateurWeb(
      pile.cognito,
      { ddb: clientDocument(pile.dynamo), table: pile.table, horloge: () => new Date() },
      {
        email,
        motDePasse: 'Motdepasse1',
        credits: 7,
      },
    );
    const connexion = await pile.cognito.sdk.send(
      new InitiateAuthCommand({ ClientId: pile.cognito.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: 'Motdepasse1' } }),
    );
    const jeton = connexion.AuthenticationResult!.IdToken!;
    expect((await appeler<{ credits: number }>(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.credits).toBe(7);
    const cle = await appeler<{ cle: string; id: string }>(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: 'gabarit' } });
    expect(cle.statut).toBe(201);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: cle.corps.cle })).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/compte/cles', { cle: cle.corps.cle })).statut).toBe(403);
    expect((await appeler(pile.urlBase, 'DELETE', `/compte/cles/${cle.corps.id}`, { cle: jeton })).statut).toBe(204);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: cle.corps.cle })).statut).toBe(401);
  });

  it('was synthesized with a summary on stderr, once, naming its Region, and no template on stdout', () => {
    const { stdout, stderr } = synthese.sortieCdk!;
    // Empty in a CI too, where the CLI moves its own warnings to stdout (CI=true).
    expect(stdout).toBe('');
    // cdk.json configures every feature flag, so no synth prints "N feature flags are not configured".
    expect(stderr).not.toMatch(/feature flag/i);
    expect(stderr.match(/^Synthesized Retouche-gabarit: /gm)).toHaveLength(1);
    expect(stderr).toMatch(/^ {2}Region {2}us-east-1 \(from -c region\)$/m);
    expect(stderr).toMatch(/^ {2}Engine {2}local: sharp previews, no model called$/m);
  });

  it('loads every function of the template from its asset, with its Handler and environment', () => {
    const fonctions = Object.entries(synthese.template.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    expect(Object.keys(pile.workers).sort()).toEqual(fonctions.map(([id]) => id).sort());
    for (const [id, r] of fonctions) {
      const f = pile.fonctions[id]!;
      expect(f.handler).toBe(r.Properties!.Handler);
      expect(f.asset.startsWith(synthese.dossier)).toBe(true);
      // Outside the repository: nothing in a bundle resolves to the project's node_modules.
      expect(path.relative(process.cwd(), f.racine).startsWith('..')).toBe(true);
      for (const nom of Object.keys(r.Properties!.Environment?.Variables ?? {})) expect(f.env[nom], `${id} ${nom}`).toBeTruthy();
    }
    const creer = pile.fonctions[idDe(pile, 'travaux-creer')]!.env;
    expect(creer.RETOUCHE_TABLE).toBe(pile.table);
    expect(creer.RETOUCHE_MACHINE_ARN).toBe(pile.stepFunctions.arnMachine);
    // POST /travaux signs no link (a new job has no result): it gets no link key.
    expect(creer.RETOUCHE_LIENS_SECRET_ARN).toBeUndefined();
    const travail = pile.fonctions[idDe(pile, 'travail')]!.env;
    expect(travail.RETOUCHE_LIENS_BASE).toBe(`${pile.urlBase}/fichiers`);
    // Image functions: a copy of the asset, with only the host's sharp binary added.
    const outil = Object.values(pile.fonctions).find((f) => f.env.RETOUCHE_C2PA_SECRET_ARN)!;
    expect(outil.racine).not.toBe(outil.asset);
    expect(outil.env.RETOUCHE_MOTEUR).toBe('local');
  });

  it('runs a ciel job: 202, then termine, its result downloaded through the links function, signed with C2PA', async () => {
    const { cle } = await compte(pile, 10);
    const source = await imageTest(11);
    const { statut, corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ base64: enBase64(source), nom: 'jardin.jpg' }] },
    });
    expect(statut).toBe(202);
    expect(v.safeParse(SchemaLancement, corps).issues).toBeUndefined();
    expect(await solde(pile, cle)).toBe(8);
    const fini = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
    expect(fini.statut).toBe('termine');
    expect(fini.resultats[0]!.url.startsWith(`${pile.urlBase}/fichiers/`)).toBe(true);
    const telechargement = await fetch(fini.resultats[0]!.url);
    expect(telechargement.status).toBe(200);
    const resultat = Buffer.from(await telechargement.arrayBuffer());
    const meta = await sharp(resultat).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([96, 64, 'jpeg']);
    // Signed with the key the C2PA custom resource's own function put in its secret.
    const idSecret =
      pile.fonctions[Object.keys(pile.fonctions).find((id) => pile.fonctions[id]!.env.RETOUCHE_C2PA_SECRET_ARN)!]!.env.RETOUCHE_C2PA_SECRET_ARN!.split(
        ':',
      ).pop()!;
    const { chaine } = JSON.parse(pile.secret(idSecret)!) as { chaine: string[] };
    expect((await verifierC2pa(resultat, 'jpeg', chaine.at(-1)!)).valide).toBe(true);
  });

  it('runs a batch of 2 and its ZIP', async () => {
    const { cle } = await compte(pile, 20);
    const { statut, corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', {
      cle,
      json: {
        outil: 'ciel',
        images: [
          { base64: enBase64(await imageTest(12)), nom: 'a.jpg' },
          { base64: enBase64(await imageTest(13, 'png')), nom: 'b.png' },
        ],
      },
    });
    expect(statut).toBe(202);
    expect(corps.lot).not.toBeNull();
    const lot = await attendreLot(pile.urlBase, cle, corps.lot!);
    expect(lot).toMatchObject({ statut: 'termine', total: 2, termines: 2, echecs: 0, en_cours: 0 });
    const zip = await fetch(lot.zip!.url);
    expect(zip.status).toBe(200);
    const entrees = await lireZip(Buffer.from(await zip.arrayBuffer()));
    expect(entrees.size).toBe(2);
    for (const octets of entrees.values()) expect((await sharp(octets).metadata()).width).toBe(96);
    expect(await solde(pile, cle)).toBe(16);
  });

  it("delivers a job's end to a webhook through the queue and the delivery function, as bundled and wired by the template", async () => {
    const recepteur = await demarrerRecepteur();
    recepteur.reponses.set('/', [204]);
    const recus = recepteur.recus;
    try {
      const { cle } = await compte(pile, 10);
      const url = recepteur.url('/');
      const w = await appeler(pile.urlBase, 'POST', '/webhooks', { cle, json: { url, evenements: ['travail.fini'] } });
      expect(w.statut).toBe(201);
      const { corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', {
        cle,
        json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(15)) }] },
      });
      await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
      for (const fin = Date.now() + 30_000; recus.length === 0;) {
        if (Date.now() > fin) throw new Error('no delivery');
        await new Promise((r) => setTimeout(r, 50));
      }
      const evenement = new Webhook(w.corps.secret).verify(recus[0]!.corps, recus[0]!.entetes as Record<string, string>) as {
        type: string;
        data: { id: string; resultats: { url: string }[] };
      };
      expect(evenement.type).toBe('travail.fini');
      expect(evenement.data.id).toBe(corps.travaux[0]!.id);
      // The links in the body are signed by the delivery function with the stage's key: they download.
      expect((await fetch(evenement.data.resultats[0]!.url)).status).toBe(200);
      // Nothing went to the dead-letter queue.
      const echecs = Object.entries(synthese.template.Resources).find(([id, r]) => r.Type === 'AWS::SQS::Queue' && id.startsWith('WebhooksEchecs'))![0];
      expect(pile.sqs.messages(echecs)).toEqual([]);
    } finally {
      await recepteur.arreter();
    }
  });

  it('runs a job from a direct upload: the PUT URL the upload function signs, the head read by POST /travaux', async () => {
    const { cle } = await compte(pile, 10);
    const photo = await imageTest(14);
    const annonce = await appeler<{ televersements: { id: string; url: string; entetes: Record<string, string> }[] }>(pile.urlBase, 'POST', '/televersements', {
      cle,
      json: { fichiers: [{ nom: 'terrasse.jpg', type: 'image/jpeg', taille: photo.length }] },
    });
    expect(annonce.statut).toBe(201);
    const [t] = annonce.corps.televersements;
    expect((await fetch(t!.url, { method: 'PUT', headers: t!.entetes, body: photo })).status).toBe(200);
    const { statut, corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ televersement: t!.id }] } });
    expect(statut).toBe(202);
    const fini = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
    expect(fini.statut).toBe('termine');
    expect(await solde(pile, cle)).toBe(8);
  });

  it('a job whose image URL is refused (SSRF) ends echec and is refunded', async () => {
    const { cle } = await compte(pile, 10);
    const { statut, corps } = await appeler<Lancement>(pile.urlBase, 'POST', '/travaux', {
      cle,
      json: { outil: 'ciel', images: [{ url: 'https://127.0.0.1/interdit.jpg' }] },
    });
    expect(statut).toBe(202);
    expect(corps.cout_total).toBe(2);
    const fini = await attendreTravail(pile.urlBase, cle, corps.travaux[0]!.id);
    expect(fini).toMatchObject({ statut: 'echec', rembourse: true, resultats: [] });
    expect(fini.erreur?.code).toBe('url_refusee');
    expect(await solde(pile, cle)).toBe(10);
  });

  it('the function the schedule targets (the sweeper) runs against the stand-ins and finds nothing late', async () => {
    const regle = Object.values(synthese.template.Resources).find((r) => r.Type === 'AWS::Events::Rule')!;
    const cible = (regle.Properties!.Targets as { Arn: { 'Fn::GetAtt': [string, string] } }[])[0]!.Arn['Fn::GetAtt'][0];
    expect(pile.fonctions[cible]!.env.RETOUCHE_MACHINE_ARN).toBe(pile.stepFunctions.arnMachine);
    const bilan = await pile.workers[cible]!.invoquer({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} });
    expect(bilan).toMatchObject({ travauxEnRetard: 0, lotsEnRetard: 0 });
  });
});

describe('what the test catches in the template', () => {
  const copie = (): Template => structuredClone(synthese.template);

  it('a wrong Handler: the function does not load', async () => {
    const t = copie();
    t.Resources[idDe(pile, 'solde')]!.Properties!.Handler = 'index.gestionnaire';
    await expect(demarrer(t)).rejects.toThrow(/Runtime\.HandlerNotFound: index\.gestionnaire is undefined or not exported/);
  });

  it('a broken bundle: the function does not load', async () => {
    // The solde function's code replaced by a bundle that throws on import, as a bad build would.
    const casse = mkdtempSync(path.join(synthese.dossier, 'asset.casse-'));
    writeFileSync(path.join(casse, 'index.mjs'), "throw new Error('broken bundle');\n");
    const t = copie();
    t.Resources[idDe(pile, 'solde')]!.Properties!.Code.S3Key = 'casse.zip';
    const assets = structuredClone(synthese.assets);
    assets.files.casse = { source: { path: path.basename(casse), packaging: 'zip' }, destinations: { local: { objectKey: 'casse.zip' } } };
    await expect(
      demarrerPileTemplate({ synthese: { ...synthese, assets }, template: t, dynamoEndpoint: inject('dynamoEndpoint'), environnementLocal: quiet }),
    ).rejects.toThrow(/broken bundle/);
  });

  it('a renamed variable: the route answers 500', async () => {
    const t = copie();
    const env = t.Resources[idDe(pile, 'solde')]!.Properties!.Environment.Variables as Record<string, unknown>;
    env.RETOUCHE_TABLEAU = env.RETOUCHE_TABLE;
    delete env.RETOUCHE_TABLE;
    const autre = await demarrer(t);
    try {
      const { cle } = await compte(autre, 5);
      const reponse = await appeler(autre.urlBase, 'GET', '/solde', { cle });
      expect(reponse.statut).toBe(500);
      expect(reponse.corps.error.code).toBe('internal_error');
    } finally {
      await autre.arreter();
    }
  });
});
