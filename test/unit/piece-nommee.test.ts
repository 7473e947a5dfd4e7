/**
 * staging when the request names the room (`piece`), on the real photographs of test/photos (their
 * truth in verite.json, their sources in SOURCES.md): the agent who took the photo knows the room,
 * so a detector's contrary guess (a washbasin, white walls read as an overcast sky) does not refuse it,
 * on the photo as sent nor once vider has emptied it (its bed or sofa, which told an interior, gone);
 * strong evidence still does (a street, a facade), and the refusal says what was seen and where.
 * The rule itself, on drawn boxes: test/unit/zones.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { preuveDInterieur } from '../../lambdas/moteurs/commun/detection';
import { graineDe } from '../../lambdas/moteurs/commun/moteur';
import { decoder, depuisPixels } from '../../lambdas/moteurs/commun/pixels';
import { zoneStaging, zoneVider } from '../../lambdas/moteurs/commun/zones';
import { detecteurLocal, indicesLocaux } from '../../lambdas/moteurs/local/detecteur-local';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { remplirVider } from '../../lambdas/moteurs/local/vider';
import { photo, verite } from '../support/verite';
import { issue } from '../support/refus';

const moteur = creerMoteurLocal();

/** The rooms of the set, by the kind their name says, and the kinds an agent could name for each. */
const PIECES: Readonly<Record<string, readonly string[]>> = {
  chambre: ['bedroom', "children's bedroom"],
  cuisine: ['kitchen'],
  'cuisine-sejour': ['kitchen', 'living room'],
  sejour: ['living room'],
  // An empty hall: whatever room the agent says it is.
  'piece-vide': ['living room', 'bedroom', 'home office'],
};
const PHOTOS = Object.keys(verite()).flatMap((nom) => (PIECES[nom.split('_')[0]!] ?? []).map((piece) => [nom, piece] as const));

/** A refusal that says the photo is not the room named: outside, or a bathroom. */
const CONFUSION = /taken outside|bathroom/;

describe('staging with the room named, on real rooms of that kind', () => {
  it('has rooms of every kind the set holds', () => {
    expect(new Set(PHOTOS.map(([, piece]) => piece))).toEqual(new Set(['bedroom', "children's bedroom", 'kitchen', 'living room', 'home office']));
  });

  it.each(PHOTOS)('%s as a %s: never refused as outside or as a bathroom', async (nom, piece) => {
    // A furnished room may still be refused as furnished, or for want of free floor: those are not the room's kind.
    expect(await issue(moteur.retoucher({ outil: 'staging', valeurs: { piece }, image: photo(nom), travail: 't' }))).not.toMatch(CONFUSION);
  });

  it('emptied by vider, then staged as the room it is: never refused as outside or as a bathroom', async () => {
    // The preview refuses every real room's fill (docs/engines.md, "vider on real photographs"), but an agent may
    // empty a room elsewhere and send it: its fill, as vider made it before judging it, stands for that photo.
    const vides: string[] = [];
    for (const nom of new Set(PHOTOS.map(([nom]) => nom))) {
      const { pixels } = await decoder(photo(nom));
      const zone = await zoneVider(pixels, await detecteurLocal.detecter(pixels)).catch(() => null);
      if (!zone) continue; // nothing to remove
      const { resultat } = await remplirVider(pixels, zone, graineDe('vider-reel'));
      const vide = await depuisPixels({ ...pixels, data: resultat })
        .png()
        .toBuffer();
      vides.push(nom);
      for (const [, piece] of PHOTOS.filter(([n]) => n === nom))
        expect(await issue(moteur.retoucher({ outil: 'staging', valeurs: { piece }, image: vide, travail: 't' })), `${nom} as a ${piece}`).not.toMatch(
          CONFUSION,
        );
    }
    // Measured: the two bedrooms, two kitchens, the kitchen-living room and the three living rooms have furniture to remove.
    expect(vides.length).toBeGreaterThanOrEqual(6);
  });

  it.each(PHOTOS)('%s as a %s, as if vider had taken every piece of furniture: never refused as outside or as a bathroom', async (nom, piece) => {
    // What an emptied room leaves the detectors: the fixed elements only (vider's fill aside: the test above).
    const { pixels } = await decoder(photo(nom));
    const [objets, indices] = [await detecteurLocal.detecter(pixels), await indicesLocaux(pixels)];
    const fixes = (liste: typeof objets) => liste.filter((o) => o.nature === 'fixe');
    expect(await issue(zoneStaging(pixels, fixes(objets), fixes(indices), piece))).not.toMatch(CONFUSION);
  });

  it("a kitchen's white wall the sky rule takes for an overcast sky: outside when no room is named, a kitchen when the agent says so", async () => {
    const { pixels } = await decoder(photo('cuisine_coco401416.jpg'));
    const indices = await indicesLocaux(pixels);
    // Nothing the model sees here tells an interior: the case the named room decides.
    expect(preuveDInterieur(indices)).toBeUndefined();
    expect(await issue(zoneStaging(pixels, [], indices))).toMatch(/taken outside \(the sky is in view/);
    expect(await issue(zoneStaging(pixels, [], indices, 'kitchen'))).not.toMatch(CONFUSION);
  });
});

describe('staging with a room named on a street or a facade: still refused, in plain words', () => {
  it.each([
    // The sky of an overcast court, blue minus red 28: a daylight sky.
    ['facade-ciel-blanc_polyhaven-cambridge-a.jpg', /^This photo was taken outside \(the sky is in view at the top, \d+ % of the photo\)/],
    ['facade-ciel-bleu_polyhaven-palermo.jpg', /^This photo was taken outside \(a car found, on the right\)/],
    // A square at night, no sky: a car says it.
    ['facade-nuit_polyhaven-hansaplatz.jpg', /^This photo was taken outside \(a car found, on the right\)/],
    ['rue-bus_coco423617.jpg', /^This photo was taken outside \(a car found, on the left\)/],
    ['voiture-plaque_coco234748.jpg', /^This photo was taken outside \(a truck found, on the left\)/],
  ])('%s as a bedroom: sol_introuvable, saying what was seen and where', async (nom, message) => {
    await expect(moteur.retoucher({ outil: 'staging', valeurs: { piece: 'bedroom' }, image: photo(nom), travail: 't' })).rejects.toMatchObject({
      name: 'sol_introuvable',
      message: expect.stringMatching(message),
    });
  });
});
