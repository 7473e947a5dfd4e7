/**
 * The admin CLI (the web site's account pages are out of scope). One JSON line per command.
 *   npm run --silent admin -- create-account --credits N
 *   npm run --silent admin -- create-key --account ID
 *   npm run --silent admin -- revoke-key --key KEY
 *   npm run --silent admin -- add-credits --account ID --credits N
 * It acts on the local stack running with the same RETOUCHE_DATA_DIR, or with `--outputs FILE` on a
 * deployed stage (the file `cdk deploy --outputs-file` writes; AWS credentials from the environment).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ajouterCredits, creerCle, creerCompte, ErreurCompte, revoquerCle, type DepsComptes } from '../lambdas/core/comptes';
import { clientDocument } from '../lambdas/core/dependances';
import { clientDynamoLocal } from './dynamodb';
import { FICHIER_PILE } from './pile';

const USAGE = `usage: npm run --silent admin -- <command> [--outputs cdk-outputs.json]
  create-account --credits N
  create-key --account ID
  revoke-key --key KEY
  add-credits --account ID --credits N`;

const sortir = (code: number, message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { credits: { type: 'string' }, account: { type: 'string' }, key: { type: 'string' }, outputs: { type: 'string' } },
    });
  } catch (erreur) {
    return sortir(2, `${(erreur as Error).message}\n${USAGE}`);
  }
})();

const dependances = (): DepsComptes => {
  if (values.outputs) {
    const sorties = JSON.parse(readFileSync(values.outputs, 'utf8')) as Record<string, Record<string, string>>;
    const pile = Object.values(sorties).find((s) => s.TableName);
    if (!pile?.TableName) sortir(1, `${values.outputs} has no TableName output: is it the file of 'cdk deploy --outputs-file'?`);
    // The stage's region is in its API URL (https://<id>.execute-api.<region>.amazonaws.com/…).
    const region = process.env.AWS_REGION ?? /\.execute-api\.([a-z0-9-]+)\./.exec(pile!.ApiUrl ?? '')?.[1];
    return { ddb: clientDocument(new DynamoDBClient(region ? { region } : {})), table: pile!.TableName!, horloge: () => new Date() };
  }
  const fichier = join(resolve(process.env.RETOUCHE_DATA_DIR ?? '.retouche'), FICHIER_PILE);
  const pile = existsSync(fichier) ? (JSON.parse(readFileSync(fichier, 'utf8')) as { dynamodb?: string; table?: string }) : {};
  if (!pile.dynamodb || !pile.table) {
    sortir(1, `No local stack is running for RETOUCHE_DATA_DIR=${process.env.RETOUCHE_DATA_DIR ?? '.retouche'}: start it with 'npm start' (or pass --outputs for a deployed stage).`);
  }
  return { ddb: clientDocument(clientDynamoLocal(pile.dynamodb!)), table: pile.table!, horloge: () => new Date() };
};

const entier = (texte: string | undefined, nom: string): number => {
  if (texte === undefined || !/^\d+$/.test(texte)) return sortir(2, `--${nom} needs a whole number\n${USAGE}`);
  return Number(texte);
};
const requis = (texte: string | undefined, nom: string): string => texte ?? sortir(2, `--${nom} is required\n${USAGE}`);

const executer = async (): Promise<unknown> => {
  switch (positionals[0]) {
    case 'create-account': {
      const credits = entier(values.credits, 'credits');
      const r = await creerCompte(dependances(), credits);
      return { account: r.compte, key: r.cle, credits: r.credits };
    }
    case 'create-key':
      return { key: (await creerCle(dependances(), requis(values.account, 'account'))).cle };
    case 'revoke-key':
      return { revoked: (await revoquerCle(dependances(), requis(values.key, 'key'))).revoque };
    case 'add-credits': {
      const credits = entier(values.credits, 'credits');
      const r = await ajouterCredits(dependances(), requis(values.account, 'account'), credits);
      return { account: r.compte, credits: r.credits };
    }
    default:
      return sortir(2, USAGE);
  }
};

try {
  process.stdout.write(`${JSON.stringify(await executer())}\n`);
} catch (erreur) {
  if (erreur instanceof ErreurCompte) sortir(1, erreur.message);
  sortir(1, `admin: ${(erreur as Error).message}`);
}
