/**
 * The one browser API the c2pa-wasm builder needs that Node lacks (FileReaderSync), stood in for:
 * installed once, when this module loads, for the Blobs signature.ts gives the builder.
 */

/**
 * The builder reads its source with `new FileReaderSync().readAsArrayBuffer(blob)` (and `blob.slice()`
 * for sources over 50 MB): browser-worker APIs. Node's Blob can only be read asynchronously, so the
 * source is wrapped in a Blob that keeps its bytes, and the stand-in reads those. The bytes are found
 * through a registry-wide symbol, not `instanceof`: the first copy of this module to load installs the
 * global, and a second copy (another bundle, a test runner re-evaluating modules) must still be served.
 */
const OCTETS = Symbol.for('retouche.c2pa.blob-octets');

export class BlobOctets extends Blob {
  readonly [OCTETS]: Uint8Array;
  constructor(octets: Uint8Array) {
    super([octets as Uint8Array<ArrayBuffer>]);
    this[OCTETS] = octets;
  }
  override slice(debut?: number, fin?: number): BlobOctets {
    return new BlobOctets(this[OCTETS].subarray(debut, fin));
  }
}

class FileReaderSyncNode {
  readAsArrayBuffer(blob: Blob): ArrayBuffer {
    const o = (blob as Partial<BlobOctets>)[OCTETS];
    if (!o) throw new TypeError('FileReaderSync (Node stand-in) only reads Blobs created by signer.ts');
    return o.buffer.slice(o.byteOffset, o.byteOffset + o.byteLength) as ArrayBuffer;
  }
}

const globalFr = globalThis as { FileReaderSync?: unknown };
globalFr.FileReaderSync ??= FileReaderSyncNode;
