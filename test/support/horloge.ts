/**
 * A clock for a test stack (its `horloge` option) that a test can hold still: the API counts requests and
 * test events per calendar minute, so a loop that straddled two minutes would see its count start again.
 */
export const horlogeTenable = () => {
  let tenue: number | undefined;
  return {
    horloge: (): Date => new Date(tenue ?? Date.now()),
    /** Holds the clock one second into the current minute while `fn` runs: its requests all fall in that minute. */
    dansUneMinute: async <T>(fn: () => Promise<T>): Promise<T> => {
      tenue = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
      try {
        return await fn();
      } finally {
        tenue = undefined;
      }
    },
  };
};
