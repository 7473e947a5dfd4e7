/**
 * A secret read at run time and kept a short while: a read that succeeded serves the next calls for
 * five minutes, then the secret is read again; a read that failed, or found the placeholder the stack
 * put there at deploy time (the reader throws `SecretNonConfigure`), is kept for no call at all, so
 * the next one reads again. A secret an operator sets after the deploy (Stripe's whsec_…) or rolls is
 * thus read by warm containers within five minutes, without a deploy or a new container; a container
 * never stays stuck on a failed read. Calls made while a read is under way share it.
 *
 * The secrets a deploy writes before the functions that read them run (the link signing key, the C2PA
 * key: core/infra/secret-liens.ts, moteurs/c2pa/marquage.ts) are read once per container by
 * `unePourConteneur` (core/infra/dependances.ts), which forgets a failed build too; a change to them
 * comes with a deploy, which starts new containers.
 */

/** How long a secret read successfully is used before it is read again. */
export const DUREE_SECRET_MS = 5 * 60_000;

/** The secret still holds the deploy's placeholder: an operator has a value to put in it. */
export class SecretNonConfigure extends Error {
  override readonly name = 'SecretNonConfigure';
}

/**
 * `lire`, called at most once per `dureeMs` while it succeeds, and again at the next call after it
 * fails (a `SecretNonConfigure` included).
 */
export const secretEnCache = <T>(lire: () => Promise<T>, o: { dureeMs?: number; horloge?: () => number } = {}): (() => Promise<T>) => {
  const dureeMs = o.dureeMs ?? DUREE_SECRET_MS;
  const horloge = o.horloge ?? Date.now;
  // `jusqua` is Infinity while the read is under way: the calls meanwhile wait for it.
  let courant: { valeur: Promise<T>; jusqua: number } | undefined;
  return () => {
    if (courant && horloge() < courant.jusqua) return courant.valeur;
    const lecture = { valeur: new Promise<T>((ok) => ok(lire())), jusqua: Infinity };
    courant = lecture;
    lecture.valeur.then(
      () => {
        lecture.jusqua = horloge() + dureeMs;
      },
      () => {
        if (courant === lecture) courant = undefined;
      },
    );
    return lecture.valeur;
  };
};
