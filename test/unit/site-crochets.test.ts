/**
 * The studio's grouping of a fusion's photos into brackets (site/src/studio/crochets.ts), as a photographer shoots
 * them: series back to back, photos without EXIF, a frame left alone, more frames than one job takes. Pure: the
 * EXIF is given here as exif.ts would read it.
 */
import { describe, expect, it } from 'vitest';
import {
  classer,
  couper,
  depuisExif,
  ECART_MAX_MS,
  etendue,
  expositionsIdentiques,
  grouper,
  libellesExposition,
  lirePrise,
  reference,
  seriesDans,
  TAGS_EXIF,
  type Exposition,
  type PhotoExposee,
} from '../../site/src/studio/crochets';

const DEBUT = Date.UTC(2025, 4, 12, 10, 0, 0);
/** A photo named `id` taken `secondes` after DEBUT, with what else its EXIF says. */
const photo = (id: string, secondes: number | undefined, e: Exposition = {}): PhotoExposee => ({
  id,
  exposition: { ...(secondes === undefined ? {} : { prise: DEBUT + secondes * 1000 }), ...e },
});
/** A camera's automatic bracketing: frames 0.3 s apart, the compensation of each given, the time following it. */
const serieAuto = (prefixe: string, debut: number, corrections: number[]): PhotoExposee[] =>
  corrections.map((c, i) => photo(`${prefixe}${i + 1}`, debut + 0.3 * i, { correction: c, duree: (1 / 60) * 2 ** c, ouverture: 8, iso: 100 }));

describe('grouping photos into brackets', () => {
  it('separates a 3-shot and a 5-shot series shot back to back: the compensation starts again at 0', () => {
    const photos = [...serieAuto('a', 0, [0, -2, 2]), ...serieAuto('b', 1.2, [0, -1, 1, -2, 2])];
    expect(grouper(photos)).toEqual({
      crochets: [
        ['a1', 'a2', 'a3'],
        ['b1', 'b2', 'b3', 'b4', 'b5'],
      ],
      sansDate: 0,
      coupees: [],
    });
  });

  it('separates them by time too, and sorts by capture time whatever the drop order', () => {
    const photos = [...serieAuto('b', 40, [0, -1, 1, -2, 2]), ...serieAuto('a', 0, [0, -2, 2])];
    expect(grouper(photos).crochets).toEqual([
      ['a1', 'a2', 'a3'],
      ['b1', 'b2', 'b3', 'b4', 'b5'],
    ]);
  });

  it('separates two series bracketed by hand in manual mode (no compensation) by their exposure time', () => {
    const manuel = (id: string, secondes: number, duree: number) => photo(id, secondes, { correction: 0, duree, ouverture: 8, iso: 100 });
    const photos = [
      manuel('a1', 0, 1 / 60),
      manuel('a2', 2, 1 / 250),
      manuel('a3', 4, 1 / 15),
      manuel('b1', 6, 1 / 60),
      manuel('b2', 8, 1 / 250),
      manuel('b3', 10, 1 / 15),
    ];
    expect(grouper(photos).crochets).toEqual([
      ['a1', 'a2', 'a3'],
      ['b1', 'b2', 'b3'],
    ]);
  });

  it('keeps a long exposure in its bracket: the gap counts from the end of the previous frame', () => {
    // +2 EV at 4 s: the next frame starts 9 s later (noise reduction's dark frame), still the same bracket.
    const photos = [
      photo('a1', 0, { correction: 2, duree: 4 }),
      photo('a2', 9, { correction: 0, duree: 1 }),
      photo('a3', 10.5, { correction: -2, duree: 0.25 }),
    ];
    expect(grouper(photos).crochets).toEqual([['a1', 'a2', 'a3']]);
    // The same photos with a pause past the limit between them.
    const pause = ECART_MAX_MS / 1000 + 1;
    expect(grouper([photo('a1', 0, { correction: 0 }), photo('b1', pause, { correction: 2 })]).crochets).toEqual([['a1'], ['b1']]);
  });

  it('puts photos without EXIF together in drop order, and says how many', () => {
    const photos = [photo('c', undefined), photo('a', undefined), photo('b', undefined)];
    expect(grouper(photos)).toEqual({ crochets: [['c', 'a', 'b']], sansDate: 3, coupees: [] });
  });

  it('puts the photos without a capture time after the series of those with one', () => {
    const photos = [photo('x', undefined), ...serieAuto('a', 0, [0, -2, 2])];
    expect(grouper(photos)).toEqual({ crochets: [['a1', 'a2', 'a3'], ['x']], sansDate: 1, coupees: [] });
  });

  it('leaves a single leftover photo alone, which a launch does not start', () => {
    const photos = [...serieAuto('a', 0, [0, -2, 2]), photo('seule', 60, { correction: 0 })];
    const { crochets } = grouper(photos);
    expect(crochets).toEqual([['a1', 'a2', 'a3'], ['seule']]);
    expect(classer(crochets)).toEqual({ lancables: [['a1', 'a2', 'a3']], seules: [['seule']], tropGrands: [] });
  });

  it('cuts a series over 9 photos into equal brackets, and says so', () => {
    // A 12-frame bracket at a third of a stop: every exposure differs, one series to the rule.
    const photos = serieAuto(
      'a',
      0,
      Array.from({ length: 12 }, (_, i) => (i - 6) / 3),
    );
    const { crochets, coupees } = grouper(photos);
    expect(crochets.map((c) => c.length)).toEqual([6, 6]);
    expect(crochets.flat()).toEqual(photos.map((p) => p.id));
    expect(coupees).toEqual([{ photos: 12, crochets: 2 }]);
    // Two series of five without exposure data, back to back: 5 + 5, as they were shot.
    const sansExposition = Array.from({ length: 10 }, (_, i) => photo(`p${i}`, i * 0.5));
    expect(grouper(sansExposition).crochets.map((c) => c.length)).toEqual([5, 5]);
  });

  it('says a bracket made over 9 by hand stops the launch', () => {
    const grand = Array.from({ length: 10 }, (_, i) => `p${i}`);
    expect(classer([grand, ['a', 'b']])).toEqual({ lancables: [['a', 'b']], seules: [], tropGrands: [grand] });
  });

  it('cuts in order, sizes differing by one at most', () => {
    expect(couper([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 9)).toEqual([
      [1, 2, 3, 4, 5, 6],
      [7, 8, 9, 10, 11],
    ]);
    expect(couper([1, 2, 3], 9)).toEqual([[1, 2, 3]]);
    expect(
      couper(
        Array.from({ length: 19 }, (_, i) => i),
        9,
      ).map((c) => c.length),
    ).toEqual([7, 6, 6]);
  });
});

describe('what the page takes from a bracket', () => {
  it('compares the result with the metered frame, or the middle exposure', () => {
    expect(reference(serieAuto('a', 0, [-2, 0, 2]))?.id).toBe('a2');
    expect(reference(serieAuto('a', 0, [0, -2, 2]))?.id).toBe('a1');
    const manuel = [photo('m1', 0, { duree: 1 / 15 }), photo('m2', 1, { duree: 1 / 250 }), photo('m3', 2, { duree: 1 / 60 })];
    expect(reference(manuel)?.id).toBe('m3');
    expect(reference([photo('x', undefined), photo('y', undefined)])?.id).toBe('x');
  });

  it('tells a bracket arranged by hand that mixes two series', () => {
    const [a1, a2, a3] = serieAuto('a', 0, [0, -2, 2]);
    const [b1, b2, b3] = serieAuto('b', 40, [0, -2, 2]);
    expect(seriesDans([a1!, a2!, a3!])).toBe(1);
    expect(seriesDans([a3!, b1!, b2!, b3!])).toBe(2);
    // Photos without a capture time tell nothing either way.
    expect(seriesDans([a1!, a2!, photo('x', undefined)])).toBe(1);
  });

  it('warns of a bracket whose EXIF says one exposure', () => {
    expect(expositionsIdentiques([photo('a', 0, { correction: 0, duree: 0.01 }), photo('b', 1, { correction: 0, duree: 0.01 })])).toBe(true);
    expect(expositionsIdentiques(serieAuto('a', 0, [0, -2, 2]))).toBe(false);
    expect(expositionsIdentiques([photo('x', undefined), photo('y', undefined)])).toBe(false);
  });

  it('words an exposure as a photographer reads it, in French and English', () => {
    expect(libellesExposition({ correction: -2, duree: 1 / 250 }, 'fr')).toEqual(['\u22122\u00a0EV', '1/250\u00a0s']);
    expect(libellesExposition({ correction: 2 / 3, duree: 0.5 }, 'fr')).toEqual(['+0,7\u00a0EV', '0,5\u00a0s']);
    expect(libellesExposition({ correction: 0, duree: 2 }, 'en')).toEqual(['0\u00a0EV', '2\u00a0s']);
    expect(libellesExposition({}, 'fr')).toEqual([]);
  });
});

describe('reading the EXIF tags', () => {
  it('reads the capture time to the fraction of a second', () => {
    expect(lirePrise('2025:05:12 10:00:03', '25')).toBe(Date.UTC(2025, 4, 12, 10, 0, 3) + 250);
    expect(lirePrise('2025:05:12 10:00:03')).toBe(Date.UTC(2025, 4, 12, 10, 0, 3));
    expect(lirePrise('0000:00:00 00:00:00')).toBeUndefined();
    expect(lirePrise('    ')).toBeUndefined();
    expect(lirePrise(undefined)).toBeUndefined();
  });

  it('keeps what is a number, and leaves out the rest', () => {
    const tags = {
      [TAGS_EXIF.DateTimeOriginal]: '2025:05:12 10:00:03',
      [TAGS_EXIF.ExposureBiasValue]: -2,
      [TAGS_EXIF.ExposureTime]: 0.004,
      [TAGS_EXIF.FNumber]: 8,
      [TAGS_EXIF.ISO]: new Uint16Array([100, 0]),
    };
    expect(depuisExif(tags)).toEqual({ prise: Date.UTC(2025, 4, 12, 10, 0, 3), correction: -2, duree: 0.004, ouverture: 8, iso: 100 });
    expect(depuisExif({ [TAGS_EXIF.ExposureTime]: 0, [TAGS_EXIF.FNumber]: 'f/8' })).toEqual({});
    expect(depuisExif(undefined)).toEqual({});
  });
});

describe('a bracket’s range', () => {
  it('goes from the darkest frame to the brightest', () => {
    expect(etendue(serieAuto('a', 0, [0, -2, 2]), 'fr')).toEqual(['\u22122\u00a0EV', '+2\u00a0EV']);
    expect(etendue([photo('m1', 0, { duree: 1 / 15 }), photo('m2', 1, { duree: 1 / 250 })], 'en')).toEqual(['1/250\u00a0s', '1/15\u00a0s']);
    expect(etendue([photo('x', undefined), photo('y', undefined)], 'fr')).toBeNull();
  });
});

/**
 * What the test uses of fusion.ts, typed here: it compiles against the DOM and the site's declarations (site/tsconfig.json),
 * not with the server's, so it is loaded by a path TypeScript does not follow (as test/unit/site-erreurs.test.ts does).
 */
interface PhotoDuFormulaire {
  id: string;
  fichier: File;
  exposition: Exposition;
}
interface ModuleFusion {
  demandesFusion: (
    outil: object,
    crochets: { id: string; photos: PhotoDuFormulaire[] }[],
  ) => { cle: string; outil: { id: string }; valeurs: object; photos: PhotoDuFormulaire[]; cout: number; avant?: PhotoDuFormulaire; suite?: true }[];
}
const MODULE_FUSION = 'studio/fusion';

describe('a fusion’s launch (site/src/studio/fusion.ts)', () => {
  it('starts one job per bracket of 2 to 9 photos, each compared with its metered frame, and leaves a photo alone out', async () => {
    const { demandesFusion } = (await import(/* @vite-ignore */ `../../site/src/${MODULE_FUSION}.ts`)) as ModuleFusion;
    const outil = { id: 'fusion', nom: 'Fusion', resume: '', cout: 2, images: { min: 2, max: 9, par_lot: false }, champs: [] };
    /** A photo of the form as the page holds it: its EXIF read. */
    const choisie = (p: PhotoExposee) => ({
      id: p.id,
      fichier: new File([], `${p.id}.jpg`),
      type: 'image/jpeg' as const,
      apercu: '',
      exposition: p.exposition,
    });
    const crochet = (id: string, photos: PhotoExposee[]) => ({ id, photos: photos.map(choisie) });
    const demandes = demandesFusion(outil, [
      crochet('a', serieAuto('a', 0, [-2, 0, 2])),
      crochet('seule', [photo('seule', 30, { correction: 0 })]),
      crochet('b', serieAuto('b', 60, [0, -1, 1, -2, 2])),
    ]);
    expect(demandes.map((d) => d.photos.map((p) => p.id))).toEqual([
      ['a1', 'a2', 'a3'],
      ['b1', 'b2', 'b3', 'b4', 'b5'],
    ]);
    expect(demandes.map((d) => [d.outil.id, d.cout, d.valeurs, d.avant?.id, d.suite])).toEqual([
      ['fusion', 2, {}, 'a2', undefined],
      ['fusion', 2, {}, 'b1', true],
    ]);
    // Each its own Idempotency-Key: two jobs, charged once each however often retried.
    expect(new Set(demandes.map((d) => d.cle)).size).toBe(2);
  });
});
