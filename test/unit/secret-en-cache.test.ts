/**
 * A secret read at run time (core/infra/secret-en-cache.ts): a good read serves five minutes, a failed
 * or placeholder read serves no call, and calls during a read share it.
 */
import { describe, expect, it } from 'vitest';
import { DUREE_SECRET_MS, SecretNonConfigure, secretEnCache } from '../../lambdas/core/infra/secret-en-cache';

/** A reader answering `reponses` in turn (an Error is thrown), counting its reads, on a clock the test moves. */
const lecteur = (reponses: (string | Error)[]) => {
  const etat = { lectures: 0, maintenant: 1_000_000 };
  const lire = secretEnCache(
    async () => {
      etat.lectures++;
      const r = reponses.shift();
      if (r instanceof Error) throw r;
      return r!;
    },
    { horloge: () => etat.maintenant },
  );
  return { etat, lire };
};

describe('a secret read at run time', () => {
  it('keeps a good read five minutes, then reads again', async () => {
    const { etat, lire } = lecteur(['v1', 'v2']);
    expect(await lire()).toBe('v1');
    etat.maintenant += DUREE_SECRET_MS - 1;
    expect(await lire()).toBe('v1');
    expect(etat.lectures).toBe(1);
    etat.maintenant += 1;
    expect(await lire()).toBe('v2');
    expect(etat.lectures).toBe(2);
  });

  it('keeps neither a placeholder nor a failure: the next call reads again', async () => {
    const { etat, lire } = lecteur([new SecretNonConfigure('placeholder'), new Error('throttled'), 'whsec_x']);
    await expect(lire()).rejects.toBeInstanceOf(SecretNonConfigure);
    await expect(lire()).rejects.toThrow('throttled');
    expect(await lire()).toBe('whsec_x');
    expect(await lire()).toBe('whsec_x');
    expect(etat.lectures).toBe(3);
  });

  it('calls made during a read share it, success or failure', async () => {
    const { etat, lire } = lecteur([new SecretNonConfigure('placeholder'), 'whsec_x']);
    const echecs = await Promise.allSettled([lire(), lire(), lire()]);
    expect(echecs.map((e) => e.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await Promise.all([lire(), lire()])).toEqual(['whsec_x', 'whsec_x']);
    expect(etat.lectures).toBe(2);
  });

  it('a reader that throws at once is a rejection, not a throw', async () => {
    const lire = secretEnCache<string>(() => {
      throw new Error('synchronous');
    });
    await expect(lire()).rejects.toThrow('synchronous');
  });
});
