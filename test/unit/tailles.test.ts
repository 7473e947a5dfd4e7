/**
 * Functions a person can hold in mind (issue 42, point 3): no function over 80 lines in the code we
 * run or ship (lambdas/, lib/, bin/, local/, clients/, exploitation/, the web site's TypeScript), and
 * no module over 400 lines in lambdas/. A function counts from its first line to its closing brace,
 * the functions nested in it included, so a long one is split into named steps rather than into
 * closures inside it. The generated SDK types (clients/sdk/src/schema.ts) are not code anyone edits.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LIGNES_FONCTION = 80;
const MAX_LIGNES_MODULE = 400;
const GENERES = new Set(['clients/sdk/src/schema.ts']);

const modules = (...dossiers: string[]): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...dossiers], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|mts|cts)$/.test(f) && !f.endsWith('.d.ts') && !GENERES.has(f));

/** Every function with a body longer than the bound, as `path:line name (n lines)`. */
const tropLongues = (fichier: string, texte = readFileSync(fichier, 'utf8')): string[] => {
  const source = ts.createSourceFile(fichier, texte, ts.ScriptTarget.Latest, true);
  const ligne = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const trouvees: string[] = [];
  const visiter = (noeud: ts.Node): void => {
    if (ts.isFunctionLike(noeud) && 'body' in noeud && noeud.body) {
      const debut = ligne(noeud.getStart(source));
      const lignes = ligne(noeud.getEnd()) - debut + 1;
      if (lignes > MAX_LIGNES_FONCTION) {
        const parent = noeud.parent;
        const nom =
          noeud.name?.getText(source) ??
          (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ? parent.name.getText(source) : undefined) ??
          '(anonymous)';
        trouvees.push(`${fichier}:${debut} ${nom} (${lignes} lines)`);
      }
    }
    ts.forEachChild(noeud, visiter);
  };
  visiter(source);
  return trouvees;
};

describe('sizes', () => {
  it(`has no function over ${MAX_LIGNES_FONCTION} lines`, () => {
    const fichiers = modules('lambdas', 'lib', 'bin', 'local', 'clients', 'exploitation', 'site/src');
    expect(fichiers.length).toBeGreaterThan(300);
    expect(fichiers.flatMap((f) => tropLongues(f))).toEqual([]);
  });

  it(`has no module over ${MAX_LIGNES_MODULE} lines in lambdas/`, () => {
    const longs = modules('lambdas')
      .map((f) => [f, readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > MAX_LIGNES_MODULE)
      .map(([f, n]) => `${f} (${n} lines)`);
    expect(longs).toEqual([]);
  });

  it('counts a function with the functions nested in it (the measure itself)', () => {
    const lignes = (n: number) => Array.from({ length: n }, (_, i) => `    const v${i} = ${i};`).join('\n');
    // 85 lines in all, though neither inner function is long (41 lines each).
    const texte = `export function longue() {\n  const a = () => {\n${lignes(39)}\n  };\n  const b = () => {\n${lignes(39)}\n  };\n  return [a, b];\n}\n`;
    expect(tropLongues('x.ts', texte)).toEqual(['x.ts:1 longue (85 lines)']);
    expect(tropLongues('y.ts', `export const courte = () => {\n${lignes(78)}\n};\n`)).toEqual([]);
  });
});
