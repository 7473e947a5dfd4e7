/**
 * The worker thread of the full-size passes (lambdas/moteurs/commun/parallele.ts): the rows it computes
 * are the rows this thread would have, the work is really shared, what the worker cannot write into is
 * refused before anything is sent, its errors come back as errors, and an idle worker does not keep a
 * process alive. Real kernels of the engines (the light's, the alignment's), run from source as tsx runs
 * them; test/cdk/bundles.test.ts runs them from a bundle.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ALIGNEMENT } from '../../lambdas/moteurs/commun/fusion/index';
import { plan, type Plan } from '../../lambdas/moteurs/commun/fusion/plan';
import { aCote, bandesDuTravailleur, parRangees, repartir, tache } from '../../lambdas/moteurs/commun/parallele';
import { LUMIERE } from '../../lambdas/moteurs/commun/redressement';

const executer = promisify(execFile);

/** A photo-like 8-bit image: gradients and a pattern, so that every table entry and band differs. */
const image = (l: number, h: number): Uint8Array => {
  const d = new Uint8Array(new SharedArrayBuffer(l * h * 3));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const i = (y * l + x) * 3;
      [d[i], d[i + 1], d[i + 2]] = [(x * 7 + y) & 255, (x ^ y) & 255, (y * 3 + (x >> 2)) & 255];
    }
  }
  return d;
};

/** Tables of a warm correction with a lift (the shape `appliquerLumiere` builds). */
const tables = (): [Uint8Array, Uint8Array, Uint8Array] =>
  [0.95, 1, 1.06].map((g) => Uint8Array.from({ length: 65536 }, (_, k) => Math.min(255, Math.round((k & 255) * g + (k >> 8) / 32)))) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ];

const plane = (l: number, h: number, graine: number): Plan => {
  const p = plan(l, h);
  for (let y = 0; y < h; y++) for (let x = 0; x < l; x++) p.data[y * l + x] = 0.5 + 0.4 * Math.sin((x + graine) / 9) * Math.cos((y - graine) / 13);
  return p;
};

describe('the full-size passes shared with a worker thread', () => {
  it('computes every row as this thread alone would, with the worker taking some of the bands', async () => {
    const [l, h] = [1500, 1000];
    const source = image(l, h);
    const t = tables();
    const attendu = new Uint8Array(l * h * 3);
    LUMIERE.rangees({ source, largeur: l, tables: t, sortie: attendu }, 0, h);
    // A call while the worker boots finds it busy: this thread then takes every band itself. Booted first.
    await aCote(ALIGNEMENT, { voisine: plane(64, 48, 0), photo: plane(64, 48, 1) });
    const avant = bandesDuTravailleur();
    for (let essai = 0; essai < 20 && bandesDuTravailleur() === avant; essai++) {
      const sortie = new Uint8Array(new SharedArrayBuffer(l * h * 3));
      await parRangees(LUMIERE, { source, largeur: l, tables: t, sortie }, h);
      expect(Buffer.from(sortie).equals(Buffer.from(attendu))).toBe(true);
    }
    expect(bandesDuTravailleur()).toBeGreaterThan(avant);
  });

  it('refuses an output the worker would write into a copy of, before sending anything', async () => {
    const [l, h] = [64, 48];
    const sortie = new Uint8Array(l * h * 3);
    await expect(parRangees(LUMIERE, { source: image(l, h), largeur: l, tables: tables(), sortie }, h)).rejects.toThrow(
      /lumiere: output sortie must be typed arrays over a SharedArrayBuffer/,
    );
    expect(sortie.every((v) => v === 0)).toBe(true);
  });

  it('returns the tasks of a stage in order, as this thread computes them', async () => {
    const paires = [1, 2, 3].map((k) => ({ voisine: plane(160, 120, 0), photo: plane(160, 120, k) }));
    const resultats = await repartir(ALIGNEMENT, paires);
    expect(resultats).toEqual(paires.map((p) => ALIGNEMENT.executer(p)));
  });

  it('rejects with the error the worker met, and with a clear one for a task it does not know', async () => {
    await expect(aCote(ALIGNEMENT, { voisine: null as unknown as Plan, photo: plane(16, 16, 0) })).rejects.toThrow(/null/);
    const inconnue = tache<number, number>('essai.inconnue', [], (n) => n + 1);
    await expect(aCote(inconnue, 1)).rejects.toThrow('essai.inconnue is not known to the worker: import its module in parallele-travailleur.ts');
    // The worker survives both.
    expect(await aCote(ALIGNEMENT, { voisine: plane(64, 48, 0), photo: plane(64, 48, 0) })).toMatchObject({ score: expect.any(Number) });
  });

  it('lets a process end once its passes are done (an idle worker holds nothing open)', async () => {
    const script = [
      "const { parRangees } = await import('./lambdas/moteurs/commun/parallele.ts');",
      "const { LUMIERE } = await import('./lambdas/moteurs/commun/redressement.ts');",
      'const [l, h] = [800, 600];',
      'const source = new Uint8Array(new SharedArrayBuffer(l * h * 3)).fill(100);',
      'const sortie = new Uint8Array(new SharedArrayBuffer(l * h * 3));',
      'const t = Uint8Array.from({ length: 65536 }, (_, k) => k & 255);',
      'await parRangees(LUMIERE, { source, largeur: l, tables: [t, t, t], sortie }, h);',
      "console.log('fini', sortie[0]);",
    ].join('\n');
    const { stdout } = await executer(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 });
    expect(stdout.trim()).toBe('fini 100');
  });
});
