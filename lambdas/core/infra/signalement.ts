/**
 * Lines logged on the API's rare paths (a debit sent again, an execution left to the sweeper, an
 * unexpected error): the logger (Powertools, about 20 KB with its commons) is imported when the
 * first such line is written, not parsed at every cold start of functions that usually log nothing.
 * The pipeline and the sweeper, which log as they work, import core/infra/journal.ts directly.
 */
export const signaler = async (niveau: 'warn' | 'error', message: string, attributs: Record<string, unknown>): Promise<void> => {
  const { journal } = await import('./journal');
  journal[niveau](message, attributs);
};
