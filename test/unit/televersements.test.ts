/**
 * What only AWS does and the local S3 does not: a missing object answers 403 to a role that may not
 * list the bucket. It must read as "not arrived" (a 422 that says so), never as a 500.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { verifierTeleversements } from '../../lambdas/core/domaine/televersements';
import { clientDocument } from '../../lambdas/core/infra/client-dynamodb';
import { objetsSignes } from '../../lambdas/core/infra/objets';
import { refusDe } from '../support/refus';

const id = '5f0c2a8e-0000-4000-8000-000000000001';
const compte = 'compte-1';

const dependances = (statutS3: number) => {
  const ddb = clientDocument(new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }));
  const enregistrement = {
    id,
    compte,
    cle: `televersements/${compte}/${id}`,
    nom: 'a.jpg',
    type_contenu: 'image/jpeg',
    taille: 10,
    statut: 'attendu',
    cree_le: '2026-11-23T10:00:00.000Z',
    utilisable_jusqua: '2026-11-24T10:00:00.000Z',
  };
  // The upload's record exists; no job carries its id yet.
  mockClient(ddb)
    .on(GetCommand)
    .callsFake((entree: { Key: { pk: string } }) => ({ Item: entree.Key.pk === `TELEVERSEMENT#${id}` ? enregistrement : undefined }));
  // S3 as AWS answers: an XML error with its code.
  const code = statutS3 === 403 ? 'AccessDenied' : 'InternalError';
  const objets = objetsSignes({
    bucket: 'b',
    region: 'eu-west-1',
    cheminStyle: false,
    identifiants: { accessKeyId: 'x', secretAccessKey: 'y' },
    gestionnaire: {
      handle: async () => ({
        response: {
          statusCode: statutS3,
          reason: '',
          headers: { 'content-type': 'application/xml' },
          body: Buffer.from(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>…</Message></Error>`),
        },
      }),
    } as unknown as NonNullable<Parameters<typeof objetsSignes>[0]['gestionnaire']>,
  });
  return { ddb, table: 't', objets, horloge: () => new Date('2026-11-23T12:00:00.000Z') };
};

describe('an upload that never arrived, on AWS', () => {
  it('403 from S3 (no ListBucket) is "non_recu", a 422', async () => {
    const d = dependances(403);
    expect(await refusDe(verifierTeleversements(d, compte, [{ index: 0, id, nom: null }]))).toMatchObject({
      statut: 422,
      code: 'invalid_image',
      details: { raison: 'non_recu', index: 0 },
    });
  });

  it('any other S3 failure is not blamed on the client', async () => {
    await expect(verifierTeleversements(dependances(500), compte, [{ index: 0, id, nom: null }])).rejects.toMatchObject({
      name: 'ErreurObjets',
      statut: 500,
      code: 'InternalError',
    });
  });
});
