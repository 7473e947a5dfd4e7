/**
 * The README is the newcomer's first page: it stays within 300 lines (the rest lives in docs/), so that
 * it is read whole. A section that grows past that moves to docs/ and leaves a link.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('the README stays within 300 lines', () => {
  const lignes = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    .trimEnd()
    .split('\n');
  expect(lignes.length).toBeLessThanOrEqual(300);
});
