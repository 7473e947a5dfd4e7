/**
 * The two conversions the signer needs between encodings: a PEM certificate to the DER bytes COSE's
 * x5chain carries, and an ECDSA signature from DER (KMS, OpenSSL) to the r‖s form COSE requires.
 */
import { X509Certificate } from 'node:crypto';

/** A PEM certificate's DER bytes, as x5chain carries them. */
export function pemVersDer(pem: string): Uint8Array {
  return new Uint8Array(new X509Certificate(pem).raw);
}

/** AWS KMS (and OpenSSL by default) return ECDSA signatures as DER; COSE wants r‖s, 32 bytes each. */
export function signatureDerVersP1363(der: Uint8Array, tailleCoord = 32): Uint8Array {
  const entier = (pos: number): [Uint8Array, number] => {
    if (der[pos] !== 0x02) throw new Error('DER ECDSA: INTEGER expected');
    const len = der[pos + 1]!;
    let v = der.subarray(pos + 2, pos + 2 + len);
    while (v.length > tailleCoord && v[0] === 0) v = v.subarray(1);
    if (v.length > tailleCoord) throw new Error('DER ECDSA: integer too long');
    const out = new Uint8Array(tailleCoord);
    out.set(v, tailleCoord - v.length);
    return [out, pos + 2 + len];
  };
  if (der[0] !== 0x30) throw new Error('DER ECDSA: SEQUENCE expected');
  const debut = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
  const [r, suite] = entier(debut);
  const [s] = entier(suite);
  return Buffer.concat([r, s]);
}
