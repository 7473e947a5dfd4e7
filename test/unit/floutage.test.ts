/**
 * Blurring faces and plates (the `floutage` setting): the production detector fed recorded Rekognition
 * answers (DetectFaces, DetectLabels, DetectText, in their own shapes), and the blur itself: every box
 * found loses its detail, and not one pixel outside the grown regions changes; `none` calls no detector
 * and changes nothing. The local stand-in (BlazeFace and the colour rules) on drawn street scenes:
 * floutage-local.test.ts, in the `photos` project.
 */
import { DetectFacesCommand, DetectLabelsCommand, DetectTextCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';
import { creerDetecteurPersonnesRekognition, estPlaque, tuiles, versPhoto } from '../../lambdas/moteurs/bedrock/rekognition-personnes';
import { appliquerFloutage, regionAgrandie } from '../../lambdas/moteurs/commun/floutage';
import { definitionManifeste, type OptionsSansCle } from '../../lambdas/moteurs/c2pa/manifeste';
import type { Floutage } from '../../lambdas/core/modele/sorties';
import { natureResultat } from '../../lambdas/moteurs/commun/provenance';
import type { DetecteurPersonnes, RegionPersonnelle } from '../../lambdas/moteurs/commun/personnes';
import type { Pixels } from '../../lambdas/moteurs/commun/pixels';
import { scenePersonnes } from '../support/scenes-personnes';
import { iou } from '../support/boites';

const copie = (p: Pixels): Pixels => ({ ...p, data: Buffer.from(p.data) });

/** Mean absolute difference between horizontal neighbours inside a box: how much detail is left. */
const detail = (p: Pixels, b: Rectangle): number => {
  const [x0, y0, x1, y1] = [Math.ceil(b.x0 * p.largeur), Math.ceil(b.y0 * p.hauteur), Math.floor(b.x1 * p.largeur), Math.floor(b.y1 * p.hauteur)];
  let somme = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0 + 1; x < x1; x++) {
      const [i, j] = [(y * p.largeur + x) * 3, (y * p.largeur + x - 1) * 3];
      for (let k = 0; k < 3; k++) somme += Math.abs(p.data[i + k]! - p.data[j + k]!);
      n += 3;
    }
  }
  return somme / n;
};

/** Pixels that differ, outside every grown region (each region as blurred: its margin included). */
const changesHors = (avant: Pixels, apres: Pixels, regions: readonly RegionPersonnelle[]): number => {
  const zones = regions.map((r) => regionAgrandie(r, avant.largeur, avant.hauteur).pixels);
  let n = 0;
  for (let y = 0; y < avant.hauteur; y++) {
    for (let x = 0; x < avant.largeur; x++) {
      if (zones.some((z) => x >= z.x0 && x < z.x1 && y >= z.y0 && y < z.y1)) continue;
      const i = (y * avant.largeur + x) * 3;
      if (avant.data[i] !== apres.data[i] || avant.data[i + 1] !== apres.data[i + 1] || avant.data[i + 2] !== apres.data[i + 2]) n++;
    }
  }
  return n;
};

describe('the production detector: Rekognition, on recorded answers', () => {
  const rekognition = new RekognitionClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const mock = mockClient(rekognition);
  beforeEach(() => mock.reset());
  const scene = scenePersonnes({ largeur: 1920, hauteur: 1280, graine: 4 });
  const [visage, plaque, voiture] = [scene.visages[0]!, scene.plaques[0]!, scene.voitures[0]!];
  const boite = (r: Rectangle) => ({ Left: r.x0, Top: r.y0, Width: r.x1 - r.x0, Height: r.y1 - r.y0 });
  // What DetectFaces answers for the street: the face, and a weak guess under the floor.
  const FACES = {
    FaceDetails: [
      { BoundingBox: boite(visage), Confidence: 99.7 },
      { BoundingBox: { Left: 0.05, Top: 0.05, Width: 0.02, Height: 0.03 }, Confidence: 31 },
    ],
  };
  // DetectLabels: a car with its box, a scene label without one, a wheel (a part, not a vehicle).
  const LABELS = {
    Labels: [
      { Name: 'Car', Confidence: 98, Instances: [{ BoundingBox: boite(voiture), Confidence: 97 }], Parents: [{ Name: 'Vehicle' }, { Name: 'Transportation' }] },
      {
        Name: 'Wheel',
        Confidence: 90,
        Instances: [{ BoundingBox: { Left: 0.55, Top: 0.85, Width: 0.05, Height: 0.05 }, Confidence: 90 }],
        Parents: [{ Name: 'Machine' }],
      },
      { Name: 'Street', Confidence: 92, Instances: [], Parents: [{ Name: 'Road' }] },
    ],
  };
  // DetectText on the car's crop (boxes relative to that crop): the plate's line, and a word that is not one.
  const crop = (() => {
    const [mx, my] = [0.05 * (voiture.x1 - voiture.x0), 0.05 * (voiture.y1 - voiture.y0)];
    return { x0: voiture.x0 - mx, y0: voiture.y0 - my, x1: voiture.x1 + mx, y1: voiture.y1 + my };
  })();
  const dansCrop = (r: Rectangle) => ({
    Left: (r.x0 - crop.x0) / (crop.x1 - crop.x0),
    Top: (r.y0 - crop.y0) / (crop.y1 - crop.y0),
    Width: (r.x1 - r.x0) / (crop.x1 - crop.x0),
    Height: (r.y1 - r.y0) / (crop.y1 - crop.y0),
  });
  const TEXTES = {
    TextDetections: [
      { DetectedText: 'GX-482-KT', Type: 'LINE' as const, Confidence: 96, Geometry: { BoundingBox: dansCrop(plaque) } },
      { DetectedText: 'GX-482-KT', Type: 'WORD' as const, Confidence: 96, Geometry: { BoundingBox: dansCrop(plaque) } },
      { DetectedText: 'TOYOTA', Type: 'LINE' as const, Confidence: 90, Geometry: { BoundingBox: { Left: 0.4, Top: 0.05, Width: 0.2, Height: 0.04 } } },
    ],
  };

  it('finds the face (confident ones only) and the plate on the car, each in fractions of the photo', async () => {
    mock.on(DetectFacesCommand).resolves(FACES).on(DetectLabelsCommand).resolves(LABELS).on(DetectTextCommand).resolves(TEXTES);
    const trouves = await creerDetecteurPersonnesRekognition(rekognition).detecter(scene.pixels, new Set(['visage', 'plaque']));
    expect(trouves.map((r) => r.genre)).toEqual(['visage', 'plaque']);
    expect(iou(trouves[0]!.boite, visage)).toBeGreaterThan(0.99);
    expect(iou(trouves[1]!.boite, plaque)).toBeGreaterThan(0.95);
    // One DetectText, on the one vehicle; a 1920 px photo is not tiled.
    expect(mock.commandCalls(DetectTextCommand)).toHaveLength(1);
    expect(mock.commandCalls(DetectFacesCommand)).toHaveLength(1);
  });

  it('asks only for what the setting names: faces only calls DetectFaces, plates only the vehicle and text calls', async () => {
    mock.on(DetectFacesCommand).resolves(FACES).on(DetectLabelsCommand).resolves(LABELS).on(DetectTextCommand).resolves(TEXTES);
    const detecteur = creerDetecteurPersonnesRekognition(rekognition);
    await detecteur.detecter(scene.pixels, new Set(['visage']));
    expect([mock.commandCalls(DetectFacesCommand).length, mock.commandCalls(DetectLabelsCommand).length]).toEqual([1, 0]);
    mock.resetHistory();
    await detecteur.detecter(scene.pixels, new Set(['plaque']));
    expect([mock.commandCalls(DetectFacesCommand).length, mock.commandCalls(DetectLabelsCommand).length]).toEqual([0, 1]);
    // No vehicle, no DetectText.
    mock.reset();
    mock.on(DetectLabelsCommand).resolves({ Labels: [] });
    expect(await detecteur.detecter(scene.pixels, new Set(['plaque']))).toEqual([]);
    expect(mock.commandCalls(DetectTextCommand)).toHaveLength(0);
  });

  it("tiles a large photo so that small faces are still found, and maps a tile's boxes back to the photo", () => {
    expect(tuiles(1920, 1280)).toHaveLength(1);
    const t = tuiles(6000, 4000);
    expect(t[0]).toEqual({ gauche: 0, haut: 0, largeur: 6000, hauteur: 4000 });
    expect(t.length).toBe(5);
    for (const tuile of t.slice(1)) expect(Math.max(tuile.largeur, tuile.hauteur)).toBeLessThanOrEqual(3200 + 200);
    expect(
      versPhoto({ Left: 0.5, Top: 0.5, Width: 0.1, Height: 0.1 }, { gauche: 3000, haut: 2000, largeur: 3000, hauteur: 2000 }, { largeur: 6000, hauteur: 4000 }),
    ).toEqual({
      x0: 0.75,
      y0: 0.75,
      x1: 0.8,
      y1: 0.8,
    });
  });

  it('takes as a plate a short line of letters and digits, wider than tall, low on the vehicle', () => {
    const bas = { Left: 0.4, Top: 0.7, Width: 0.2, Height: 0.05 };
    expect(estPlaque('GX-482-KT', bas, { largeur: 600, hauteur: 400 })).toBe(true);
    expect(estPlaque('GX-482-KT', { ...bas, Top: 0.05 }, { largeur: 600, hauteur: 400 })).toBe(false);
    expect(estPlaque('SUPERMARCHE DU CENTRE', bas, { largeur: 600, hauteur: 400 })).toBe(false);
    expect(estPlaque('8', bas, { largeur: 600, hauteur: 400 })).toBe(false);
  });
});

describe('the blur', () => {
  it('takes the detail out of every box found, and changes not one pixel outside the grown regions', async () => {
    const scene = scenePersonnes({ largeur: 1280, hauteur: 853, graine: 2 });
    const avant = copie(scene.pixels);
    // The recorded boxes, as a detector would give them.
    const regions: RegionPersonnelle[] = [
      { genre: 'visage', boite: scene.visages[0]!, confiance: 0.99 },
      { genre: 'plaque', boite: scene.plaques[0]!, confiance: 0.96 },
    ];
    const detecteur: DetecteurPersonnes = { nom: 'enregistre', detecter: async () => regions };
    const { pixels, floutage } = await appliquerFloutage(scene.pixels, 'faces and plates', detecteur);
    expect(floutage).toEqual({ reglage: 'faces and plates', visages: 1, plaques: 1 });
    for (const r of regions) expect(detail(pixels, r.boite) / detail(avant, r.boite), r.genre).toBeLessThan(0.15);
    expect(changesHors(avant, pixels, regions)).toBe(0);
  });

  it('blurs only the kinds asked: faces leaves the plate as it was', async () => {
    const scene = scenePersonnes({ largeur: 960, hauteur: 640, graine: 3 });
    const avant = copie(scene.pixels);
    const regions: RegionPersonnelle[] = [
      { genre: 'visage', boite: scene.visages[0]!, confiance: 0.99 },
      { genre: 'plaque', boite: scene.plaques[0]!, confiance: 0.96 },
    ];
    const { floutage } = await appliquerFloutage(scene.pixels, 'faces', { nom: 'enregistre', detecter: async () => regions });
    expect(floutage).toMatchObject({ visages: 1, plaques: 0 });
    expect(changesHors(avant, scene.pixels, [regions[0]!])).toBe(0);
  });

  it('looks at the photo before the edit too: a plate the edit recoloured past the detector is still blurred', async () => {
    const avant = scenePersonnes({ largeur: 960, hauteur: 640, graine: 8 });
    const apres = copie(avant.pixels);
    const plaque: RegionPersonnelle = { genre: 'plaque', boite: avant.plaques[0]!, confiance: 0.9 };
    // Recorded answers: the plate is found in the photo, not in the edited result.
    const detecteur: DetecteurPersonnes = { nom: 'enregistre', detecter: async (p) => (p === avant.pixels ? [plaque] : []) };
    const { floutage } = await appliquerFloutage(apres, 'plates', detecteur, avant.pixels);
    expect(floutage).toMatchObject({ plaques: 1 });
    expect(detail(apres, plaque.boite) / detail(avant.pixels, plaque.boite)).toBeLessThan(0.15);
  });

  it('none (the default) calls no detector and changes nothing', async () => {
    const scene = scenePersonnes({ graine: 5 });
    const avant = Buffer.from(scene.pixels.data);
    const jamais: DetecteurPersonnes = { nom: 'jamais', detecter: () => Promise.reject(new Error('called')) };
    for (const reglage of ['none', undefined]) {
      expect(await appliquerFloutage(scene.pixels, reglage, jamais)).toEqual({ pixels: scene.pixels, floutage: null });
    }
    expect(scene.pixels.data.equals(avant)).toBe(true);
  });

  it('a blur asked for that finds nothing says 0 and changes nothing; the manifest then claims no blur', async () => {
    const scene = scenePersonnes({ graine: 5 });
    const avant = Buffer.from(scene.pixels.data);
    const rien: DetecteurPersonnes = { nom: 'rien', detecter: async () => [] };
    const { pixels, floutage } = await appliquerFloutage(scene.pixels, 'faces and plates', rien);
    expect(floutage).toEqual({ reglage: 'faces and plates', visages: 0, plaques: 0 });
    expect(pixels.data.equals(avant)).toBe(true);
    const actions = (floutage: Floutage) => {
      const manifeste = definitionManifeste('jpeg', { ...OPTIONS_MANIFESTE, floutage }, '2026-01-01T00:00:00Z') as {
        assertions: { label: string; data: { actions: { action: string; description?: string }[] } }[];
      };
      return manifeste.assertions.find((a) => a.label === 'c2pa.actions.v2')!.data.actions;
    };
    expect(actions(floutage!).map((a) => a.action)).not.toContain('c2pa.filtered');
    // What was blurred is said, kind by kind, in the singular or the plural, and nothing else.
    const dit = (visages: number, plaques: number) =>
      actions({ reglage: 'faces and plates', visages, plaques }).find((a) => a.action === 'c2pa.filtered')?.description;
    expect(dit(2, 0)).toMatch(/^2 faces found in the image blurred/);
    expect(dit(1, 1)).toMatch(/^1 face and 1 number plate found/);
    expect(dit(0, 3)).toMatch(/^3 number plates found/);
  });
});

const OPTIONS_MANIFESTE: OptionsSansCle = {
  outil: 'ciel',
  moteur: 'local',
  nature: natureResultat('ciel', true),
  entree: { hash: Buffer.alloc(32), format: 'image/jpeg' },
  chaine: [],
};
