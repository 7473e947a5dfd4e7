/**
 * Reading jobs and batches for their owner. Another account's job or batch is answered exactly like
 * one that does not exist (404), so ids reveal nothing across tenants.
 */
import type { Dependances } from '../infra/dependances';
import * as lots from '../depots/lots';
import * as travaux from '../depots/travaux';
import { ErreurApi } from '../modele/erreurs';
import type { EnregistrementLot, EnregistrementTravail } from '../modele/enregistrements';
import { estOutil, OUTILS, type IdOutil } from '../modele/outils';

type DepsLecture = Pick<Dependances, 'ddb' | 'table'>;

export const LIMITE_DEFAUT = 20;
export const LIMITE_MAX = 100;

export const travailDuCompte = async (d: DepsLecture, compte: string, id: string): Promise<EnregistrementTravail> => {
  const travail = await travaux.lire(d, id);
  if (!travail || travail.compte !== compte) throw new ErreurApi('not_found', `No job ${id}.`);
  return travail;
};

export const lotDuCompte = async (d: DepsLecture, compte: string, id: string): Promise<{ lot: EnregistrementLot; travaux: EnregistrementTravail[] }> => {
  const lot = await lots.lire(d, id);
  if (!lot || lot.compte !== compte) throw new ErreurApi('not_found', `No batch ${id}.`);
  return { lot, travaux: await travaux.lirePlusieurs(d, lot.travaux) };
};

export interface FiltreListe {
  limite: number;
  outil: IdOutil | undefined;
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
  return { limite, outil };
};

/** Newest first: only the caller's own jobs (depots/travaux.ts, `lister`). */
export const listerTravaux = (d: DepsLecture, compte: string, filtre: FiltreListe): Promise<EnregistrementTravail[]> => travaux.lister(d, compte, filtre);
