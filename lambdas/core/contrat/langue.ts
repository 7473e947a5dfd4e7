/**
 * The language a request asks for (`Accept-Language`), among the six the service writes in: what the
 * preview engine writes its mark in (moteurs/commun/apercu.ts). The web site sends the language of its
 * page; a client that sends nothing, or only other languages, gets English.
 */
import type { Langue } from '../modele/outils';

const PAR_CODE: Readonly<Record<string, Langue>> = { fr: 'French', en: 'English', nl: 'Dutch', de: 'German', es: 'Spanish', it: 'Italian' };

/** A header is the client's to write: only its first few hundred characters are read. */
const LONGUEUR_LUE = 512;

/** The preferred language of the header (highest `q`, first in case of a tie) that the service writes in. */
export const langueDemandee = (entete: string | undefined): Langue | undefined => {
  if (!entete) return undefined;
  const choix = entete
    .slice(0, LONGUEUR_LUE)
    .split(',')
    .map((element, rang) => {
      const [etiquette = '', ...parametres] = element.trim().split(';');
      const q = parametres.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { langue: PAR_CODE[etiquette.trim().toLowerCase().split('-')[0] ?? ''], q: q === undefined ? 1 : Number(q), rang };
    })
    .filter((c) => c.langue !== undefined && c.q > 0)
    .sort((a, b) => b.q - a.q || a.rang - b.rang);
  return choix[0]?.langue;
};
