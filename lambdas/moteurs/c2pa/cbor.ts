/**
 * Minimal CBOR (RFC 8949) encoder: enough for a COSE_Sign1, and its output size is exact, which the
 * padding of the COSE_Sign1 needs (cose.ts). Definite lengths only; integer keys are written in the
 * order given (1 then 33, already canonical).
 */

export type Cbor = number | string | Uint8Array | null | Cbor[] | Map<number | string, Cbor> | { tag: number; valeur: Cbor };

function tete(majeur: number, n: number): Uint8Array {
  const m = majeur << 5;
  if (n < 24) return Uint8Array.of(m | n);
  if (n < 0x100) return Uint8Array.of(m | 24, n);
  if (n < 0x10000) return Uint8Array.of(m | 25, n >> 8, n & 0xff);
  if (n <= 0xffffffff) return Uint8Array.of(m | 26, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  throw new RangeError('CBOR: length too large');
}

export function cbor(v: Cbor): Buffer {
  const parts: Uint8Array[] = [];
  const ecrire = (x: Cbor): void => {
    if (x === null) parts.push(Uint8Array.of(0xf6));
    else if (typeof x === 'number') {
      if (!Number.isSafeInteger(x)) throw new TypeError('CBOR: integers only');
      parts.push(x >= 0 ? tete(0, x) : tete(1, -1 - x));
    } else if (typeof x === 'string') {
      const o = Buffer.from(x, 'utf8');
      parts.push(tete(3, o.length), o);
    } else if (x instanceof Uint8Array) parts.push(tete(2, x.length), x);
    else if (Array.isArray(x)) {
      parts.push(tete(4, x.length));
      x.forEach(ecrire);
    } else if (x instanceof Map) {
      parts.push(tete(5, x.size));
      for (const [k, val] of x) {
        ecrire(k);
        ecrire(val);
      }
    } else {
      parts.push(tete(6, x.tag));
      ecrire(x.valeur);
    }
  };
  ecrire(v);
  return Buffer.concat(parts);
}
