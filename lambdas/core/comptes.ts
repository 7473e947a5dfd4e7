/**
 * Accounts and API keys. A key is shown once, at creation; only its SHA-256 is stored. Keys are 256
 * random bits, so a fast hash is enough: there is nothing to brute-force (unlike a password).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Dependances } from './dependances';
import { ErreurApi } from './erreurs';
import { cles } from './depots/table';

export const MAX_CLES_PAR_COMPTE = 5;
/** Fixed prefix of every key: lets secret scanners and people recognise a Retouche key. */
export const PREFIXE_CLE = 'rtch_';

export type DepsComptes = Pick<Dependances, 'ddb' | 'table' | 'horloge'>;

export interface EnregistrementCompte {
  id: string;
  credits: number;
  /** Jobs `en_attente` or `en_cours`: the pending-jobs limit reads it, job ends decrement it. */
  en_attente: number;
  nb_cles: number;
  cree_le: string;
}

export interface EnregistrementCle {
  compte: string;
  /** First characters of the key, to tell keys apart in a listing without storing the key. */
  apercu: string;
  cree_le: string;
  revoquee: boolean;
}

/** Problems of the admin operations (not HTTP answers: the admin CLI prints them). */
export class ErreurCompte extends Error {
  override readonly name = 'ErreurCompte';
}

export const empreinteCle = (cle: string): string => createHash('sha256').update(cle, 'utf8').digest('hex');

const nouvelleCle = (): string => PREFIXE_CLE + randomBytes(32).toString('base64url');

const elementCle = (d: DepsComptes, compte: string, cle: string) => ({
  Put: {
    TableName: d.table,
    Item: {
      ...cles.cle(empreinteCle(cle)),
      gsi1pk: `COMPTE#${compte}`,
      gsi1sk: `CLE#${d.horloge().toISOString()}`,
      type: 'cle',
      compte,
      apercu: cle.slice(0, PREFIXE_CLE.length + 4),
      cree_le: d.horloge().toISOString(),
      revoquee: false,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const verifierCredits = (credits: number): void => {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new ErreurCompte('credits must be a whole number, 0 or more');
};

export const creerCompte = async (d: DepsComptes, credits: number) => {
  verifierCredits(credits);
  const compte = randomUUID();
  const cle = nouvelleCle();
  await d.ddb.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: d.table,
            Item: { ...cles.compte(compte), type: 'compte', id: compte, credits, en_attente: 0, nb_cles: 1, cree_le: d.horloge().toISOString() },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        elementCle(d, compte, cle),
      ],
    }),
  );
  return { compte, cle, credits };
};

export const lireCompte = async (d: Pick<Dependances, 'ddb' | 'table'>, compte: string): Promise<EnregistrementCompte | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cles.compte(compte), ConsistentRead: true }));
  return Item as EnregistrementCompte | undefined;
};

export const creerCle = async (d: DepsComptes, compte: string) => {
  const cle = nouvelleCle();
  try {
    await d.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: d.table,
              Key: cles.compte(compte),
              UpdateExpression: 'SET nb_cles = nb_cles + :un',
              ConditionExpression: 'attribute_exists(pk) AND nb_cles < :max',
              ExpressionAttributeValues: { ':un': 1, ':max': MAX_CLES_PAR_COMPTE },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          elementCle(d, compte, cle),
        ],
      }),
    );
  } catch (erreur) {
    if (erreur instanceof TransactionCanceledException && erreur.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
      throw new ErreurCompte(
        erreur.CancellationReasons[0].Item ? `account ${compte} already has ${MAX_CLES_PAR_COMPTE} active keys: revoke one first` : `no account ${compte}`,
      );
    }
    throw erreur;
  }
  return { cle };
};

export const revoquerCle = async (d: DepsComptes, cle: string) => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cles.cle(empreinteCle(cle)), ConsistentRead: true }));
  const enregistrement = Item as EnregistrementCle | undefined;
  if (!enregistrement) throw new ErreurCompte('unknown key');
  if (enregistrement.revoquee) return { revoque: true };
  try {
    await d.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: d.table,
              Key: cles.cle(empreinteCle(cle)),
              UpdateExpression: 'SET revoquee = :vrai, revoquee_le = :maintenant',
              ConditionExpression: 'revoquee = :faux',
              ExpressionAttributeValues: { ':vrai': true, ':faux': false, ':maintenant': d.horloge().toISOString() },
            },
          },
          {
            Update: {
              TableName: d.table,
              Key: cles.compte(enregistrement.compte),
              UpdateExpression: 'SET nb_cles = nb_cles - :un',
              ExpressionAttributeValues: { ':un': 1 },
            },
          },
        ],
      }),
    );
  } catch (erreur) {
    // Revoked meanwhile by a concurrent call: the outcome asked for holds.
    if (!(erreur instanceof TransactionCanceledException)) throw erreur;
  }
  return { revoque: true };
};

export const ajouterCredits = async (d: DepsComptes, compte: string, credits: number) => {
  verifierCredits(credits);
  try {
    const { Attributes } = await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cles.compte(compte),
        UpdateExpression: 'ADD credits :n',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':n': credits },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { compte, credits: Number(Attributes?.credits) };
  } catch (erreur) {
    if ((erreur as Error).name === 'ConditionalCheckFailedException') throw new ErreurCompte(`no account ${compte}`);
    throw erreur;
  }
};

export interface Appelant {
  compte: string;
  /** Hash of the key used: the rate limit is counted per key. */
  empreinte: string;
}

/** `Authorization: Bearer <key>` → the calling account, or 401. */
export const authentifier = async (d: Pick<Dependances, 'ddb' | 'table'>, autorisation: string | undefined): Promise<Appelant> => {
  const correspondance = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(autorisation ?? '');
  if (!correspondance?.[1]) {
    throw new ErreurApi('unauthorized', 'Missing API key: send the header Authorization: Bearer <API key>.', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  const empreinte = empreinteCle(correspondance[1]);
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cles.cle(empreinte), ConsistentRead: true }));
  const cle = Item as EnregistrementCle | undefined;
  if (!cle || cle.revoquee) {
    throw new ErreurApi('unauthorized', 'Invalid or revoked API key.', {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
  return { compte: cle.compte, empreinte };
};
