/**
 * Which settings a request named, as opposed to the defaults the schema fills in: read with the request
 * (contrat/demande.ts), kept on the job, and weighed by both engines where it matters: staging's room
 * refuses a bathroom photo on a washbasin only when no room was named (commun/zones.ts). The same photo,
 * through the whole service: test/integration/piece-nommee.test.ts.
 */
import { BedrockRuntimeClient, InvokeModelCommand, type InvokeModelCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { lireDemande } from '../../lambdas/core/contrat/demande';
import { CATALOGUE } from '../../lambdas/core/modele/outils';
import { configurationBedrock } from '../../lambdas/moteurs/bedrock/configuration';
import { creerMoteurBedrock } from '../../lambdas/moteurs/bedrock/index';
import type { ObjetDetecte } from '../../lambdas/moteurs/commun/detection';
import { valeurNommee } from '../../lambdas/moteurs/commun/moteur';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { photo } from '../support/verite';
import { issue } from '../support/refus';

/** A bathroom the local detector knows by its washbasin only (no toilet found): the case a named room decides. */
const SALLE_DE_BAIN = photo('salle-de-bain_coco006818.jpg');
const BASE64 = SALLE_DE_BAIN.toString('base64');
/** staging's settings as the schema fills them in when none is given. */
const DEFAUTS_STAGING: Record<string, string> = Object.fromEntries(
  CATALOGUE.staging.champs.flatMap((champ) => (champ.defaut === undefined ? [] : [[champ.nom, champ.defaut]])),
);

const json = async (corps: unknown) => (await lireDemande('application/json', Buffer.from(JSON.stringify(corps)))).demande;

const formulaire = async (champs: Record<string, string>) => {
  const f = new FormData();
  for (const [nom, valeur] of Object.entries(champs)) f.append(nom, valeur);
  f.append('image', new Blob([SALLE_DE_BAIN], { type: 'image/jpeg' }), 'sdb.jpg');
  const reponse = new Response(f);
  return (await lireDemande(reponse.headers.get('content-type')!, Buffer.from(await reponse.arrayBuffer()))).demande;
};

describe('the settings a request names (contrat/demande.ts)', () => {
  it('JSON: none named, the defaults still applied to valeurs', async () => {
    const demande = await json({ outil: 'staging', images: [{ base64: BASE64 }] });
    expect(demande.valeurs).toMatchObject({ piece: 'living room' });
    expect(demande.valeurs).toEqual(DEFAUTS_STAGING);
    expect(demande.nommees).toEqual([]);
    expect((await json({ outil: 'staging', valeurs: {}, images: [{ base64: BASE64 }] })).nommees).toEqual([]);
  });

  it('JSON: the names given, a default value named explicitly included', async () => {
    const demande = await json({ outil: 'staging', valeurs: { piece: 'living room', style: 'japandi' }, images: [{ base64: BASE64 }] });
    expect(demande.valeurs).toEqual({ ...DEFAUTS_STAGING, style: 'japandi' });
    expect(demande.nommees.toSorted()).toEqual(['piece', 'style']);
  });

  it('multipart: the fields given, outil and the images aside', async () => {
    expect((await formulaire({ outil: 'staging' })).nommees).toEqual([]);
    const demande = await formulaire({ outil: 'staging', piece: 'bedroom' });
    expect(demande.valeurs).toEqual({ ...DEFAUTS_STAGING, piece: 'bedroom' });
    expect(demande.nommees).toEqual(['piece']);
  });
});

describe('valeurNommee (commun/moteur.ts)', () => {
  it('a value the request named; undefined for a default; every value when the caller does not say', () => {
    const valeurs = { piece: 'living room', style: 'modern' };
    expect(valeurNommee({ valeurs, nommees: ['style'] }, 'piece')).toBeUndefined();
    expect(valeurNommee({ valeurs, nommees: ['piece'] }, 'piece')).toBe('living room');
    expect(valeurNommee({ valeurs, nommees: [] }, 'style')).toBeUndefined();
    expect(valeurNommee({ valeurs }, 'piece')).toBe('living room');
  });
});

describe('a bathroom photo staged (the local engine)', () => {
  const moteur = creerMoteurLocal();

  it('no room named, the default room filled in: refused as a bathroom, for its washbasin', async () => {
    expect(await issue(moteur.retoucher({ outil: 'staging', valeurs: DEFAUTS_STAGING, nommees: [], image: SALLE_DE_BAIN, travail: 't' }))).toMatch(
      /^sol_introuvable: This looks like a bathroom \(a washbasin found/,
    );
  });

  it.each(['bedroom', 'living room'])('%s named: not refused for the washbasin', async (piece) => {
    const valeurs = { ...DEFAUTS_STAGING, piece };
    expect(await issue(moteur.retoucher({ outil: 'staging', valeurs, nommees: ['piece'], image: SALLE_DE_BAIN, travail: 't' }))).toBe('delivered');
  });
});

describe('a photo with a washbasin staged (the Bedrock engine, its detector and model stubbed)', () => {
  const client = new BedrockRuntimeClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const bedrock = mockClient(client);
  // As Rekognition labels it: a washbasin, high on the wall, well clear of the floor.
  const lavabo: ObjetDetecte = { nom: 'Sink', nature: 'fixe', boite: { x0: 0.05, y0: 0.3, x1: 0.25, y1: 0.5 }, confiance: 0.93 };
  const moteur = creerMoteurBedrock({ client, configuration: configurationBedrock({}), detecteur: { nom: 'test', detecter: async () => [lavabo] } });

  beforeEach(() => {
    bedrock.reset();
    // A model that answers the image it was sent: the structure check passes, what matters is that it was asked.
    bedrock.on(InvokeModelCommand).callsFake(async (input: { body: string }) => {
      const corps = JSON.parse(input.body);
      const image = (await sharp(Buffer.from(corps.image, 'base64')).png().toBuffer()).toString('base64');
      return {
        body: new TextEncoder().encode(JSON.stringify({ images: [image], seeds: [corps.seed], finish_reasons: [null] })),
      } as unknown as InvokeModelCommandOutput;
    });
  });

  it('no room named: refused as a bathroom, the model never called', async () => {
    expect(await issue(moteur.retoucher({ outil: 'staging', valeurs: DEFAUTS_STAGING, nommees: [], image: SALLE_DE_BAIN, travail: 't' }))).toMatch(
      /^sol_introuvable: This looks like a bathroom \(a washbasin found/,
    );
    expect(bedrock.commandCalls(InvokeModelCommand)).toHaveLength(0);
  });

  it('bedroom named: the model furnishes it', async () => {
    const valeurs = { ...DEFAUTS_STAGING, piece: 'bedroom' };
    expect(await issue(moteur.retoucher({ outil: 'staging', valeurs, nommees: ['piece'], image: SALLE_DE_BAIN, travail: 't' }))).toBe('delivered');
    expect(bedrock.commandCalls(InvokeModelCommand).length).toBeGreaterThan(0);
  });
});
