/**
 * The stand-in for the template's secrets and custom resources' answers, for the template's run
 * (local/pile-template.ts) and for tests that need a Secrets Manager alone. It is small enough that
 * its protocol and its state (two maps) read best together.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const lireCorps = async (requete: IncomingMessage): Promise<string> => {
  let corps = '';
  for await (const morceau of requete) corps += morceau;
  return corps;
};

/**
 * Secrets Manager (GetSecretValue, PutSecretValue with AWSCURRENT/AWSPREVIOUS) for the template's
 * secrets, each starting with a generated value as CloudFormation's GenerateSecretString gives, and
 * the response URL of custom resources (CloudFormation's pre-signed S3 URL), on one local server.
 */
export const demarrerSecrets = async (arns: string[]) => {
  const secrets = new Map<string, { courant: string; precedent?: string }>(arns.map((a) => [a, { courant: randomBytes(24).toString('base64url') }]));
  const reponses = new Map<string, { Status: string; Reason?: string; Data?: Record<string, string> }>();
  const serveur: Server = createServer(async (req, res) => {
    const corps = await lireCorps(req);
    if (req.method === 'PUT') {
      reponses.set(decodeURIComponent((req.url ?? '').split('/').pop() ?? ''), JSON.parse(corps));
      res.writeHead(200).end();
      return;
    }
    const repondre = (statut: number, contenu: unknown, type?: string) =>
      res.writeHead(statut, { 'content-type': 'application/x-amz-json-1.1', ...(type ? { 'x-amzn-errortype': type } : {}) }).end(JSON.stringify(contenu));
    const cible = String(req.headers['x-amz-target']);
    const entree = JSON.parse(corps || '{}') as { SecretId: string; SecretString?: string; VersionStage?: string };
    const secret = secrets.get(entree.SecretId);
    if (!secret)
      return repondre(400, { __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret.` }, 'ResourceNotFoundException');
    if (cible === 'secretsmanager.GetSecretValue') {
      const valeur = entree.VersionStage === 'AWSPREVIOUS' ? secret.precedent : secret.courant;
      if (valeur === undefined) return repondre(400, { __type: 'ResourceNotFoundException', message: 'no such version' }, 'ResourceNotFoundException');
      return repondre(200, { ARN: entree.SecretId, Name: entree.SecretId.split(':').pop(), SecretString: valeur, VersionId: randomUUID() });
    }
    if (cible === 'secretsmanager.PutSecretValue') {
      secrets.set(entree.SecretId, { courant: entree.SecretString ?? '', precedent: secret.courant });
      return repondre(200, { ARN: entree.SecretId, VersionId: randomUUID() });
    }
    repondre(400, { __type: 'UnknownOperationException', message: cible }, 'UnknownOperationException');
  });
  await new Promise<void>((ok) => serveur.listen(0, '127.0.0.1', ok));
  const endpoint = `http://127.0.0.1:${(serveur.address() as AddressInfo).port}`;
  return { endpoint, secrets, reponses, arreter: () => new Promise<void>((ok) => serveur.close(() => ok())) };
};
