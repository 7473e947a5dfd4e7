/** The before/after examples of docs/engines.md can be made again with `npm run exemples`: the generator runs and each image shows a change. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { EXEMPLES, genererExemples } from '../../docs/exemples/generer';

const dossier = await mkdtemp(join(tmpdir(), 'retouche-exemples-'));
afterAll(() => rm(dossier, { recursive: true, force: true }));

describe('the before/after examples', () => {
  it('writes a before | after image per image tool, whose two halves differ, and a listing', async () => {
    const fichiers = await genererExemples(dossier);
    for (const { outil } of EXEMPLES) {
      const { data, info } = await sharp(await readFile(fichiers[outil]))
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(info.width, outil).toBe(968);
      const moitie = (debut: number) => {
        const m = Buffer.alloc(480 * info.height * 3);
        for (let y = 0; y < info.height; y++) data.copy(m, y * 480 * 3, (y * info.width + debut) * 3, (y * info.width + debut + 480) * 3);
        return m;
      };
      const [avant, apres] = [moitie(0), moitie(488)];
      let ecart = 0;
      for (let i = 0; i < avant.length; i++) ecart += Math.abs(avant[i]! - apres[i]!);
      expect(ecart / avant.length, outil).toBeGreaterThan(3);
    }
    const annonce = await readFile(fichiers.annonce, 'utf8');
    expect(annonce).toContain('Ghent, Patershol');
    expect(annonce).toContain('128 m²');
  });
});
