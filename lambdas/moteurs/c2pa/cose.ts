/**
 * COSE_Sign1 (RFC 9052) as C2PA 2.x wants it, over the claim c2pa-rs hands to the signer (its "direct
 * COSE handling" mode, see signature.ts): ES256, the certificate chain in the protected header, the
 * payload detached, padded to exactly the size c2pa-rs reserved for it. And the ES256 primitive it
 * signs with.
 */
import { createPrivateKey, sign as signNode, type KeyObject } from 'node:crypto';
import { cbor, type Cbor } from './cbor';

/**
 * The signing primitive: ECDSA P-256 / SHA-256 over `donnees`, returned as raw r‖s (64 bytes, IEEE P1363,
 * the form COSE requires). With a PEM key this is node:crypto; with AWS KMS it is a `Sign` call
 * (ECDSA_SHA_256, MessageType RAW) whose DER result goes through `signatureDerVersP1363`.
 */
export type SignatureEs256 = (donnees: Uint8Array) => Promise<Uint8Array>;

const COSE_ALG = 1;
const COSE_X5CHAIN = 33; // RFC 9360
const ES256 = -7;
const TAG_COSE_SIGN1 = 18;

/**
 * Room reserved in the manifest for the signature box. Must hold the COSE_Sign1: protected header
 * (alg + the certificate chain, about 0.5-2 KB), 64-byte signature, CBOR framing. Fixed per chain, so
 * computed from it; the margin is filled with a zero `pad` (the padding field c2pa-rs itself uses).
 */
export function tailleReservee(chaineDer: Uint8Array[]): number {
  return chaineDer.reduce((n, c) => n + c.length, 0) + 512;
}

/**
 * Builds the tagged COSE_Sign1 over the claim (detached payload), exactly `taille` bytes long.
 * x5chain goes in the protected header: C2PA 2.x requires the signing certificate to be covered
 * by the signature.
 */
export async function coseSign1(claim: Uint8Array, chaineDer: Uint8Array[], signature: SignatureEs256, taille: number): Promise<Uint8Array> {
  const protege = cbor(
    new Map<number, Cbor>([
      [COSE_ALG, ES256],
      [COSE_X5CHAIN, chaineDer.length === 1 ? chaineDer[0]! : chaineDer],
    ]),
  );
  // Sig_structure: ["Signature1", body_protected, external_aad (empty), payload]
  const aSigner = cbor(['Signature1', protege, new Uint8Array(0), claim]);
  const sig = await signature(aSigner);
  if (sig.length !== 64) throw new Error(`ES256 signature must be 64 bytes r‖s (got ${sig.length}); convert DER with signatureDerVersP1363`);

  const assembler = (nonProtege: Map<string, Cbor>): Buffer => cbor({ tag: TAG_COSE_SIGN1, valeur: [protege, nonProtege, null, sig] });

  // Sizes: "pad" key = 4 bytes, "pad2" = 5; a byte string of n bytes costs n + its head (1, 2, 3 or 5).
  // Some totals cannot be reached with one field (head sizes jump), hence the optional empty "pad2".
  const base = assembler(new Map()).length;
  for (const avecPad2 of [false, true]) {
    const reste = taille - base - 4 - (avecPad2 ? 6 : 0);
    for (const n of [reste - 1, reste - 2, reste - 3, reste - 5]) {
      if (n < 0) continue;
      const champs = new Map<string, Cbor>([['pad', new Uint8Array(n)]]);
      if (avecPad2) champs.set('pad2', new Uint8Array(0));
      const cose = assembler(champs);
      if (cose.length === taille) return cose;
    }
  }
  throw new Error(`COSE_Sign1 (${base} bytes without padding) does not fit the ${taille} bytes reserved`);
}

/** A signer over a PEM key held in memory (e.g. read from Secrets Manager at cold start). */
export function signataireCle(clePem: string | KeyObject): SignatureEs256 {
  const cleSignature = typeof clePem === 'string' ? createPrivateKey(clePem) : clePem;
  if (cleSignature.asymmetricKeyType !== 'ec' || cleSignature.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('C2PA ES256 needs an EC P-256 private key');
  }
  return async (donnees) => signNode('sha256', donnees, { key: cleSignature, dsaEncoding: 'ieee-p1363' });
}
