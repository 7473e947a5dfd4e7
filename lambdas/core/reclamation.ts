/**
 * A batch's claim: who may write its ZIP (core/lots.ts), and until when. The claim also locks the
 * batch against an erasure (core/effacement.ts): while a ZIP is written from its jobs, none of them can
 * be erased. Apart from lots.ts so that the erasure routes bundle no S3 client.
 */

/**
 * Who holds a batch's claim while erasing one of its jobs, or the whole batch (core/effacement.ts): a
 * name per erasure, so that two erasures never believe they both hold it, while the sweeper finishing
 * an erasure cut short (the same name) takes its claim over at once.
 */
export const effaceur = (id: string): string => `effacement:${id}`;
export const estEffaceur = (finaliseur: string | undefined): boolean => finaliseur?.startsWith('effacement:') ?? false;

/** Longer than a ZIP may take (the FinaliserLot function's 10-minute timeout), so a live claim is never taken. */
export const DUREE_RECLAMATION_MS = 12 * 60_000;

/** No one holds the batch, or `:moi` does, or the holder's claim has expired (`:maintenant`, epoch ms). */
export const RECLAMATION_LIBRE =
  '(attribute_not_exists(finaliseur) OR finaliseur = :moi OR attribute_not_exists(reclame_jusqua) OR reclame_jusqua < :maintenant)';
