/**
 * The production engine's calls against what AWS documents (test/support/contrat-aws.ts, issue 28 point 6).
 * The engine runs every tool, with its settings and blurring, on photos of several shapes, against
 * answers shaped as the documentation gives them; every request it sends — to Stability (InvokeModel), to
 * Claude (Converse), to Rekognition (DetectLabels, DetectFaces, DetectText) — is checked against the
 * documented fields, types, ranges and sizes. A recipe that adds a field, sends an image out of bounds or
 * a body Rekognition cannot read fails here, before a stage meets it.
 */
import { BedrockRuntimeClient, ConverseCommand, InvokeModelCommand, type InvokeModelCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { DetectFacesCommand, DetectLabelsCommand, DetectTextCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutilImage } from '../../lambdas/core/modele/outils';
import { configurationBedrock } from '../../lambdas/moteurs/bedrock/configuration';
import { creerMoteurBedrock } from '../../lambdas/moteurs/bedrock/index';
import { creerDetecteurRekognition } from '../../lambdas/moteurs/bedrock/rekognition';
import { creerDetecteurPersonnesRekognition } from '../../lambdas/moteurs/bedrock/rekognition-personnes';
import { invoquerStability } from '../../lambdas/moteurs/bedrock/stability';
import {
  CONVERSE,
  CORPS_STABILITY,
  formatRekognition,
  imageStabilityValide,
  REKOGNITION,
  REPONSE_INVOKE_MAX,
  REPONSE_STABILITY,
  REQUETE_CONVERSE,
  REQUETE_DETECT_FACES,
  REQUETE_DETECT_LABELS,
  REQUETE_DETECT_TEXT,
  serviceStability,
  STOP_REASONS,
} from '../support/contrat-aws';

const client = new BedrockRuntimeClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const bedrock = mockClient(client);
const rekognition = new RekognitionClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const rek = mockClient(rekognition);
const configuration = configurationBedrock({});
const moteur = creerMoteurBedrock({
  client,
  configuration,
  detecteur: creerDetecteurRekognition(rekognition),
  personnes: creerDetecteurPersonnesRekognition(rekognition),
});

const problemes = (schema: v.GenericSchema, valeur: unknown): string[] =>
  (v.safeParse(schema, valeur).issues ?? []).map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`);

/** A photo with a floor, a sky and detail, so that every tool has something to work on. */
const dessinerPhoto = async (largeur: number, hauteur: number): Promise<Buffer> => {
  const data = Buffer.alloc(largeur * hauteur * 3);
  for (let y = 0; y < hauteur; y++) {
    for (let x = 0; x < largeur; x++) {
      const i = (y * largeur + x) * 3;
      // A room (Rekognition says Indoors below): a warm wall over a floor, not a sky, which staging would refuse.
      const mur = y < hauteur * 0.4;
      data[i] = mur ? 200 + (x % 20) : 150 + ((x * 7 + y * 3) % 9);
      data[i + 1] = mur ? 190 + (y % 15) : 118 + ((x + y * 5) % 7);
      data[i + 2] = mur ? 172 : 84 + ((x * y) % 5);
    }
  }
  return sharp(data, { raw: { width: largeur, height: hauteur, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
};
/** Each size drawn once for the file (the 24 MP one is sent by two tests): the same bytes every time. */
const photos = new Map<string, Promise<Buffer>>();
const photo = (largeur: number, hauteur: number): Promise<Buffer> => {
  const cle = `${largeur}x${hauteur}`;
  if (!photos.has(cle)) photos.set(cle, dessinerPhoto(largeur, hauteur));
  return photos.get(cle)!;
};

/** Answers as the Rekognition API reference shows them: instance boxes as ratios, a face, a line of text. */
const repondreRekognition = () => {
  rek.reset();
  rek.on(DetectLabelsCommand).resolves({
    Labels: [
      {
        // A chair, not a sofa: a sofa makes the room furnished, and staging would refuse it.
        Name: 'Chair',
        Confidence: 97.1,
        Instances: [{ BoundingBox: { Left: 0.4, Top: 0.6, Width: 0.3, Height: 0.3 }, Confidence: 96.4 }],
        Parents: [{ Name: 'Furniture' }],
      },
      { Name: 'Window', Confidence: 91.3, Instances: [{ BoundingBox: { Left: 0.08, Top: 0.5, Width: 0.16, Height: 0.25 }, Confidence: 90.2 }], Parents: [] },
      {
        Name: 'Car',
        Confidence: 93.0,
        Instances: [{ BoundingBox: { Left: 0.75, Top: 0.7, Width: 0.2, Height: 0.15 }, Confidence: 92.5 }],
        Parents: [{ Name: 'Vehicle' }],
      },
      {
        // Inside (a refrigerator): the car is parked outside the window, and staging does not take the room for a street.
        Name: 'Refrigerator',
        Confidence: 90.5,
        Instances: [{ BoundingBox: { Left: 0.02, Top: 0.3, Width: 0.1, Height: 0.4 }, Confidence: 90.1 }],
        Parents: [{ Name: 'Appliance' }],
      },
      { Name: 'Indoors', Confidence: 99.0, Instances: [], Parents: [] },
    ],
    LabelModelVersion: '3.0',
  });
  rek.on(DetectFacesCommand).resolves({ FaceDetails: [{ BoundingBox: { Left: 0.5, Top: 0.2, Width: 0.05, Height: 0.08 }, Confidence: 99.2 }] });
  rek.on(DetectTextCommand).resolves({
    TextDetections: [
      { DetectedText: 'AB-123-CD', Type: 'LINE', Id: 0, Confidence: 98.4, Geometry: { BoundingBox: { Left: 0.4, Top: 0.6, Width: 0.2, Height: 0.08 } } },
    ],
  });
};

/** Stability's documented answer: the image it was sent, as JPEG (what the recipes ask for), in base64 inside JSON. */
const repondreStability = () => {
  bedrock.reset();
  bedrock.on(InvokeModelCommand).callsFake(async (input: { body: string }) => {
    const corps = JSON.parse(input.body) as { image: string; seed: number; output_format: string };
    const image = await sharp(Buffer.from(corps.image, 'base64')).jpeg({ quality: 95 }).toBuffer();
    const reponse = JSON.stringify({ images: [image.toString('base64')], seeds: [corps.seed], finish_reasons: [null] });
    expect(problemes(REPONSE_STABILITY, JSON.parse(reponse))).toEqual([]);
    expect(reponse.length).toBeLessThan(REPONSE_INVOKE_MAX);
    return { body: new TextEncoder().encode(reponse) as unknown as InvokeModelCommandOutput['body'], contentType: 'application/json' };
  });
  bedrock.on(ConverseCommand).resolves({
    output: {
      message: { role: 'assistant', content: [{ text: '# Maison à Gent\n\nUne maison lumineuse.\n\n## Les faits\n\n- 3 chambres\n\nContactez l’agence.' }] },
    },
    stopReason: 'end_turn',
    usage: { inputTokens: 1200, outputTokens: 60, totalTokens: 1260 },
    metrics: { latencyMs: 900 },
  });
};

/** Every request sent since the last reset, checked against its documented shape. */
const verifierAppels = async (): Promise<string[]> => {
  const erreurs: string[] = [];
  for (const appel of bedrock.commandCalls(InvokeModelCommand)) {
    const { modelId, body, contentType, accept } = appel.args[0].input;
    if (contentType !== 'application/json' || accept !== 'application/json')
      erreurs.push(`InvokeModel ${modelId}: contentType/accept ${contentType}/${accept}`);
    const corps = JSON.parse(String(body)) as Record<string, string>;
    erreurs.push(...problemes(CORPS_STABILITY[serviceStability(modelId!)], corps).map((p) => `${modelId}: ${p}`));
    for (const champ of ['image', 'mask'] as const) {
      if (!corps[champ]) continue;
      const { width, height } = await sharp(Buffer.from(corps[champ], 'base64')).metadata();
      const refus = imageStabilityValide(width!, height!);
      if (refus) erreurs.push(`${modelId} ${champ}: ${refus}`);
    }
    if (corps.mask) {
      const [image, masque] = await Promise.all([sharp(Buffer.from(corps.image!, 'base64')).metadata(), sharp(Buffer.from(corps.mask, 'base64')).metadata()]);
      if (image.width !== masque.width || image.height !== masque.height)
        erreurs.push(`${modelId}: mask ${masque.width}×${masque.height}, image ${image.width}×${image.height}`);
    }
  }
  for (const appel of bedrock.commandCalls(ConverseCommand)) {
    const requete = appel.args[0].input;
    erreurs.push(...problemes(REQUETE_CONVERSE, requete).map((p) => `Converse: ${p}`));
    const images = (requete.messages ?? []).flatMap((m) => m.content ?? []).flatMap((b) => (b.image ? [b.image] : []));
    if (images.length > CONVERSE.imagesMax) erreurs.push(`Converse: ${images.length} images`);
    for (const im of images) {
      const octets = im.source!.bytes!;
      if (octets.length > CONVERSE.imageOctetsMax) erreurs.push(`Converse image: ${octets.length} bytes`);
      const { width, height, format } = await sharp(Buffer.from(octets)).metadata();
      if (Math.max(width!, height!) > CONVERSE.imageCoteMax) erreurs.push(`Converse image: ${width}×${height}`);
      if (format !== im.format) erreurs.push(`Converse image: says ${im.format}, is ${format}`);
    }
  }
  const rekognitionAppels = [
    ...rek.commandCalls(DetectLabelsCommand).map((c) => ['DetectLabels', REQUETE_DETECT_LABELS, c.args[0].input] as const),
    ...rek.commandCalls(DetectFacesCommand).map((c) => ['DetectFaces', REQUETE_DETECT_FACES, c.args[0].input] as const),
    ...rek.commandCalls(DetectTextCommand).map((c) => ['DetectText', REQUETE_DETECT_TEXT, c.args[0].input] as const),
  ];
  for (const [nom, schema, requete] of rekognitionAppels) {
    erreurs.push(...problemes(schema as v.GenericSchema, requete).map((p) => `${nom}: ${p}`));
    const octets = (requete as { Image: { Bytes: Uint8Array } }).Image.Bytes;
    if (!formatRekognition(octets)) erreurs.push(`${nom}: Image.Bytes is neither JPEG nor PNG`);
    if (octets.length > REKOGNITION.octetsMax) erreurs.push(`${nom}: ${octets.length} bytes`);
  }
  return erreurs;
};

const VALEURS: Record<OutilImage, Record<string, string>[]> = {
  vider: [{ floutage: 'faces and plates' }],
  staging: [{ piece: 'bedroom', style: 'japandi', mention: 'French', floutage: 'faces' }],
  renovation: [
    { zone: 'facade', niveau: 'complete', style: 'classic', floutage: 'plates' },
    { zone: 'interior', niveau: 'refresh', style: 'modern' },
  ],
  saison: [{ floutage: 'none' }],
  ciel: [{}],
};

describe('the Bedrock engine calls AWS as AWS documents it', () => {
  beforeAll(() => {
    repondreRekognition();
    repondreStability();
  });

  // A small photo, a 24 MP one, a portrait and a panorama wider than Stability's 2.5:1.
  const PHOTOS: [number, number][] = [
    [640, 480],
    [6000, 4000],
    [1200, 1800],
    [3000, 900],
  ];

  for (const [largeur, hauteur] of PHOTOS) {
    it(`every image tool on a ${largeur}×${hauteur} photo: Stability bodies, image sizes and Rekognition requests within the documented limits`, async () => {
      const image = await photo(largeur, hauteur);
      const outils = largeur * hauteur > 20e6 ? (['vider', 'ciel'] as const) : (Object.keys(VALEURS) as OutilImage[]);
      for (const outil of outils) {
        for (const valeurs of VALEURS[outil]) {
          repondreRekognition();
          repondreStability();
          await moteur.retoucher({ outil, valeurs, image, travail: `contrat-${outil}` });
          expect(bedrock.commandCalls(InvokeModelCommand).length, outil).toBeGreaterThan(0);
          expect(await verifierAppels(), `${outil} ${JSON.stringify(valeurs)}`).toEqual([]);
        }
      }
    });
  }

  it('annonce: a Converse request within the documented limits, with six photos up to 24 MP, and the documented answer read', async () => {
    repondreStability();
    const images = await Promise.all(
      [
        [6000, 4000],
        [4000, 6000],
        [640, 480],
        [3000, 900],
        [1600, 1200],
        [800, 800],
      ].map(([l, h]) => photo(l!, h!)),
    );
    const { texte } = await moteur.rediger({ valeurs: { lieu: 'Gent', langue: 'French', infos: '3 chambres' }, images, travail: 'contrat-annonce' });
    expect(texte).toContain('Maison à Gent');
    expect(await verifierAppels()).toEqual([]);
    expect(STOP_REASONS).toContain('end_turn');
  });

  it('reads a documented Stability answer, and a filtered one (a 200 with a finish reason) as the content refused', async () => {
    const image = (
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#777' } })
        .jpeg()
        .toBuffer()
    ).toString('base64');
    const corps = { prompt: 'a room', image, seed: 7, output_format: 'jpeg' };
    expect(problemes(CORPS_STABILITY['control-structure'], corps)).toEqual([]);
    bedrock.reset();
    bedrock
      .on(InvokeModelCommand)
      .resolves({ body: new TextEncoder().encode(JSON.stringify({ images: [image], seeds: [7], finish_reasons: [null] })) as never });
    expect((await invoquerStability(client, 'us.stability.stable-image-control-structure-v1:0', corps)).graine).toBe(7);
    bedrock.reset();
    bedrock
      .on(InvokeModelCommand)
      .resolves({ body: new TextEncoder().encode(JSON.stringify({ images: [image], seeds: [7], finish_reasons: ['Filter reason: prompt'] })) as never });
    await expect(invoquerStability(client, 'us.stability.stable-image-control-structure-v1:0', corps)).rejects.toMatchObject({ name: 'contenu_refuse' });
  });

  it('the contract itself refuses what the documentation refuses (so the checks above can fail)', () => {
    const image = 'QUJD';
    expect(problemes(CORPS_STABILITY.inpaint, { prompt: 'x', image, seed: 1, output_format: 'tiff' })).not.toEqual([]);
    expect(problemes(CORPS_STABILITY.inpaint, { prompt: 'x', image, seed: -1 })).not.toEqual([]);
    expect(problemes(CORPS_STABILITY.inpaint, { prompt: 'x'.repeat(10_001), image, seed: 1 })).not.toEqual([]);
    expect(problemes(CORPS_STABILITY['search-replace'], { prompt: 'x', image, seed: 1 })).not.toEqual([]); // search_prompt is required
    expect(problemes(CORPS_STABILITY['search-replace'], { prompt: 'x', image, seed: 1, search_prompt: 'sky', grow_mask: 30 })).not.toEqual([]);
    expect(problemes(CORPS_STABILITY['control-structure'], { prompt: 'x', image, seed: 1, control_strength: 1.2 })).not.toEqual([]);
    expect(problemes(CORPS_STABILITY['control-structure'], { prompt: 'x', image, seed: 1, mask: image })).not.toEqual([]);
    expect(imageStabilityValide(6000, 4000)).toMatch(/pixels/);
    expect(imageStabilityValide(3200, 1000)).toMatch(/aspect ratio/);
    expect(imageStabilityValide(63, 200)).toMatch(/side/);
    expect(imageStabilityValide(3776, 2496)).toBeNull();
    expect(problemes(REQUETE_DETECT_LABELS, { Image: { Bytes: new Uint8Array(REKOGNITION.octetsMax + 1) } })).not.toEqual([]);
    expect(
      problemes(REQUETE_CONVERSE, { modelId: 'm', messages: [{ role: 'user', content: [{ text: 'x' }] }], inferenceConfig: { maxTokens: 0 } }),
    ).not.toEqual([]);
    expect(formatRekognition(new Uint8Array([0x52, 0x49, 0x46, 0x46]))).toBeNull();
  });
});
