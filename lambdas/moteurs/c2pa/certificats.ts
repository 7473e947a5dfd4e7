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
import { createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
// For the functions added below (a key made elsewhere): node's own key and certificate objects.

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

/** A new key and a test chain for it (the local stack, the tests). */
export async function creerPkiTest(organisation = 'Retouche Test'): Promise<PkiTest> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return creerPkiTestPour(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), organisation);
}

// ---------------------------------------------------------------------------------------------------
// A key made elsewhere (the deploy-time resource, lambdas/deploiement/cle-c2pa.ts): a test chain for
// it, a certificate request a real CA can answer, and the checks an operator's chain must pass.

/**
 * The extended key usages with which the bundled c2pa-rs (0.91.3, default settings, no trust
 * configuration: the check right after signing that manifeste.ts asks for) accepts a claim signer. Checked here:
 * a leaf with only documentSigning (1.3.6.1.5.5.7.3.36), only c2pa-kp-claimSigning
 * (1.3.6.1.4.1.62558.2.1) or only Microsoft's C2PA usage (1.3.6.1.4.1.311.76.59.1.9) is refused
 * ("certificate missing required EKU") and signing fails; emailProtection passes, alone or with
 * documentSigning. timeStamping and OCSPSigning pass too but are not what a CA issues for signing.
 */
export const EKU_ACCEPTES: Readonly<Record<string, string>> = {
  '1.3.6.1.5.5.7.3.4': 'emailProtection',
  '1.3.6.1.5.5.7.3.8': 'timeStamping',
  '1.3.6.1.5.5.7.3.9': 'OCSPSigning',
};
const EKU_TOUT_USAGE = '2.5.29.37.0';

/**
 * The subject of the signing certificate, as a list of attributes rather than an RFC 4514 string:
 * an organisation name such as "Retouche dev (test, not trusted)" holds a comma.
 */
export const sujetSignataire = (organisation: string): x509.JsonName => [{ CN: [`${organisation} C2PA Signer`] }, { O: [organisation] }, { C: ['FR'] }];

/** The web crypto key pair of a PEM private key (PKCS#8 or SEC1), EC P-256 only. */
async function paireDepuisPem(clePrivee: string): Promise<webcrypto.CryptoKeyPair> {
  const cle = createPrivateKey(clePrivee);
  if (cle.asymmetricKeyType !== 'ec' || cle.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('the C2PA signing key must be an EC P-256 private key');
  }
  const privateKey = await webcrypto.subtle.importKey('pkcs8', cle.export({ type: 'pkcs8', format: 'der' }), EC, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('spki', createPublicKey(cle).export({ type: 'spki', format: 'der' }), EC, true, ['verify']);
  return { privateKey, publicKey };
}

/**
 * A test chain for a key pair made elsewhere: a CA generated on the spot (its private key is dropped
 * once it has signed) issues a leaf for `clePrivee`'s public key, with the extensions c2pa-rs wants
 * (the same set as creerPkiTest's leaf). Results validate, untrusted.
 */
export async function creerPkiTestPour(clePrivee: string, organisation = 'Retouche Test'): Promise<PkiTest> {
  const signataire = await paireDepuisPem(clePrivee);
  const now = new Date();
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const caKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [`${organisation} Root CA`] }, { O: [organisation] }, { C: ['FR'] }],
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
  const leaf = await x509.X509CertificateGenerator.create({
    subject: sujetSignataire(organisation),
    issuer: ca.subjectName,
    notBefore,
    notAfter: yearsFrom(now, 3),
    signingAlgorithm: ES256,
    publicKey: signataire.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([EKU_EMAIL_PROTECTION, EKU_DOCUMENT_SIGNING], false),
      await x509.SubjectKeyIdentifierExtension.create(signataire.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  return { clePrivee, chaine: [leaf.toString('pem'), ca.toString('pem')], autorite: ca.toString('pem') };
}

/**
 * A PKCS#10 certificate request for the key, signed by it (proof of possession), asking for what a
 * C2PA claim signer needs: keyUsage digitalSignature, extendedKeyUsage emailProtection (which the
 * signer requires, see EKU_ACCEPTES) and documentSigning. The CA sets the final subject from what it
 * has validated.
 */
export async function creerCsr(clePrivee: string, sujet: string | x509.JsonName): Promise<string> {
  const keys = await paireDepuisPem(clePrivee);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: sujet,
    keys,
    signingAlgorithm: ES256,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([EKU_EMAIL_PROTECTION, EKU_DOCUMENT_SIGNING], false),
    ],
  });
  return csr.toString('pem');
}

/** The certificates of a PEM text (several blocks, anything between them ignored), in order. */
export const certificatsPem = (texte: string): string[] =>
  [...texte.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => `${m[0]}\n`);

const spki = (cle: KeyObject): Buffer => cle.export({ type: 'spki', format: 'der' });

/** Whether a certificate (PEM) was issued for this private key's public half. */
export const certificatPour = (clePrivee: string, certificat: string): boolean =>
  spki(createPublicKey(createPrivateKey(clePrivee))).equals(spki(new X509Certificate(certificat).publicKey));

/**
 * What would stop c2pa-rs from signing with this chain (leaf first), or a reader from following it,
 * in plain words; empty when it is usable. Checks what the certificates say, not whether the root is
 * on a trust list.
 */
export function problemesChaine(clePrivee: string, chaine: string[], maintenant = new Date()): string[] {
  if (chaine.length === 0) return ['the chain holds no certificate'];
  const problemes: string[] = [];
  let certificats: X509Certificate[];
  try {
    certificats = chaine.map((pem) => new X509Certificate(pem));
  } catch (e) {
    return [`a certificate of the chain does not parse: ${(e as Error).message}`];
  }
  const feuille = certificats[0]!;
  if (!certificatPour(clePrivee, chaine[0]!)) problemes.push('the first certificate was issued for another key');
  if (feuille.ca) problemes.push('the first certificate is a CA certificate: C2PA needs an end-entity certificate');
  if (feuille.checkIssued(feuille)) problemes.push('the first certificate is self-signed: C2PA needs one issued by a CA');
  if (new Date(feuille.validTo) <= maintenant) problemes.push(`the first certificate expired on ${feuille.validTo}`);
  if (new Date(feuille.validFrom) > maintenant) problemes.push(`the first certificate is not valid before ${feuille.validFrom}`);

  const lue = new x509.X509Certificate(chaine[0]!);
  const ku = lue.getExtension(x509.KeyUsagesExtension);
  if (!ku || !(ku.usages & x509.KeyUsageFlags.digitalSignature)) problemes.push('the first certificate lacks keyUsage digitalSignature');
  if (ku && ku.usages & x509.KeyUsageFlags.keyCertSign) problemes.push('the first certificate has keyUsage keyCertSign, which C2PA refuses on a signer');
  const eku = (lue.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? []).map(String);
  if (eku.includes(EKU_TOUT_USAGE)) problemes.push('the first certificate has anyExtendedKeyUsage, which C2PA refuses');
  if (!eku.some((oid) => oid in EKU_ACCEPTES)) {
    problemes.push(
      `the first certificate has no extendedKeyUsage the signer accepts: ask the CA for emailProtection (documentSigning alone is refused by c2pa-rs); it has ${eku.join(', ') || 'none'}`,
    );
  }
  if (!lue.getExtension(x509.AuthorityKeyIdentifierExtension)) problemes.push('the first certificate has no authorityKeyIdentifier');

  for (let i = 0; i + 1 < certificats.length; i++) {
    const [c, emetteur] = [certificats[i]!, certificats[i + 1]!];
    if (!c.checkIssued(emetteur) || !c.verify(emetteur.publicKey)) {
      problemes.push(
        `certificate ${i + 1} (${c.subject.replace(/\n/g, ', ')}) was not issued by certificate ${i + 2}: give the chain leaf first, then each issuer`,
      );
    }
  }
  return problemes;
}

/** Whether a certificate's subject is exactly this name (attribute by attribute, as DER). */
export const sujetEst = (certificat: string, sujet: x509.JsonName): boolean =>
  Buffer.from(new x509.X509Certificate(certificat).subjectName.toArrayBuffer()).equals(Buffer.from(new x509.Name(sujet).toArrayBuffer()));

/** A certificate's subject as one readable line, e.g. "CN=Retouche C2PA Signer, O=Retouche, C=FR" (values unescaped). */
export const sujetLisible = (certificat: string): string =>
  new x509.X509Certificate(certificat).subjectName
    .toJSON()
    .flatMap((attribut) => Object.entries(attribut).flatMap(([type, valeurs]) => valeurs.map((v) => `${type}=${v}`)))
    .join(', ');
