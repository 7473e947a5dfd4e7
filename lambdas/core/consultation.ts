/**
 * Reading jobs and batches for their owner. Another account's job or batch is answered exactly like
 * one that does not exist (404), so ids reveal nothing across tenants.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Dependances } from './dependances';
import * as lots from './depots/lots';
import { ErreurApi } from './erreurs';
import type { EnregistrementLot, EnregistrementTravail } from './modele';
import { estOutil, OUTILS, type IdOutil } from './outils';
import { cles, INDEX, lireParCles } from './depots/table';

type DepsLecture = Pick<Dependances, 'ddb' | 'table'>;

export const LIMITE_DEFAUT = 20;
export const LIMITE_MAX = 100;

/** A job's record; a listing job's claim on an upload (core/televersements.ts) shares the key space and is no job. */
export const lireEnregistrementTravail = async (d: DepsLecture, id: string): Promise<EnregistrementTravail | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cles.travail(id), ConsistentRead: true }));
  return Item?.type === 'utilisation' ? undefined : (Item as EnregistrementTravail | undefined);
};

export const travailDuCompte = async (d: DepsLecture, compte: string, id: string): Promise<EnregistrementTravail> => {
  const travail = await lireEnregistrementTravail(d, id);
  if (!travail || travail.compte !== compte) throw new ErreurApi('not_found', `No job ${id}.`);
  return travail;
};

/** Reads jobs by id (a batch has at most 50). */
export const lireTravaux = (d: DepsLecture, ids: readonly string[]): Promise<EnregistrementTravail[]> =>
  lireParCles<EnregistrementTravail>(
    d,
    ids.map((id) => cles.travail(id)),
  );

export const lotDuCompte = async (d: DepsLecture, compte: string, id: string): Promise<{ lot: EnregistrementLot; travaux: EnregistrementTravail[] }> => {
  const lot = await lots.lire(d, id);
  if (!lot || lot.compte !== compte) throw new ErreurApi('not_found', `No batch ${id}.`);
  return { lot, travaux: await lireTravaux(d, lot.travaux) };
};

/** Every item of an account whose `gsi1` sort key starts with `prefixe` (`TRAVAIL#`, `TELEVERSEMENT#`), all pages. */
export const toutDuCompte = async <T>(d: DepsLecture, compte: string, prefixe: string): Promise<T[]> => {
  const items: T[] = [];
  let depart: Record<string, unknown> | undefined;
  do {
    const page = await d.ddb.send(
      new QueryCommand({
        TableName: d.table,
        IndexName: INDEX.parCompte,
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
        ExpressionAttributeValues: { ':pk': `COMPTE#${compte}`, ':prefixe': prefixe },
        ExclusiveStartKey: depart,
      }),
    );
    items.push(...((page.Items ?? []) as T[]));
    depart = page.LastEvaluatedKey;
  } while (depart);
  return items;
};

export interface FiltreListe {
  limite: number;
  outil: IdOutil | undefined;
}

/** Parses `limite` and `outil` of `GET /travaux`; a bad value is a 400 that names the parameter. */
export const lireFiltre = (parametres: Record<string, string | undefined> | null): FiltreListe => {
  const brut = parametres?.limite;
  let limite = LIMITE_DEFAUT;
  if (brut !== undefined) {
    if (!/^\d{1,3}$/.test(brut) || Number(brut) < 1 || Number(brut) > LIMITE_MAX) {
      throw new ErreurApi('invalid_parameter', `limite must be a whole number from 1 to ${LIMITE_MAX}.`, { parametre: 'limite' });
    }
    limite = Number(brut);
  }
  const outil = parametres?.outil;
  if (outil !== undefined && !estOutil(outil)) {
    throw new ErreurApi('invalid_parameter', `outil must be one of: ${OUTILS.join(', ')}.`, { parametre: 'outil' });
  }
  return { limite, outil };
};

/**
 * Newest first. With `outil`, the query runs on the per-tool index, so `limite` jobs of that tool come
 * back even when the account's newest jobs are of other tools (no filtering after the limit).
 */
export const listerTravaux = async (d: DepsLecture, compte: string, filtre: FiltreListe): Promise<EnregistrementTravail[]> => {
  const requete = filtre.outil
    ? {
        IndexName: INDEX.parOutil,
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': `COMPTE#${compte}#${filtre.outil}` },
      }
    : {
        IndexName: INDEX.parCompte,
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
        ExpressionAttributeValues: { ':pk': `COMPTE#${compte}`, ':prefixe': 'TRAVAIL#' },
      };
  const { Items } = await d.ddb.send(new QueryCommand({ TableName: d.table, ...requete, ScanIndexForward: false, Limit: filtre.limite }));
  return (Items ?? []) as EnregistrementTravail[];
};
