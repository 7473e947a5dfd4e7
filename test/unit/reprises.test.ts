/**
 * Credits taken back (issue 38, point 4): how many of a pack's credits a refund or a dispute owes back
 * (core/domaine/achats.ts), and the 402 a balance below zero answers (core/domaine/facturation.ts).
 * The transactions that take them once are proved on the local stack (test/integration/paiements.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { creditsDus } from '../../lambdas/core/domaine/achats';
import { verifierSolde } from '../../lambdas/core/domaine/facturation';
import { ErreurApi } from '../../lambdas/core/modele/erreurs';
import { refus } from '../support/refus';

describe('credits a refund or a dispute owes back', () => {
  it('a refund: the share refunded so far, rounded up, never beyond the pack', () => {
    const rembourse = (r: number, montant = 4900) => creditsDus(100, { type: 'achat_rembourse', montant, rembourse: r, integral: r >= montant });
    expect(rembourse(0)).toBe(0);
    expect(rembourse(1)).toBe(1);
    expect(rembourse(1000)).toBe(21);
    expect(rembourse(2450)).toBe(50);
    expect(rembourse(2500)).toBe(52);
    expect(rembourse(4899)).toBe(100);
    expect(rembourse(4900)).toBe(100);
    expect(rembourse(9999)).toBe(100);
  });

  it('a refund whose amounts are missing: the whole pack when the charge says it is refunded', () => {
    expect(creditsDus(100, { type: 'achat_rembourse', integral: true })).toBe(100);
    expect(creditsDus(100, { type: 'achat_rembourse', rembourse: 500 })).toBe(100);
    expect(creditsDus(100, { type: 'achat_rembourse', montant: 0, rembourse: 0 })).toBe(0);
  });

  it('a dispute: the whole pack', () => {
    expect(creditsDus(500, { type: 'achat_conteste' })).toBe(500);
  });
});

describe('a balance below zero starts no job', () => {
  const refusSolde = (credits: number, cout: number): ErreurApi => refus(() => verifierSolde(credits, 0, cout, 1));

  it('refuses even a free (test) job, saying the balance is below zero and why', () => {
    const e = refusSolde(-3, 0);
    expect([e.code, e.statut, e.details]).toEqual(['insufficient_credits', 402, { credits: -3, requis: 0 }]);
    expect(e.message).toMatch(/^The balance is -3 credits, below zero: credits were taken back \(a purchase refunded or disputed/);
    expect(refusSolde(-3, 4).message).toMatch(/below zero/);
  });

  it('at zero or above, a request is refused for its cost only', () => {
    expect(() => verifierSolde(0, 0, 0, 1)).not.toThrow();
    expect(refusSolde(0, 3).message).toBe('This request costs 3 credits; the balance is 0.');
  });
});
