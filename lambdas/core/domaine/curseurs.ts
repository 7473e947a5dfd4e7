/**
 * The cursors of `GET /travaux` (`suivant`, given back as `?apres=`): where the last page stopped (the
 * last job's creation time and id, which order the account's index) and under which filter, signed with
 * HMAC-SHA256 over the account too. A cursor altered, truncated, or used by another account fails its
 * signature: 400, never another account's page nor a page of another filter. Opaque to clients, and
 * free to change between versions of the service (an old one is then refused, not misread).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ErreurApi } from '../modele/erreurs';
import { estOutil, type IdOutil } from '../modele/outils';

/** Where a page ended, and the filter it was read under. */
export interface Position {
  outil: IdOutil | undefined;
  cree_le: string;
  id: string;
}

const VERSION = 1;
/** Bytes of the HMAC kept: 128 bits is beyond forging, and keeps cursors short. */
const OCTETS_SIGNATURE = 16;

const signature = (cle: Buffer, compte: string, charge: string) =>
  createHmac('sha256', cle).update(`${compte}\n${charge}`).digest().subarray(0, OCTETS_SIGNATURE);

export const ecrireCurseur = (cle: Buffer, compte: string, position: Position): string => {
  const charge = Buffer.from(JSON.stringify({ v: VERSION, o: position.outil ?? null, t: position.cree_le, i: position.id })).toString('base64url');
  return `${charge}.${signature(cle, compte, charge).toString('base64url')}`;
};

const refuser = () =>
  new ErreurApi('invalid_parameter', "apres is not a cursor of this account's listing: give back the `suivant` of a GET /travaux answer as it is.", {
    parametre: 'apres',
  });

export const lireCurseur = (cle: Buffer, compte: string, curseur: string): Position => {
  const [charge, signe, ...reste] = curseur.split('.');
  if (!charge || !signe || reste.length || !/^[\w-]+$/.test(charge) || !/^[\w-]+$/.test(signe)) throw refuser();
  const attendue = signature(cle, compte, charge);
  const recue = Buffer.from(signe, 'base64url');
  if (recue.length !== attendue.length || !timingSafeEqual(recue, attendue)) throw refuser();
  const lu = JSON.parse(Buffer.from(charge, 'base64url').toString('utf8')) as { v?: unknown; o?: unknown; t?: unknown; i?: unknown };
  // Signed by us, so well formed; a cursor of another version is refused rather than misread.
  if (lu.v !== VERSION || typeof lu.t !== 'string' || typeof lu.i !== 'string' || (lu.o !== null && !(typeof lu.o === 'string' && estOutil(lu.o))))
    throw refuser();
  return { outil: lu.o === null ? undefined : (lu.o as IdOutil), cree_le: lu.t, id: lu.i };
};
