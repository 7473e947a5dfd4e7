/**
 * The deploy-time pieces of the 24-hour links: the key-pair custom resource and the API's link
 * checker (the LocalStack fallback of CloudFront).
 */
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { objetsSignes } from '../../lambdas/core/infra/objets';
import { describe, expect, it } from 'vitest';
import { creerSignataire, verifierLien } from '../../lambdas/core/infra/liens';
import { dispositionPieceJointe } from '../../lambdas/core/modele/disposition';
import { traiterCleLiens, type EvenementCleLiens } from '../../lambdas/deploiement/cle-liens';
import { creer as creerFichier } from '../../lambdas/http/fichier';

const evenement = (RequestType: EvenementCleLiens['RequestType'], extra: Partial<EvenementCleLiens> = {}): EvenementCleLiens => ({
  RequestType,
  ResponseURL: 'https://cloudformation-response.invalid/',
  StackId: 'pile',
  RequestId: 'requete',
  LogicalResourceId: 'CleLiens',
  ResourceProperties: { Secret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cle', Generation: '1' },
  ...extra,
});

describe('link key custom resource', () => {
  it('creates a key pair: private key into the secret, public key and a stable id out, and links verify with them', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(PutSecretValueCommand).resolves({});
    const reponse = await traiterCleLiens(new SecretsManagerClient({}), evenement('Create'));
    expect(reponse.Status).toBe('SUCCESS');
    const privee = sm.commandCalls(PutSecretValueCommand)[0]!.args[0].input.SecretString!;
    expect(privee).toContain('BEGIN PRIVATE KEY');
    expect(reponse.Data!.ClePublique).toContain('BEGIN PUBLIC KEY');
    expect(JSON.stringify(reponse)).not.toContain('PRIVATE KEY');
    expect(reponse.PhysicalResourceId).toBe(reponse.Data!.IdCle);

    const base = 'https://d111.cloudfront.net';
    const lien = creerSignataire({ base, idCle: reponse.Data!.IdCle!, clePrivee: privee })('resultats/a/b/01-ciel.jpg');
    expect(verifierLien(lien.url, { [reponse.Data!.IdCle!]: reponse.Data!.ClePublique! }, base)).toEqual({ valide: true, cle: 'resultats/a/b/01-ciel.jpg' });
    sm.restore();
  });

  it('keeps the key on an update that does not change the generation, rotates it when it does, ignores deletes', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(PutSecretValueCommand).resolves({});
    const creation = await traiterCleLiens(new SecretsManagerClient({}), evenement('Create'));
    const privee = sm.commandCalls(PutSecretValueCommand)[0]!.args[0].input.SecretString!;
    sm.on(GetSecretValueCommand).resolves({ SecretString: privee });

    const memeCle = await traiterCleLiens(
      new SecretsManagerClient({}),
      evenement('Update', { PhysicalResourceId: creation.PhysicalResourceId, OldResourceProperties: evenement('Create').ResourceProperties }),
    );
    expect(memeCle.Data!.ClePublique).toBe(creation.Data!.ClePublique);
    expect(memeCle.PhysicalResourceId).toBe(creation.PhysicalResourceId);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(1);

    const rotation = await traiterCleLiens(
      new SecretsManagerClient({}),
      evenement('Update', { OldResourceProperties: { ...evenement('Create').ResourceProperties, Generation: '0' } }),
    );
    expect(rotation.Data!.ClePublique).not.toBe(creation.Data!.ClePublique);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(2);

    const suppression = await traiterCleLiens(new SecretsManagerClient({}), evenement('Delete', { PhysicalResourceId: 'x' }));
    expect(suppression).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'x' });
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(2);
    sm.restore();
  });
});

describe('GET /fichiers/... (links checked by the API when CloudFront is not deployed)', async () => {
  const sm = mockClient(SecretsManagerClient);
  sm.on(PutSecretValueCommand).resolves({});
  const { Data } = await traiterCleLiens(new SecretsManagerClient({}), evenement('Create'));
  const privee = sm.commandCalls(PutSecretValueCommand)[0]!.args[0].input.SecretString!;
  sm.restore();
  const base = 'https://api.example.test/v1/api/v1/fichiers';
  const maintenant = new Date('2026-11-23T10:00:00Z');
  const handler = creerFichier(() => ({
    objets: objetsSignes({
      bucket: 'fichiers',
      region: 'eu-west-1',
      cheminStyle: false,
      identifiants: { accessKeyId: 'AKIDEXEMPLE', secretAccessKey: 'secret' },
    }),
    base,
    clesPubliques: { [Data!.IdCle!]: Data!.ClePublique! },
    horloge: () => maintenant,
  }));
  const appeler = (url: string) => {
    const u = new URL(url);
    const event = {
      httpMethod: 'GET',
      path: `/api/v1/fichiers/${u.pathname.split('/fichiers/')[1]}`,
      headers: {},
      pathParameters: { proxy: decodeURIComponent(u.pathname.split('/fichiers/')[1]!) },
      multiValueQueryStringParameters: Object.fromEntries([...u.searchParams.keys()].map((k) => [k, u.searchParams.getAll(k)])),
    } as unknown as APIGatewayProxyEvent;
    return handler(event, {} as Context);
  };
  const signer = creerSignataire({ base, idCle: Data!.IdCle!, clePrivee: privee }, () => maintenant);

  it('redirects a valid download link to a one-minute S3 URL with its signed name, a display link to one without', async () => {
    const { url } = signer('resultats/c/t/01-salon été-ciel.jpg', '01-salon "été"-ciel.jpg');
    const reponse = await appeler(url);
    expect(reponse.statusCode).toBe(302);
    const cible = new URL(reponse.headers!.Location as string);
    expect(cible.pathname).toContain('/resultats/c/t/01-salon%20%C3%A9t%C3%A9-ciel.jpg');
    expect(cible.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(cible.searchParams.get('response-content-disposition')).toBe(dispositionPieceJointe('01-salon "été"-ciel.jpg'));

    const affichage = await appeler(signer('resultats/c/t/01-salon été-ciel.jpg').url);
    expect(affichage.statusCode).toBe(302);
    const cibleAffichage = new URL(affichage.headers!.Location as string);
    expect(cibleAffichage.pathname).toBe(cible.pathname);
    expect(cibleAffichage.searchParams.has('response-content-disposition')).toBe(false);
  });

  it('refuses a tampered, re-targeted or unsigned link with 403 and the Erreur body', async () => {
    const { url } = signer('resultats/c/t/01-ciel.jpg', '01-ciel.jpg');
    for (const mauvais of [
      url.replace('01-ciel', '02-ciel'),
      url.replace(/Signature=[^&]+/, 'Signature=AAAA'),
      url.replace(/Expires=\d+/, (e) => `Expires=${Number(e.split('=')[1]) + 3600}`),
      url.split('?')[0]!,
      // Another name than the one signed, or a display link turned into a download one.
      signer('resultats/c/t/01-ciel.jpg', 'a.jpg').url.replace('a.jpg', 'b.jpg'),
      `${signer('resultats/c/t/01-ciel.jpg').url}&response-content-disposition=attachment`,
    ]) {
      const reponse = await appeler(mauvais);
      expect(reponse.statusCode, mauvais).toBe(403);
      expect(JSON.parse(reponse.body).error.code).toBe('forbidden');
    }
  });
});
