/**
 * A test PKI for C2PA signing: a self-signed ES256 CA and an ES256 leaf issued by it. The local stack
 * makes one per data folder and dev stages one at deploy time; results signed with it validate
 * ("Valid", untrusted) but only a certificate from a CA on the C2PA trust list makes them "Trusted".
 *
 * c2pa-rs (certificate_profile.rs) rejects, for the certificate that signs a claim:
 *  - a CA certificate (basicConstraints cA=true) and a self-signed one,
 *  - a leaf without an authorityKeyIdentifier,
 *  - a leaf without keyUsage digitalSignature, or with keyCertSign,
 *  - a leaf without an extendedKeyUsage from its allowed list (emailProtection,
 *    documentSigning 1.3.6.1.5.5.7.3.36, ...), or with anyExtendedKeyUsage,
 *  - curves other than P-256/P-384/P-521, unknown critical extensions.
 * Hence a two-level chain even for tests. (@peculiar/x509 resolves its services through tsyringe,
 * which needs the Reflect metadata polyfill.)
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ES256 = { name: 'ECDSA', hash: 'SHA-256' } as const;
const EKU_EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';
const EKU_DOCUMENT_SIGNING = '1.3.6.1.5.5.7.3.36';

/** What signs: the leaf's private key and the chain (leaf first, then its CA). */
export interface CleC2pa {
  /** PKCS#8 PEM, as a Secrets Manager secret holds it. */
  clePrivee: string;
  chaine: string[];
}

export interface PkiTest extends CleC2pa {
  /** The test CA: the trust anchor a reader needs to call results "Trusted". */
  autorite: string;
}

function yearsFrom(d: Date, years: number): Date {
  const r = new Date(d);
  r.setUTCFullYear(r.getUTCFullYear() + years);
  return r;
}

export async function creerPkiTest(orgName = 'Retouche Test'): Promise<PkiTest> {
  const now = new Date();
  // Backdate a little so a clock skew between machines does not make the chain "not yet valid".
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);

  const caKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${orgName} Root CA, O=${orgName}, C=FR`,
    notBefore,
    notAfter: yearsFrom(now, 10),
    signingAlgorithm: ES256,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `CN=${orgName} C2PA Signer, O=${orgName}, C=FR`,
    issuer: ca.subject,
    notBefore,
    notAfter: yearsFrom(now, 3),
    signingAlgorithm: ES256,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([EKU_EMAIL_PROTECTION, EKU_DOCUMENT_SIGNING], false),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey));
  const leafKeyPem = x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');

  return { clePrivee: leafKeyPem, chaine: [leaf.toString('pem'), ca.toString('pem')], autorite: ca.toString('pem') };
}
