/**
 * The deploy-time C2PA key (lambdas/deploiement/cle-c2pa.ts): the private key goes into its secret
 * and nowhere else, a test chain makes results that c2pa-rs validates, an operator's chain is taken
 * only when it was issued for the stored key, and a new Generation rotates the key.
 */
import { generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { WasmReader } from '@contentauth/c2pa-wasm';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGE_AUTRE_CLE,
  MESSAGE_NOUVELLE_CLE,
  traiterCleC2pa,
  type ContenuSecret,
  type EvenementCleC2pa,
  type ProprietesCleC2pa,
} from '../../lambdas/deploiement/cle-c2pa';
import { creerPkiTest, problemesChaine } from '../../lambdas/moteurs/c2pa/certificats';
import { lireCleC2pa } from '../../lambdas/moteurs/c2pa/marquage';
import { signerC2pa } from '../../lambdas/moteurs/c2pa/signature';
import { initialiserC2pa } from '../../lambdas/moteurs/c2pa/wasm';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:c2pa';
const ORGANISATION = 'Retouche unit (test, not trusted)';
const proprietes = (p: ProprietesCleC2pa = {}): ProprietesCleC2pa => ({ Secret: SECRET, Generation: '1', Organisation: ORGANISATION, ...p });

const evenement = (RequestType: EvenementCleC2pa['RequestType'], extra: Partial<EvenementCleC2pa> = {}): EvenementCleC2pa => ({
  RequestType,
  ResponseURL: 'https://cloudformation-response.invalid/',
  StackId: 'pile',
  RequestId: 'requete',
  LogicalResourceId: 'CleC2pa',
  ResourceProperties: proprietes(),
  ...extra,
});

/**
 * Secrets Manager as far as the resource uses it: versions move AWSCURRENT → AWSPREVIOUS on each put.
 * A new secret holds the random string CDK's Secret generates.
 */
const secretSimule = () => {
  const sm = mockClient(SecretsManagerClient);
  const etat = { courant: 'kB8^a random password from CDK' as string, precedent: undefined as string | undefined };
  sm.on(GetSecretValueCommand).callsFake((input: { SecretId: string; VersionStage?: string }) => {
    expect(input.SecretId).toBe(SECRET);
    const valeur = input.VersionStage === 'AWSPREVIOUS' ? etat.precedent : etat.courant;
    if (valeur === undefined) throw Object.assign(new Error("Secrets Manager can't find the specified secret value"), { name: 'ResourceNotFoundException' });
    return { SecretString: valeur };
  });
  sm.on(PutSecretValueCommand).callsFake((input: { SecretId: string; SecretString: string }) => {
    expect(input.SecretId).toBe(SECRET);
    etat.precedent = etat.courant;
    etat.courant = input.SecretString;
    return {};
  });
  return {
    sm,
    etat,
    client: new SecretsManagerClient({ region: 'eu-west-1' }),
    contenu: (): ContenuSecret => JSON.parse(etat.courant) as ContenuSecret,
    ecritures: () => sm.commandCalls(PutSecretValueCommand).length,
  };
};

let simule: ReturnType<typeof secretSimule>;
afterEach(() => simule?.sm.restore());

const image = () =>
  sharp({ create: { width: 24, height: 16, channels: 3, background: '#7aa0c8' } })
    .jpeg()
    .toBuffer();

/** Signs an image with what the secret holds, exactly as the tool function would, and reads it back with c2pa-rs. */
const signerEtLire = async (texteSecret: string) => {
  const cle = lireCleC2pa(texteSecret);
  const signee = await signerC2pa(await image(), 'jpeg', {
    ...cle,
    outil: 'ciel',
    moteur: 'bedrock',
    nature: { action: 'c2pa.edited', source: 'compositeWithTrainedAlgorithmicMedia' },
    entree: { hash: Buffer.alloc(32, 7), format: 'jpeg' },
  });
  const lecteur = await WasmReader.fromBytes('image/jpeg', signee);
  try {
    return JSON.parse(lecteur.json()) as {
      validation_state: string;
      validation_results?: { activeManifest?: { failure?: { code: string }[] } };
      active_manifest: string;
      manifests: Record<string, { signature_info: { issuer?: string; common_name?: string } }>;
    };
  } finally {
    lecteur.free();
  }
};

/** A certificate for `clePrivee` from a CA of the test's own, the way a real CA would answer the CSR. */
const chaineOperateur = async (clePrivee: string, options: { eku?: string[]; usages?: number } = {}): Promise<string> => {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  const autorite = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Operator CA, O=Example Trust Services, C=FR',
    keys: autorite,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(autorite.publicKey),
    ],
  });
  const { createPrivateKey, createPublicKey } = await import('node:crypto');
  const publique = await webcrypto.subtle.importKey('spki', createPublicKey(createPrivateKey(clePrivee)).export({ type: 'spki', format: 'der' }), EC, true, [
    'verify',
  ]);
  const feuille = await x509.X509CertificateGenerator.create({
    subject: 'CN=Retouche SAS C2PA, O=Retouche SAS, C=FR',
    issuer: ca.subject,
    publicKey: publique,
    signingKey: autorite.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(options.usages ?? x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(options.eku ?? ['1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.36'], false),
      await x509.AuthorityKeyIdentifierExtension.create(autorite.publicKey),
    ],
  });
  // As a CA delivers it: one file, leaf first, text around the blocks.
  return `Subject: Retouche SAS\n${feuille.toString('pem')}\n\nIssuer\n${ca.toString('pem')}\n`;
};

beforeAll(() => initialiserC2pa());

describe('C2PA key custom resource', () => {
  it('creates a P-256 key and a test chain for it in the secret; results signed with them validate; only public things come out', async () => {
    simule = secretSimule();
    const reponse = await traiterCleC2pa(simule.client, evenement('Create'));
    expect(reponse.Status).toBe('SUCCESS');
    expect(simule.ecritures()).toBe(1);
    const contenu = simule.contenu();
    expect(contenu).toEqual({
      clePrivee: expect.stringContaining('BEGIN PRIVATE KEY'),
      chaine: [expect.any(String), expect.any(String)],
      generation: '1',
      test: true,
    });
    expect(problemesChaine(contenu.clePrivee, contenu.chaine)).toEqual([]);

    // Nothing secret in what CloudFormation receives (it ends up in the stack's outputs and events).
    expect(JSON.stringify(reponse)).not.toContain('PRIVATE KEY');
    expect(Object.keys(reponse.Data!).sort()).toEqual(['Csr', 'Empreinte', 'Signataire', 'Test']);
    expect(reponse.Data!.Empreinte).toMatch(/^[0-9a-f]{16}$/);
    expect(reponse.Data!.Test).toBe('true');
    expect(reponse.Data!.Signataire).toBe(`CN=${ORGANISATION} C2PA Signer, O=${ORGANISATION}, C=FR`);
    expect(reponse.PhysicalResourceId).toMatch(/^retouche-c2pa-[0-9a-f]{16}$/);

    // The CSR is for the stored key, signed by it, and asks for what a C2PA signer needs.
    const csr = new x509.Pkcs10CertificateRequest(reponse.Data!.Csr!);
    expect(await csr.verify()).toBe(true);
    const { createPrivateKey, createPublicKey } = await import('node:crypto');
    expect(Buffer.from(csr.publicKey.rawData)).toEqual(createPublicKey(createPrivateKey(contenu.clePrivee)).export({ type: 'spki', format: 'der' }));
    expect(csr.subjectName.getField('O')).toEqual([ORGANISATION]);
    const demandees = csr.extensions;
    expect(demandees.map((x) => [x.type, x.critical])).toEqual([
      ['2.5.29.15', true],
      ['2.5.29.37', false],
    ]);
    expect((demandees[0] as x509.KeyUsagesExtension).usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect((demandees[1] as x509.ExtendedKeyUsageExtension).usages.map(String)).toEqual(['1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.36']);

    // The tool function's view: the secret as marquage.ts reads it signs a result c2pa-rs validates (untrusted: a test CA).
    const lu = await signerEtLire(simule.etat.courant);
    expect(lu.validation_state).toBe('Valid');
    expect(lu.validation_results?.activeManifest?.failure?.map((f) => f.code)).toEqual(['signingCredential.untrusted']);
    expect(lu.manifests[lu.active_manifest]!.signature_info).toMatchObject({ issuer: ORGANISATION, common_name: `${ORGANISATION} C2PA Signer` });
  });

  it('keeps the key and its test chain on an update with the same Generation, writing nothing', async () => {
    simule = secretSimule();
    const creation = await traiterCleC2pa(simule.client, evenement('Create'));
    const avant = simule.etat.courant;
    const mise = await traiterCleC2pa(
      simule.client,
      evenement('Update', { PhysicalResourceId: creation.PhysicalResourceId, OldResourceProperties: proprietes() }),
    );
    expect(mise.Status).toBe('SUCCESS');
    expect(mise.PhysicalResourceId).toBe(creation.PhysicalResourceId);
    expect(simule.ecritures()).toBe(1);
    expect(simule.etat.courant).toBe(avant);
    expect(mise.Data!.Test).toBe('true');
    expect(mise.Data!.Empreinte).toBe(creation.Data!.Empreinte);

    // Another name for the test certificates: same key, a new test chain carrying it.
    const renomme = await traiterCleC2pa(
      simule.client,
      evenement('Update', { ResourceProperties: proprietes({ Organisation: 'Retouche renamed' }), OldResourceProperties: proprietes() }),
    );
    expect(renomme.PhysicalResourceId).toBe(creation.PhysicalResourceId);
    expect(simule.contenu().clePrivee).toBe((JSON.parse(avant) as ContenuSecret).clePrivee);
    expect(renomme.Data!.Signataire).toBe('CN=Retouche renamed C2PA Signer, O=Retouche renamed, C=FR');
  });

  it("stores an operator's chain issued for the stored key; signing with it validates; removing it goes back to a test chain", async () => {
    simule = secretSimule();
    const creation = await traiterCleC2pa(simule.client, evenement('Create'));
    const cle = simule.contenu().clePrivee;
    const texte = await chaineOperateur(cle);

    const avecChaine = await traiterCleC2pa(
      simule.client,
      evenement('Update', { ResourceProperties: proprietes({ Chaine: texte }), OldResourceProperties: proprietes() }),
    );
    expect(avecChaine).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: creation.PhysicalResourceId });
    expect(avecChaine.Data!.Test).toBe('false');
    // What signs changed: so does the digest the tool function's configuration carries.
    expect(avecChaine.Data!.Empreinte).not.toBe(creation.Data!.Empreinte);
    expect(avecChaine.Data!.Signataire).toBe('CN=Retouche SAS C2PA, O=Retouche SAS, C=FR');
    const contenu = simule.contenu();
    expect(contenu.clePrivee).toBe(cle);
    expect(contenu.test).toBe(false);
    // Just the two certificates, leaf first, without the text around them.
    expect(contenu.chaine).toHaveLength(2);
    expect(new X509Certificate(contenu.chaine[0]!).subject).toContain('CN=Retouche SAS C2PA');
    expect(new X509Certificate(contenu.chaine[1]!).subject).toContain('CN=Operator CA');
    expect(contenu.chaine.join('')).not.toMatch(/Subject:|Issuer/);
    const lu = await signerEtLire(simule.etat.courant);
    expect(lu.validation_state).toBe('Valid');
    expect(lu.manifests[lu.active_manifest]!.signature_info).toMatchObject({ issuer: 'Retouche SAS', common_name: 'Retouche SAS C2PA' });

    // The same chain again: nothing to write.
    const ecritures = simule.ecritures();
    await traiterCleC2pa(
      simule.client,
      evenement('Update', { ResourceProperties: proprietes({ Chaine: texte, Organisation: 'x' }), OldResourceProperties: proprietes({ Chaine: texte }) }),
    );
    expect(simule.ecritures()).toBe(ecritures);

    // c2paChaine taken out of the context: back to a test chain, same key.
    const sansChaine = await traiterCleC2pa(simule.client, evenement('Update', { OldResourceProperties: proprietes({ Chaine: texte }) }));
    expect(sansChaine.Data!.Test).toBe('true');
    expect(simule.contenu()).toMatchObject({ clePrivee: cle, test: true });
    expect((await signerEtLire(simule.etat.courant)).validation_state).toBe('Valid');
  });

  it('refuses a chain issued for another key with a reason that points at the CSR, and writes nothing', async () => {
    simule = secretSimule();
    await traiterCleC2pa(simule.client, evenement('Create'));
    const avant = simule.etat.courant;
    const autre = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const texte = await chaineOperateur(autre.privateKey);
    const maj = evenement('Update', { ResourceProperties: proprietes({ Chaine: texte }), OldResourceProperties: proprietes() });
    await expect(traiterCleC2pa(simule.client, maj)).rejects.toThrow(MESSAGE_AUTRE_CLE);
    expect(MESSAGE_AUTRE_CLE).toMatch(/issued for another key.*CSR in the stack output C2paCsr/);
    expect(simule.etat.courant).toBe(avant);

    // The CloudFormation answer: FAILED with that reason (the handler's own response path).
    const { handler } = await import('../../lambdas/deploiement/cle-c2pa');
    const envois: { url: string; corps: Record<string, unknown> }[] = [];
    const fetchAvant = globalThis.fetch;
    globalThis.fetch = (async (url: string, init: { body: string }) => {
      envois.push({ url, corps: JSON.parse(init.body) });
      return new Response(null, { status: 200 });
    }) as unknown as typeof fetch;
    try {
      await handler(maj);
    } finally {
      globalThis.fetch = fetchAvant;
    }
    expect(envois).toEqual([
      {
        url: 'https://cloudformation-response.invalid/',
        corps: {
          Status: 'FAILED',
          Reason: MESSAGE_AUTRE_CLE,
          PhysicalResourceId: 'echec',
          StackId: 'pile',
          RequestId: 'requete',
          LogicalResourceId: 'CleC2pa',
        },
      },
    ]);
    expect(simule.etat.courant).toBe(avant);
  });

  it('refuses at first deploy a chain that cannot fit the key just made, and a chain a C2PA signer cannot use', async () => {
    simule = secretSimule();
    const quelconque = await chaineOperateur(
      generateKeyPairSync('ec', {
        namedCurve: 'P-256',
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey,
    );
    await expect(traiterCleC2pa(simule.client, evenement('Create', { ResourceProperties: proprietes({ Chaine: quelconque }) }))).rejects.toThrow(
      MESSAGE_NOUVELLE_CLE,
    );
    expect(MESSAGE_NOUVELLE_CLE).toContain('deploy once without c2paChaine');
    expect(simule.ecritures()).toBe(0);

    await traiterCleC2pa(simule.client, evenement('Create'));
    const cle = simule.contenu().clePrivee;
    const maj = (Chaine: string) => evenement('Update', { ResourceProperties: proprietes({ Chaine }), OldResourceProperties: proprietes() });
    // A TLS server certificate: the right key, the wrong usage.
    await expect(traiterCleC2pa(simule.client, maj(await chaineOperateur(cle, { eku: ['1.3.6.1.5.5.7.3.1'] })))).rejects.toThrow(
      'cannot sign C2PA claims: the first certificate has no extendedKeyUsage the signer accepts: ask the CA for emailProtection (documentSigning alone is refused by c2pa-rs); it has 1.3.6.1.5.5.7.3.1',
    );
    // documentSigning alone: c2pa-rs as bundled refuses it when signing, so every result would fail; refused here first.
    const documentSeul = await chaineOperateur(cle, { eku: ['1.3.6.1.5.5.7.3.36'] });
    await expect(traiterCleC2pa(simule.client, maj(documentSeul))).rejects.toThrow(
      /no extendedKeyUsage the signer accepts.*it has 1\.3\.6\.1\.5\.5\.7\.3\.36$/,
    );
    const [feuilleDoc, caDoc] = documentSeul.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    await expect(
      signerC2pa(await image(), 'jpeg', {
        clePrivee: cle,
        chaine: [feuilleDoc!, caDoc!],
        outil: 'ciel',
        moteur: 'local',
        nature: { action: 'c2pa.edited', source: 'compositeSynthetic' },
        entree: { hash: Buffer.alloc(32), format: 'jpeg' },
      }),
    ).rejects.toThrow(/missing required EKU/);
    await expect(traiterCleC2pa(simule.client, maj(await chaineOperateur(cle, { usages: x509.KeyUsageFlags.keyEncipherment })))).rejects.toThrow(
      /lacks keyUsage digitalSignature/,
    );
    // The CA first, the leaf second: refused, with the order to use.
    const [feuille, ca] = (await chaineOperateur(cle)).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    await expect(traiterCleC2pa(simule.client, maj(`${ca}\n${feuille}`))).rejects.toThrow(
      'the certificate issued for this key is number 2 in c2paChaine: give the chain leaf first, then each issuer',
    );
    await expect(traiterCleC2pa(simule.client, maj('no certificate here'))).rejects.toThrow(/holds no PEM certificate/);
    expect(simule.ecritures()).toBe(1);
  });

  it('rotates the key on a new Generation, and a rollback to the old Generation gets the old key back', async () => {
    simule = secretSimule();
    const creation = await traiterCleC2pa(simule.client, evenement('Create'));
    const ancienne = simule.contenu().clePrivee;
    const texte = await chaineOperateur(ancienne);
    await traiterCleC2pa(simule.client, evenement('Update', { ResourceProperties: proprietes({ Chaine: texte }), OldResourceProperties: proprietes() }));

    // New Generation, chain still configured: it fits the old key only, so the update fails and writes nothing.
    await expect(
      traiterCleC2pa(
        simule.client,
        evenement('Update', { ResourceProperties: proprietes({ Generation: '2', Chaine: texte }), OldResourceProperties: proprietes({ Chaine: texte }) }),
      ),
    ).rejects.toThrow(MESSAGE_NOUVELLE_CLE);
    expect(simule.contenu()).toMatchObject({ clePrivee: ancienne, generation: '1', test: false });

    // New Generation without the chain: a new key, a test chain, a new CSR and physical id.
    const rotation = await traiterCleC2pa(
      simule.client,
      evenement('Update', { ResourceProperties: proprietes({ Generation: '2' }), OldResourceProperties: proprietes({ Chaine: texte }) }),
    );
    const nouvelle = simule.contenu();
    expect(nouvelle.clePrivee).not.toBe(ancienne);
    expect(nouvelle).toMatchObject({ generation: '2', test: true });
    expect(rotation.PhysicalResourceId).not.toBe(creation.PhysicalResourceId);
    expect(rotation.Data!.Test).toBe('true');
    expect(rotation.Data!.Empreinte).not.toBe(creation.Data!.Empreinte);
    const publiqueCsr = (pem: string) => Buffer.from(new x509.Pkcs10CertificateRequest(pem).publicKey.rawData).toString('hex');
    expect(publiqueCsr(rotation.Data!.Csr!)).not.toBe(publiqueCsr(creation.Data!.Csr!));
    expect((await signerEtLire(simule.etat.courant)).validation_state).toBe('Valid');

    // Another resource of the same deploy failed: CloudFormation rolls this one back to Generation 1 and its chain.
    const retour = await traiterCleC2pa(
      simule.client,
      evenement('Update', { ResourceProperties: proprietes({ Chaine: texte }), OldResourceProperties: proprietes({ Generation: '2' }) }),
    );
    expect(retour).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: creation.PhysicalResourceId, Data: { Test: 'false' } });
    expect(simule.contenu()).toMatchObject({ clePrivee: ancienne, generation: '1', test: false });

    // Deletes touch nothing (the secret is its own resource).
    const ecritures = simule.ecritures();
    expect(await traiterCleC2pa(simule.client, evenement('Delete', { PhysicalResourceId: 'x' }))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'x' });
    expect(simule.ecritures()).toBe(ecritures);
  });

  it('the local test PKI still works as before (creerPkiTest is unchanged)', async () => {
    const pki = await creerPkiTest('Retouche local test (not trusted)');
    expect(problemesChaine(pki.clePrivee, pki.chaine)).toEqual([]);
  });
});
