/**
 * Reading jobs and batches for their owner. Another account's job or batch is answered exactly like
 * one that does not exist (404), so ids reveal nothing across tenants.
 */
import type { AvecCurseurs, Dependances } from '../infra/dependances';
import * as lots from '../depots/lots';
import * as travaux from '../depots/travaux';
import { ErreurApi } from '../modele/erreurs';
import { memeMonde, type EnregistrementLot, type EnregistrementTravail } from '../modele/enregistrements';
import { estOutil, OUTILS, type IdOutil } from '../modele/outils';
import { ecrireCurseur, lireCurseur } from './curseurs';

type DepsLecture = Pick<Dependances, 'ddb' | 'table'>;

/**
 * Who reads: an account, and whether with a test key. A test key sees only its account's test jobs and
 * batches, a live key or a web session only the live ones: the other kind answers as if it did not exist.
 */
export interface Lecteur {
  compte: string;
  test?: boolean;
}

export const LIMITE_DEFAUT = 20;
export const LIMITE_MAX = 100;

export const travailDuCompte = async (d: DepsLecture, qui: Lecteur, id: string): Promise<EnregistrementTravail> => {
  const travail = await travaux.lire(d, id);
  if (!travail || travail.compte !== qui.compte || !memeMonde(travail, qui.test)) throw new ErreurApi('not_found', `No job ${id}.`);
  return travail;
};

export const lotDuCompte = async (d: DepsLecture, qui: Lecteur, id: string): Promise<{ lot: EnregistrementLot; travaux: EnregistrementTravail[] }> => {
  const lot = await lots.lire(d, id);
  if (!lot || lot.compte !== qui.compte || !memeMonde(lot, qui.test)) throw new ErreurApi('not_found', `No batch ${id}.`);
  return { lot, travaux: await travaux.lirePlusieurs(d, lot.travaux) };
};

export interface FiltreListe {
  limite: number;
  outil: IdOutil | undefined;
  /** `apres`: the cursor a page before gave as `suivant` (curseurs.ts), checked when the account is known. */
  apres?: string;
}

/** Parses `limite` of a listing (`GET /travaux`, `GET /compte/mouvements`): 1 to LIMITE_MAX, LIMITE_DEFAUT when absent. */
export const lireLimite = (parametres: Record<string, string | undefined> | null): number => {
  const brut = parametres?.limite;
  if (brut === undefined) return LIMITE_DEFAUT;
  if (!/^\d{1,3}$/.test(brut) || Number(brut) < 1 || Number(brut) > LIMITE_MAX) {
    throw new ErreurApi('invalid_parameter', `limite must be a whole number from 1 to ${LIMITE_MAX}.`, { parametre: 'limite' });
  }
  return Number(brut);
};

/** Parses `limite` and `outil` of `GET /travaux`; a bad value is a 400 that names the parameter. */
export const lireFiltre = (parametres: Record<string, string | undefined> | null): FiltreListe => {
  const limite = lireLimite(parametres);
  const outil = parametres?.outil;
  if (outil !== undefined && !estOutil(outil)) {
    throw new ErreurApi('invalid_parameter', `outil must be one of: ${OUTILS.join(', ')}.`, { parametre: 'outil' });
  }
  const apres = parametres?.apres;
  if (apres !== undefined && (apres.length === 0 || apres.length > 512))
    throw new ErreurApi('invalid_parameter', 'apres must be the `suivant` of a GET /travaux answer.', { parametre: 'apres' });
  return { limite, outil, ...(apres === undefined ? {} : { apres }) };
};

/**
 * A page of the caller's own jobs, newest first, and the cursor of the next one when more exist. A
 * cursor holds its filter: `outil` may be given again with it, not changed (the order and filter of a
 * listing stay those of its first page).
 */
export const listerTravaux = async (
  d: DepsLecture & AvecCurseurs,
  qui: Lecteur,
  filtre: FiltreListe,
): Promise<{ travaux: EnregistrementTravail[]; suivant: string | null }> => {
  const { compte } = qui;
  const position = filtre.apres === undefined ? undefined : lireCurseur(d.curseurs, compte, filtre.apres);
  if (position && filtre.outil !== undefined && filtre.outil !== position.outil) {
    throw new ErreurApi(
      'invalid_parameter',
      `This cursor continues the listing ${position.outil ? `of outil=${position.outil}` : 'of every tool'}: give it without outil, or with the same.`,
      { parametre: 'outil' },
    );
  }
  const outil = position ? position.outil : filtre.outil;
  const page = await travaux.lister(d, compte, { limite: filtre.limite, outil, ...(position ? { apres: position } : {}), test: qui.test === true });
  const dernier = page.travaux.at(-1);
  return {
    travaux: page.travaux,
    suivant: page.encore && dernier ? ecrireCurseur(d.curseurs, compte, { outil, cree_le: dernier.cree_le, id: dernier.id }) : null,
  };
};
