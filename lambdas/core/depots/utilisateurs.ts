/**
 * Web users (UTILISATEUR#<Cognito sub>): each user of the web site's user pool is linked to one
 * account, created with it in one transaction, so that a user never has two accounts, even when two
 * first requests race. The rules are core/domaine/utilisateurs.ts's.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AvecTable } from '../infra/dependances';
import { elementCreation } from './comptes';
import { PREFIXES_TABLE, type DepsTable } from './table';
import { ecrire, raisonsAnnulation, type ElementTransaction } from './transactions';

export interface EnregistrementUtilisateur {
  /** The user's id in the pool (`sub`). */
  id: string;
  compte: string;
  email: string;
  cree_le: string;
}

export const cleItem = (utilisateur: string) => ({ pk: `${PREFIXES_TABLE.utilisateur}${utilisateur}`, sk: 'UTILISATEUR' });

export const lire = async (d: DepsTable, utilisateur: string): Promise<EnregistrementUtilisateur | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(utilisateur), ConsistentRead: true }));
  return Item as EnregistrementUtilisateur | undefined;
};

/**
 * The user linked to a new account holding `credits` and no key, together with what else the caller
 * writes beside them (the record of those credits): false when the user was linked meanwhile (by a
 * concurrent first request), and nothing was written.
 */
export const creerAvecCompte = async (
  d: AvecTable,
  nouveau: { utilisateur: string; email: string; compte: string; credits: number },
  avec: ElementTransaction[] = [],
): Promise<boolean> => {
  try {
    await ecrire(d, [
      {
        Put: {
          TableName: d.table,
          Item: {
            ...cleItem(nouveau.utilisateur),
            type: 'utilisateur',
            id: nouveau.utilisateur,
            compte: nouveau.compte,
            email: nouveau.email,
            cree_le: d.horloge().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      elementCreation(d, nouveau.compte, nouveau.credits, 0),
      ...avec,
    ]);
    return true;
  } catch (erreur) {
    if (raisonsAnnulation(erreur)?.[0]?.Code !== 'ConditionalCheckFailed') throw erreur;
    return false;
  }
};
