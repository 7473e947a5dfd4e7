/**
 * The admin CLI (the web site's account pages are out of scope). One JSON line per command.
 *   npm run --silent admin -- create-account --credits N
 *   npm run --silent admin -- create-key --account ID
 *   npm run --silent admin -- revoke-key --key KEY
 *   npm run --silent admin -- add-credits --account ID --credits N
 *   npm run --silent admin -- erase-account --account ID
 *   npm run --silent admin -- check-models --outputs FILE [--lifecycle-only]   (a Bedrock stage, before its first job)
 * It acts on the local stack running with the same RETOUCHE_DATA_DIR, or with `--outputs FILE` on a
 * deployed stage (the file `cdk deploy --outputs-file` writes; AWS credentials from the environment).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { clientS3 } from '../lambdas/core/client-s3';
import { effacerCompte, type DepsEffacement } from '../lambdas/core/effacement';
import { objetsSignes } from '../lambdas/core/objets';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { clientS3Local, objetsLocaux } from './s3';
import { ajouterCredits, creerCle, creerCompte, ErreurCompte, revoquerCle, type DepsComptes } from '../lambdas/core/comptes';
import { lire as lireCompte } from '../lambdas/core/depots/comptes';
import { clientDocument } from '../lambdas/core/dependances';
import { clientDynamoLocal } from './dynamodb';
import { FICHIER_PILE } from './pile';
import { SORTIE_MOTEUR } from '../lambdas/moteurs/bedrock/configuration';
import type { ModelesStage } from './modeles-stage';

const USAGE = `usage: npm run --silent admin -- <command> [--outputs cdk-outputs.json]
  create-account --credits N
  create-key --account ID
  revoke-key --key KEY
  add-credits --account ID --credits N
  erase-account --account ID      all of the account's jobs, batches, uploads and files (not the account)
  check-models --outputs FILE     a Bedrock stage: calls each model once (enabling it for the account) and
                                  reads its lifecycle; exit 1 if one is not ready [--lifecycle-only: no call]`;

const sortir = (code: number, message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        credits: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        outputs: { type: 'string' },
        'lifecycle-only': { type: 'boolean' },
      },
    });
  } catch (erreur) {
    return sortir(2, `${(erreur as Error).message}\n${USAGE}`);
  }
})();

/** What erasing an account needs beyond the table: deleting files, and listing the account's prefixes (operators may). */
const stockage = (): { objets: DepsEffacement['objets']; s3: S3Client; bucket: string } => {
  if (values.outputs) {
    const sorties = JSON.parse(readFileSync(values.outputs, 'utf8')) as Record<string, Record<string, string>>;
    const pile = Object.values(sorties).find((s) => s.BucketName);
    if (!pile?.BucketName) return sortir(1, `${values.outputs} has no BucketName output: is it the file of 'cdk deploy --outputs-file'?`);
    const region = process.env.AWS_REGION ?? /\.execute-api\.([a-z0-9-]+)\./.exec(pile.ApiUrl ?? '')?.[1] ?? sortir(1, "Set AWS_REGION to the stage's region.");
    return {
      objets: objetsSignes({ bucket: pile.BucketName, region, cheminStyle: false, identifiants: defaultProvider() }),
      s3: clientS3(false, { region }),
      bucket: pile.BucketName,
    };
  }
  const pile = lirePileLocale();
  return { objets: objetsLocaux(pile.s3!, pile.bucket!), s3: clientS3Local(pile.s3!), bucket: pile.bucket! };
};

const lister =
  (s3: S3Client, bucket: string) =>
  async (prefixe: string): Promise<string[]> => {
    const cles: string[] = [];
    let suite: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefixe, ContinuationToken: suite }));
      cles.push(...(page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : [])));
      suite = page.NextContinuationToken;
    } while (suite);
    return cles;
  };

const lirePileLocale = (): { dynamodb?: string; table?: string; s3?: string; bucket?: string } => {
  const fichier = join(resolve(process.env.RETOUCHE_DATA_DIR ?? '.retouche'), FICHIER_PILE);
  const pile = existsSync(fichier) ? (JSON.parse(readFileSync(fichier, 'utf8')) as { dynamodb?: string; table?: string; s3?: string; bucket?: string }) : {};
  if (!pile.dynamodb || !pile.table) {
    sortir(
      1,
      `No local stack is running for RETOUCHE_DATA_DIR=${process.env.RETOUCHE_DATA_DIR ?? '.retouche'}: start it with 'npm start' (or pass --outputs for a deployed stage).`,
    );
  }
  return pile;
};

const dependances = (): DepsComptes => {
  if (values.outputs) {
    const sorties = JSON.parse(readFileSync(values.outputs, 'utf8')) as Record<string, Record<string, string>>;
    const pile = Object.values(sorties).find((s) => s.TableName);
    if (!pile?.TableName) sortir(1, `${values.outputs} has no TableName output: is it the file of 'cdk deploy --outputs-file'?`);
    // The stage's region is in its API URL (https://<id>.execute-api.<region>.amazonaws.com/…).
    const region = process.env.AWS_REGION ?? /\.execute-api\.([a-z0-9-]+)\./.exec(pile!.ApiUrl ?? '')?.[1];
    return { ddb: clientDocument(new DynamoDBClient(region ? { region } : {})), table: pile!.TableName!, horloge: () => new Date() };
  }
  const pile = lirePileLocale();
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
    case 'erase-account': {
      const compte = requis(values.account, 'account');
      const d = dependances();
      // An unknown id erases nothing and says so, rather than answer a bilan of zeros.
      if (!(await lireCompte(d, compte))) return sortir(1, `No account ${compte}.`);
      const { objets, s3, bucket } = stockage();
      const bilan = await effacerCompte({ ...d, objets }, compte, lister(s3, bucket));
      // In the CLI's own (English) words, like its other answers.
      return {
        account: bilan.compte,
        erased_at: bilan.efface_le,
        jobs: bilan.travaux,
        batches: bilan.lots,
        uploads: bilan.televersements,
        files: bilan.fichiers,
        erased_when_they_end: bilan.differes,
      };
    }
    case 'check-models': {
      if (!values.outputs) return sortir(2, `check-models needs --outputs (the file of 'cdk deploy --outputs-file')\n${USAGE}`);
      const sorties = JSON.parse(readFileSync(values.outputs, 'utf8')) as Record<string, Record<string, string>>;
      const moteur = Object.values(sorties).find((s) => s[SORTIE_MOTEUR])?.[SORTIE_MOTEUR];
      if (!moteur) return sortir(1, `${values.outputs} has no ${SORTIE_MOTEUR} output: this stage runs the local engine, which calls no model.`);
      // Loaded here only: it brings sharp and the Bedrock clients, which the other commands do not need.
      const { verifierModeles } = await import('./modeles-stage');
      const etats = await verifierModeles(JSON.parse(moteur) as ModelesStage, {}, { appeler: !values['lifecycle-only'] });
      const prets = etats.every((e) => e.ready);
      process.stdout.write(`${JSON.stringify({ ready: prets, models: etats })}\n`);
      process.exit(prets ? 0 : 1);
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
