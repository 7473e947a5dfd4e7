/**
 * How often a launch reads its jobs again: apart from what it reads (suivi.ts), because the launches of the page share
 * the account's 120 requests a minute, and a failed read must slow the polling down, not end it.
 */

const INTERVALLE_MS = 1500;
/** After a failed poll (the network, a 429): a little slower, still going. */
const INTERVALLE_ERREUR_MS = 5000;

/**
 * The launches of the page following their jobs right now: they share the account's 120 requests a
 * minute, so each polls less often when there are several (one alone: every 1.5 s).
 */
let enSuivi = 0;

export interface Lecteur {
  /** True once there is nothing more to follow. */
  lire: () => Promise<boolean>;
  /** A read answered, whatever it said. */
  lu: () => void;
  /** A read failed: true when that ends the following too, false to read again, more slowly. */
  rate: (e: unknown) => boolean;
  fini: () => void;
}

/** `actif` is false once the page is left: an answer that arrives then changes nothing and is not followed by another read. */
export const creerSondage = (lecteur: Lecteur, actif: () => boolean) => {
  let minuterie: ReturnType<typeof setTimeout> | undefined;
  let suit = false;

  const arreter = () => {
    if (suit) enSuivi -= 1;
    suit = false;
  };

  const sonder = async () => {
    if (!actif()) return;
    let fini = false;
    let pause = INTERVALLE_MS;
    try {
      fini = await lecteur.lire();
      if (!actif()) return;
      lecteur.lu();
    } catch (e) {
      if (!actif()) return;
      fini = lecteur.rate(e);
      if (!fini) pause = INTERVALLE_ERREUR_MS;
    }
    if (fini) {
      arreter();
      lecteur.fini();
      return;
    }
    minuterie = setTimeout(() => void sonder(), pause * Math.max(1, enSuivi));
  };

  const commencer = (delai = INTERVALLE_MS) => {
    if (!suit) enSuivi += 1;
    suit = true;
    minuterie = setTimeout(() => void sonder(), delai);
  };

  /** The page left: the next read is cancelled, and this launch no longer counts among those polling. */
  const couper = () => {
    clearTimeout(minuterie);
    arreter();
  };

  return { commencer, couper };
};
