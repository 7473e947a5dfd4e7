/**
 * Issue 28, point 4: Rekognition promises instance boxes only "for common object labels such as people,
 * cars, furniture, apparel or pets", so production must not depend on boxes for windows and doors. Here
 * DetectLabels answers as its API reference shows (Name, Confidence, Instances, Parents, Aliases,
 * Categories), with Window and Door labels that carry no boxes: the windows the edge finder
 * (commun/fenetres.ts) sees are then the fixed elements, vider's mask leaves them out, the structure check
 * compares them, and the result keeps their pixels.
 */
import { BedrockRuntimeClient, InvokeModelCommand, type InvokeModelCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { DetectLabelsCommand, RekognitionClient, type DetectLabelsCommandOutput } from '@aws-sdk/client-rekognition';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { configurationBedrock } from '../../lambdas/moteurs/bedrock/configuration';
import { creerMoteurBedrock } from '../../lambdas/moteurs/bedrock/index';
import { creerDetecteurRekognition, objetsDeLabels } from '../../lambdas/moteurs/bedrock/rekognition';
import { creerDetecteurPersonnesRekognition } from '../../lambdas/moteurs/bedrock/rekognition-personnes';
import { regionStructure } from '../../lambdas/moteurs/commun/controle';
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';
import { decoder, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import { zoneVider } from '../../lambdas/moteurs/commun/zones';
import { iou } from '../support/boites';
import { apparier, photo, rectangle, verite } from '../support/verite';

const rekognition = new RekognitionClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const rek = mockClient(rekognition);
const client = new BedrockRuntimeClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const bedrock = mockClient(client);
const detecteur = creerDetecteurRekognition(rekognition);

const categorie = (Name: string) => [{ Name }];

/** A square at dusk (test/photos): the building, its windows and a door named, none of them boxed. */
const PLACE_AU_CREPUSCULE: DetectLabelsCommandOutput = {
  $metadata: {},
  Labels: [
    { Name: 'Architecture', Confidence: 99.9, Instances: [], Parents: [], Aliases: [], Categories: categorie('Buildings and Architecture') },
    {
      Name: 'Building',
      Confidence: 99.9,
      Instances: [],
      Parents: [{ Name: 'Architecture' }],
      Aliases: [],
      Categories: categorie('Buildings and Architecture'),
    },
    { Name: 'Window', Confidence: 97.4, Instances: [], Parents: [], Aliases: [], Categories: categorie('Home and Indoors') },
    { Name: 'Door', Confidence: 71.2, Instances: [], Parents: [], Aliases: [], Categories: categorie('Home and Indoors') },
    { Name: 'Outdoors', Confidence: 99.5, Instances: [], Parents: [], Aliases: [], Categories: categorie('Nature and Outdoors') },
    { Name: 'City', Confidence: 98.1, Instances: [], Parents: [], Aliases: [{ Name: 'Town' }], Categories: categorie('Buildings and Architecture') },
    {
      Name: 'Bench',
      Confidence: 88.5,
      Instances: [{ BoundingBox: { Width: 0.08, Height: 0.05, Left: 0.55, Top: 0.73 }, Confidence: 88.5 }],
      Parents: [{ Name: 'Furniture' }],
      Aliases: [],
      Categories: categorie('Furniture and Furnishings'),
    },
  ],
  LabelModelVersion: '3.0',
};

/** A room: the window named without a box, the plant standing before it boxed. */
const FENETRE: Rectangle = { x0: 0.35, y0: 0.15, x1: 0.65, y1: 0.5 };
const PLANTE: Rectangle = { x0: 0.25, y0: 0.3, x1: 0.45, y1: 0.95 };
const SALON: DetectLabelsCommandOutput = {
  $metadata: {},
  Labels: [
    { Name: 'Indoors', Confidence: 99.1, Instances: [], Parents: [], Aliases: [], Categories: categorie('Home and Indoors') },
    { Name: 'Window', Confidence: 95.8, Instances: [], Parents: [], Aliases: [], Categories: categorie('Home and Indoors') },
    {
      Name: 'Potted Plant',
      Confidence: 93.4,
      Instances: [{ BoundingBox: { Width: PLANTE.x1 - PLANTE.x0, Height: PLANTE.y1 - PLANTE.y0, Left: PLANTE.x0, Top: PLANTE.y0 }, Confidence: 93.4 }],
      Parents: [{ Name: 'Plant' }],
      Aliases: [{ Name: 'Houseplant' }],
      Categories: categorie('Plants and Flowers'),
    },
  ],
  LabelModelVersion: '3.0',
};

/** The room as a lossless PNG: a grainy wall, a bright window, a floor, a plant before the window. */
const salon = async (): Promise<{ png: Buffer; pixels: Pixels }> => {
  const [l, h] = [800, 600];
  const data = Buffer.alloc(l * h * 3);
  const dans = (r: Rectangle, x: number, y: number) => x >= r.x0 * l && x < r.x1 * l && y >= r.y0 * h && y < r.y1 * h;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < l; x++) {
      const grain = ((x * 7919 + y * 104729) % 13) - 6;
      let rgb = y >= 0.7 * h ? [120 + grain, 85 + grain, 55 + grain] : [215 + grain, 190 + grain, 150 + grain];
      if (dans(FENETRE, x, y)) rgb = [242 + (grain >> 1), 246 + (grain >> 1), 250 + (grain >> 1)];
      // The plant: foliage beside the window's lower corner, a stem, a pot on the floor.
      const [cx, cy] = [(x / l - 0.3) / 0.05, (y / h - 0.62) / 0.18];
      if (cx * cx + cy * cy <= 1 || (Math.abs(x / l - 0.3) < 0.006 && y / h > 0.62 && y / h < 0.86)) rgb = [40 + grain, 110 + grain, 45 + grain];
      if (y / h >= 0.85 && y / h < 0.94 && Math.abs(x / l - 0.3) < 0.04) rgb = [150 + grain, 70 + grain, 40 + grain];
      data.set(rgb, (y * l + x) * 3);
    }
  const pixels = { data, largeur: l, hauteur: h };
  return {
    png: await sharp(data, { raw: { width: l, height: h, channels: 3 } })
      .png()
      .toBuffer(),
    pixels,
  };
};

const masqueEn = (masque: Uint8Array | Buffer, { largeur, hauteur }: Pixels, x: number, y: number) =>
  masque[Math.floor(y * hauteur) * largeur + Math.floor(x * largeur)]!;

describe('Rekognition without boxes for windows and doors (issue 28, point 4)', () => {
  beforeEach(() => {
    rek.reset();
    bedrock.reset();
  });

  it("a facade's windows named without boxes: the finder's boxes are its fixed elements, and the structure check compares them", async () => {
    const nom = 'facade-crepuscule_polyhaven-vignaioli-b.jpg';
    rek.on(DetectLabelsCommand).resolves(PLACE_AU_CREPUSCULE);
    const { pixels } = await decoder(photo(nom));
    // Rekognition's own boxes hold no fixed element: without the finder nothing would protect the windows.
    expect(objetsDeLabels(PLACE_AU_CREPUSCULE.Labels!).filter((o) => o.nature === 'fixe')).toEqual([]);
    const objets = await detecteur.detecter(pixels);
    const fixes = objets.filter((o) => o.nature === 'fixe');
    const vraies = verite()
      [nom]!.objets.filter((o) => o.nom === 'Window')
      .map((o) => rectangle(o.boite));
    expect(apparier(fixes, vraies).trouves).toBeGreaterThanOrEqual(8);
    // The bench Rekognition boxed is still there, as it said it.
    expect(objets.filter((o) => o.nature === 'meuble').map((o) => o.nom)).toEqual(['Bench']);
    const region = await regionStructure('vider', pixels, objets, null);
    expect(region).not.toBeNull();
    for (const f of fixes) expect(masqueEn(region!, pixels, (f.boite.x0 + f.boite.x1) / 2, (f.boite.y0 + f.boite.y1) / 2)).toBeGreaterThan(0);
  });

  it("a room's window named without a box: vider's mask leaves it out, and the result keeps its pixels", async () => {
    rek.on(DetectLabelsCommand).resolves(SALON);
    const { png, pixels } = await salon();
    const objets = await detecteur.detecter(pixels);
    const fenetres = objets.filter((o) => o.nom === 'Window');
    expect(fenetres).toHaveLength(1);
    expect(iou(fenetres[0]!.boite, FENETRE)).toBeGreaterThan(0.8);

    // Where the plant's box crosses the window: repainted with Rekognition's boxes alone, kept with the finder's.
    const [x, y] = [0.4, 0.4];
    expect(masqueEn((await zoneVider(pixels, objetsDeLabels(SALON.Labels!))).masque, pixels, x, y)).toBe(255);
    const zone = await zoneVider(pixels, objets);
    expect(masqueEn(zone.masque, pixels, x, y)).toBe(0);
    expect(masqueEn(zone.masque, pixels, 0.3, 0.8)).toBe(255);

    // The whole engine, the model painting everything red: the window comes back as it was.
    bedrock.on(InvokeModelCommand).callsFake(async (input: { body: string }) => {
      const corps = JSON.parse(input.body) as { image: string; seed: number };
      const { width, height } = await sharp(Buffer.from(corps.image, 'base64')).metadata();
      const rouge = await sharp({ create: { width: width!, height: height!, channels: 3, background: '#e00000' } })
        .png()
        .toBuffer();
      const reponse = JSON.stringify({ images: [rouge.toString('base64')], seeds: [corps.seed], finish_reasons: [null] });
      return { body: new TextEncoder().encode(reponse) as unknown as InvokeModelCommandOutput['body'], contentType: 'application/json' };
    });
    const moteur = creerMoteurBedrock({
      client,
      configuration: configurationBedrock({}),
      detecteur,
      personnes: creerDetecteurPersonnesRekognition(rekognition),
    });
    const resultat = await moteur.retoucher({ outil: 'vider', valeurs: {}, image: png, travail: 'fenetre-sans-boite' });
    const apres = (await decoder(resultat.image)).pixels;
    let differents = 0;
    for (let py = Math.ceil(FENETRE.y0 * 600); py < FENETRE.y1 * 600; py++)
      for (let px = Math.ceil(FENETRE.x0 * 800); px < FENETRE.x1 * 800; px++)
        for (let c = 0; c < 3; c++) if (apres.data[(py * 800 + px) * 3 + c] !== pixels.data[(py * 800 + px) * 3 + c]) differents++;
    expect(differents).toBe(0);
    // The plant below the window was repainted.
    const p = (Math.floor(0.8 * 600) * 800 + Math.floor(0.3 * 800)) * 3;
    expect(apres.data[p]!).toBeGreaterThan(150);
  });
});
