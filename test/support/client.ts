/**
 * A small HTTP client for the integration tests: what a customer's code would do against the API
 * (fetch on 127.0.0.1 only), plus test images made with sharp.
 */
import * as v from 'valibot';
import { expect } from 'vitest';
import type { Lot, Travail } from '../../lambdas/core/modele/enregistrements';
import { SchemaErreur, SchemaLot, SchemaTravail } from '../../lambdas/core/contrat/openapi/schemas';

export { imageTest, pieceTest } from './images';

export interface Reponse<T = any> {
  statut: number;
  corps: T;
  entetes: Headers;
}

export interface Appel {
  cle?: string;
  json?: unknown;
  corps?: RequestInit['body'];
  entetes?: Record<string, string>;
}

export const appeler = async <T = any>(urlBase: string, methode: string, chemin: string, appel: Appel = {}): Promise<Reponse<T>> => {
  const entetes: Record<string, string> = { ...appel.entetes };
  if (appel.cle) entetes.Authorization = `Bearer ${appel.cle}`;
  let corps = appel.corps;
  if (appel.json !== undefined) {
    entetes['Content-Type'] ??= 'application/json';
    corps = JSON.stringify(appel.json);
  }
  const reponse = await fetch(`${urlBase}${chemin}`, { method: methode, headers: entetes, body: corps });
  const texte = await reponse.text();
  let contenu: unknown = texte;
  try {
    contenu = JSON.parse(texte);
  } catch {
    // Not JSON: keep the text, the test says what it expects.
  }
  if (reponse.status >= 400) expect(v.safeParse(SchemaErreur, contenu).success, `Erreur body: ${texte}`).toBe(true);
  return { statut: reponse.status, corps: contenu as T, entetes: reponse.headers };
};

/** Polls a job the way the spec tells clients to: until `termine` or `echec`. */
export const attendreTravail = async (urlBase: string, cle: string, id: string, delaiMs = 30_000): Promise<Travail> => {
  const fin = Date.now() + delaiMs;
  for (;;) {
    const { statut, corps } = await appeler<Travail>(urlBase, 'GET', `/travaux/${id}`, { cle });
    expect(statut).toBe(200);
    expect(v.safeParse(SchemaTravail, corps).issues).toBeUndefined();
    if (corps.statut === 'termine' || corps.statut === 'echec') return corps;
    if (Date.now() > fin) throw new Error(`job ${id} still ${corps.statut}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

export const attendreLot = async (urlBase: string, cle: string, id: string, delaiMs = 60_000): Promise<Lot> => {
  const fin = Date.now() + delaiMs;
  for (;;) {
    const { statut, corps } = await appeler<Lot>(urlBase, 'GET', `/lots/${id}`, { cle });
    expect(statut).toBe(200);
    expect(v.safeParse(SchemaLot, corps).issues).toBeUndefined();
    if (corps.statut !== 'en_cours') return corps;
    if (Date.now() > fin) throw new Error(`batch ${id} still en_cours (${corps.termines}+${corps.echecs}/${corps.total})`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

export const enBase64 = (octets: Buffer): string => octets.toString('base64');
