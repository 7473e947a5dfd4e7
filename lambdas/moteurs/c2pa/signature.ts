/**
 * C2PA Content Credentials in every result (EU AI Act, Article 50(2): a machine-readable marking of
 * AI-generated or AI-manipulated images; the Commission's Code of Practice names C2PA).
 *
 * Embeds a signed C2PA manifest into a JPEG, PNG or WebP produced by sharp, using c2pa-rs compiled to
 * WebAssembly (@contentauth/c2pa-wasm 0.13.3 = c2pa-rs 0.91.3). Only metadata is added: the image data
 * is copied byte for byte, so the decoded pixels do not change.
 *
 * This module signs (signerC2pa, signerC2paAvec) and warms the signer up (prechaufferC2pa); beside it,
 * one job each: wasm.ts loads c2pa-rs, blob-node.ts stands in for the browser API its builder reads
 * with, manifeste.ts says what the manifest holds, cose.ts builds the COSE_Sign1 (over cbor.ts, the
 * encoder) and the ES256 signer, der-pem.ts converts certificates and signatures.
 *
 * Facts the signer relies on (checked against c2pa-wasm 0.13.3, see the report):
 *  - The wasm signer runs in c2pa-rs's "direct COSE handling" mode: the `sign` callback receives the
 *    CBOR-encoded claim (the COSE payload), not a to-be-signed digest, and must return the complete,
 *    tagged COSE_Sign1 (payload detached) holding alg and x5chain, padded to exactly `reserveSize` bytes
 *    (c2pa-rs reserved that many bytes for the signature box before hashing the asset; a shorter or
 *    longer value would shift the bytes the data-hash assertion covers). A bare r‖s is rejected.
 *  - The builder reads its source through web `Blob` + `FileReaderSync`; Node has Blob but no
 *    FileReaderSync, so a small stand-in is installed (only for Blobs created here).
 *  - No RFC 3161 time-stamp is added (direct COSE mode does not call a TSA, and there is none offline):
 *    readers show no signing time; the time is asserted in the actions' `when` (not a trusted time).
 *  - This wasm build has no thumbnail generation (c2pa-rs feature `add_thumbnails` off); thumbnails are
 *    still disabled explicitly in the settings so a future build cannot start embedding pixels.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { WasmBuilder } from '@contentauth/c2pa-wasm';
import { BlobOctets } from './blob-node';
import { coseSign1, signataireCle, tailleReservee, type SignatureEs256 } from './cose';
import { pemVersDer } from './der-pem';
import { TYPES_MIME, type FormatImage } from '../../core/modele/images';
import { CONTEXTE_BUILDER, definitionIngredient, definitionManifeste, idComposant, type OptionsC2pa, type OptionsSansCle } from './manifeste';
import { initialiserC2pa } from './wasm';

// A 1×1 PNG (90 bytes, made with sharp): enough to run the whole signing path.
const PNG_MINUSCULE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVQImWP4//8/AAX+Av5Y8msOAAAAAElFTkSuQmCC',
  'base64',
);

/**
 * V8 first runs WebAssembly with its baseline compiler and only optimizes functions that prove hot; a
 * call already running keeps its slow code. So the first signature of a process hashes several times
 * slower than the next ones. Ten tiny signatures at cold start (fewer were not enough) move the hot
 * paths to optimized code first; the figures are in docs/benchmarks.md (`npm run bench:c2pa`).
 * Also checks the key and chain at start-up rather than on the first paying request.
 */
export async function prechaufferC2pa(options: Pick<OptionsC2pa, 'clePrivee' | 'chaine'>, tours = 10): Promise<void> {
  for (let i = 0; i < tours; i++) {
    await signerC2pa(PNG_MINUSCULE, 'png', {
      ...options,
      outil: 'prechauffage',
      moteur: 'local',
      nature: { action: 'c2pa.edited', source: 'compositeSynthetic' },
      entree: { hash: Buffer.alloc(32), format: 'png' },
    });
  }
}

/** Signs with a PEM key (Secrets Manager). */
export async function signerC2pa(image: Buffer, format: FormatImage, options: OptionsC2pa): Promise<Buffer> {
  const { clePrivee, ...reste } = options;
  const cle = createPrivateKey(clePrivee);
  // A key that does not match the leaf would only fail inside c2pa-rs with an unhelpful error.
  const spki = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' });
  const feuille = options.chaine[0];
  if (feuille && !spki(createPublicKey(cle)).equals(spki(new X509Certificate(feuille).publicKey))) {
    throw new Error('clePrivee does not match the leaf certificate (chaine[0])');
  }
  return signerC2paAvec(image, format, reste, signataireCle(cle));
}

/** Same, with any ES256 signing primitive (KMS, HSM). */
export async function signerC2paAvec(image: Buffer, format: FormatImage, options: OptionsSansCle, signature: SignatureEs256): Promise<Buffer> {
  initialiserC2pa();
  const chaineDer = options.chaine.map(pemVersDer);
  if (chaineDer.length === 0) throw new Error('chaine: the leaf certificate is required');
  const taille = tailleReservee(chaineDer);

  const builder = WasmBuilder.fromJson(JSON.stringify(definitionManifeste(format, options, new Date().toISOString())), CONTEXTE_BUILDER);
  try {
    builder.addIngredient(definitionIngredient(options.entree, options.nature.action === 'c2pa.created' ? 'inputTo' : 'parentOf'));
    (options.composants ?? []).forEach((c, i) => builder.addIngredient(definitionIngredient(c, 'componentOf', idComposant(i))));
    const sortie = await builder.sign(
      {
        alg: 'es256',
        reserveSize: taille,
        // c2pa-rs hands over the claim (CBOR) and expects the whole COSE_Sign1 back.
        sign: async (claim) => coseSign1(claim, chaineDer, signature, taille) as Promise<Uint8Array<ArrayBuffer>>,
      },
      [],
      TYPES_MIME[format],
      new BlobOctets(image),
    );
    return Buffer.from(sortie.buffer, sortie.byteOffset, sortie.byteLength);
  } finally {
    builder.free();
  }
}
