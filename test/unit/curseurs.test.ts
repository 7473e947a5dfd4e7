/** The cursors of GET /travaux (core/domaine/curseurs.ts): read back as written, refused when not ours. */
import { describe, expect, it } from 'vitest';
import { ecrireCurseur, lireCurseur } from '../../lambdas/core/domaine/curseurs';
import { cleDerivee } from '../../lambdas/core/infra/dependances';

const CLE = cleDerivee('-----BEGIN PRIVATE KEY-----\nnot a real one\n-----END PRIVATE KEY-----\n', 'curseurs');
const POSITION = { outil: 'ciel' as const, cree_le: '2026-11-27T04:00:00.000Z', id: '7ffabb2a-099d-4b0c-8a9c-82fb895dde4d' };

const refuse = (f: () => unknown) => expect(f).toThrow(expect.objectContaining({ code: 'invalid_parameter', message: expect.stringContaining('apres') }));

describe('cursors of GET /travaux', () => {
  it('give back where the page ended and under which filter, for the account that got them', () => {
    const curseur = ecrireCurseur(CLE, 'compte-a', POSITION);
    expect(curseur).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(lireCurseur(CLE, 'compte-a', curseur)).toEqual(POSITION);
    expect(lireCurseur(CLE, 'compte-a', ecrireCurseur(CLE, 'compte-a', { ...POSITION, outil: undefined }))).toEqual({ ...POSITION, outil: undefined });
  });

  it('are refused when altered, cut, made with another key, or sent by another account', () => {
    const curseur = ecrireCurseur(CLE, 'compte-a', POSITION);
    const [charge, signature] = curseur.split('.') as [string, string];
    // Another position, signed by nobody: the id of someone else's job, or another filter.
    const autre = Buffer.from(JSON.stringify({ v: 1, o: null, t: POSITION.cree_le, i: POSITION.id })).toString('base64url');
    refuse(() => lireCurseur(CLE, 'compte-a', `${autre}.${signature}`));
    refuse(() => lireCurseur(CLE, 'compte-a', `${charge}.${signature.slice(0, -2)}`));
    refuse(() => lireCurseur(CLE, 'compte-a', `${charge}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`));
    refuse(() => lireCurseur(CLE, 'compte-b', curseur));
    refuse(() => lireCurseur(cleDerivee('another stage', 'curseurs'), 'compte-a', curseur));
    for (const faux of ['', 'abc', 'a.b.c', '%%%.%%%', charge]) refuse(() => lireCurseur(CLE, 'compte-a', faux));
  });

  it('derive their key from the link key without revealing it, one key per use', () => {
    expect(cleDerivee('secret', 'curseurs')).toHaveLength(32);
    expect(cleDerivee('secret', 'curseurs').equals(cleDerivee('secret', 'autre'))).toBe(false);
    expect(cleDerivee('secret', 'curseurs').toString('utf8')).not.toContain('secret');
  });
});
