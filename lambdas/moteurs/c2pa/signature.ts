/**
 * C2PA Content Credentials in every result (EU AI Act, Article 50(2): a machine-readable marking of
 * AI-generated or AI-manipulated images; the Commission's Code of Practice names C2PA).
 *
 * Embeds a signed C2PA manifest into a JPEG, PNG or WebP produced by sharp, using c2pa-rs compiled to
 * WebAssembly (@contentauth/c2pa-wasm 0.13.3 = c2pa-rs 0.91.3). Only metadata is added: the image data
 * is copied byte for byte, so the decoded pixels do not change.
 *
 * Facts this module relies on (checked against c2pa-wasm 0.13.3, see the report):
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
import { createHash, createPrivateKey, createPublicKey, sign as signNode, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { initSync, WasmBuilder, WASM_SRI } from '@contentauth/c2pa-wasm';
import { LOGICIEL as NOM_LOGICIEL, TYPES_SOURCE, type NatureResultat } from '../commun/provenance';

export type FormatImage = 'jpeg' | 'png' | 'webp';

export interface OptionsC2pa {
  /** Retouching tool, e.g. 'ciel'. */
  outil: string;
  /** Engine that ran it: 'bedrock' or 'local'. */
  moteur: string;
  /** How the result was made (provenance.ts): the action and the IPTC digital source type. */
  nature: NatureResultat;
  /** The input photo, known by its SHA-256 only: none of its pixels go into the result. */
  entree: { hash: Buffer; format: string; titre?: string };
  /** Faces and plates blurred after the edit (moteurs/floutage.ts): one more action, c2pa.filtered. */
  floutage?: { reglage: string; visages: number; plaques: number } | null;
  /** ES256 (P-256) private key of the leaf certificate, PEM (PKCS#8 or SEC1). */
  clePrivee: string;
  /** PEM certificates: the leaf first, then the CA(s) that issued it. */
  chaine: string[];
}

/**
 * The signing primitive: ECDSA P-256 / SHA-256 over `donnees`, returned as raw r‖s (64 bytes, IEEE P1363,
 * the form COSE requires). With a PEM key this is node:crypto; with AWS KMS it is a `Sign` call
 * (ECDSA_SHA_256, MessageType RAW) whose DER result goes through `signatureDerVersP1363`.
 */
export type SignatureEs256 = (donnees: Uint8Array) => Promise<Uint8Array>;

export type OptionsSansCle = Omit<OptionsC2pa, 'clePrivee'>;

const LOGICIEL = { name: 'Retouche', version: '1.0.0' } as const;
const MIME: Record<FormatImage, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
const ID_ENTREE = 'entree';

// ---------------------------------------------------------------------------------------------------
// WASM loading

let pret = false;

/** Bytes of c2pa_bg.wasm or a compiled WebAssembly.Module (whatever the glue's initSync takes). */
export type ModuleWasm = Extract<Parameters<typeof initSync>[0], { module: unknown }>['module'];

/**
 * Loads the c2pa WASM once per process (about 9 MB; compiling it is the main cold-start cost).
 * Pass the bytes or a compiled module when the bundle embeds them; otherwise the file is looked for
 * next to this module (where a Lambda build copies it), then in node_modules (development).
 */
export function initialiserC2pa(wasm?: ModuleWasm): void {
  if (pret) return;
  let module = wasm;
  if (module === undefined) {
    const chemin = cheminWasm();
    module = readFileSync(chemin);
    // The glue (bundled JS) and the .wasm (a copied file) must come from the same package version, or
    // calls fail in obscure ways; the glue publishes the file's digest, so compare (~10 ms for 9 MB).
    const [alg, attendu] = WASM_SRI.split('-', 2) as [string, string];
    if (createHash(alg).update(module).digest('base64') !== attendu) {
      throw new Error(`${chemin} does not match @contentauth/c2pa-wasm's JS glue (${WASM_SRI.slice(0, 20)}…)`);
    }
  }
  initSync({ module });
  pret = true;
}

function cheminWasm(): string {
  const env = process.env.C2PA_WASM_PATH;
  if (env) return env;
  const voisin = fileURLToPath(new URL('./c2pa_bg.wasm', import.meta.url));
  if (existsSync(voisin)) return voisin;
  try {
    return createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
  } catch {
    throw new Error(`c2pa_bg.wasm not found: copy it next to the bundle (${voisin}) or set C2PA_WASM_PATH`);
  }
}

/**
 * The builder reads its source with `new FileReaderSync().readAsArrayBuffer(blob)` (and `blob.slice()`
 * for sources over 50 MB): browser-worker APIs. Node's Blob can only be read asynchronously, so the
 * source is wrapped in a Blob that keeps its bytes, and the stand-in reads those. The bytes are found
 * through a registry-wide symbol, not `instanceof`: the first copy of this module to load installs the
 * global, and a second copy (another bundle, a test runner re-evaluating modules) must still be served.
 */
const OCTETS = Symbol.for('retouche.c2pa.blob-octets');

class BlobOctets extends Blob {
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

// ---------------------------------------------------------------------------------------------------
// Minimal CBOR (RFC 8949) encoder: enough for a COSE_Sign1, and its output size is exact, which the
// padding below needs. Definite lengths only; integer keys are written in the order given (1 then 33,
// already canonical).

type Cbor = number | string | Uint8Array | null | Cbor[] | Map<number | string, Cbor> | { tag: number; valeur: Cbor };

function tete(majeur: number, n: number): Uint8Array {
  const m = majeur << 5;
  if (n < 24) return Uint8Array.of(m | n);
  if (n < 0x100) return Uint8Array.of(m | 24, n);
  if (n < 0x10000) return Uint8Array.of(m | 25, n >> 8, n & 0xff);
  if (n <= 0xffffffff) return Uint8Array.of(m | 26, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  throw new RangeError('CBOR: length too large');
}

function cbor(v: Cbor): Buffer {
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

// ---------------------------------------------------------------------------------------------------
// COSE_Sign1 (RFC 9052) as C2PA 2.x wants it

const COSE_ALG = 1;
const COSE_X5CHAIN = 33; // RFC 9360
const ES256 = -7;
const TAG_COSE_SIGN1 = 18;

/**
 * Room reserved in the manifest for the signature box. Must hold the COSE_Sign1: protected header
 * (alg + the certificate chain, about 0.5-2 KB), 64-byte signature, CBOR framing. Fixed per chain, so
 * computed from it; the margin is filled with a zero `pad` (the padding field c2pa-rs itself uses).
 */
function tailleReservee(chaineDer: Uint8Array[]): number {
  return chaineDer.reduce((n, c) => n + c.length, 0) + 512;
}

/**
 * Builds the tagged COSE_Sign1 over the claim (detached payload), exactly `taille` bytes long.
 * x5chain goes in the protected header: C2PA 2.x requires the signing certificate to be covered
 * by the signature.
 */
async function coseSign1(claim: Uint8Array, chaineDer: Uint8Array[], signature: SignatureEs256, taille: number): Promise<Uint8Array> {
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

/** A signer over a PEM key held in memory (e.g. read from Secrets Manager at cold start). */
export function signataireCle(clePem: string | KeyObject): SignatureEs256 {
  const cle = typeof clePem === 'string' ? createPrivateKey(clePem) : clePem;
  if (cle.asymmetricKeyType !== 'ec' || cle.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('C2PA ES256 needs an EC P-256 private key');
  }
  return async (donnees) => signNode('sha256', donnees, { key: cle, dsaEncoding: 'ieee-p1363' });
}

// ---------------------------------------------------------------------------------------------------
// Manifest

function pemVersDer(pem: string): Uint8Array {
  return new Uint8Array(new X509Certificate(pem).raw);
}

/**
 * The manifest definition given to c2pa-rs. C2PA 2.x validation requires the first action to be
 * c2pa.opened or c2pa.created, and an opened action to point at a parentOf ingredient. So an edit is
 * opened(the input) then edited(with the IPTC digital source type); an image rendered whole is
 * created(with its digital source type), the input being what it was made from (inputTo).
 */
function definitionManifeste(format: FormatImage, o: OptionsSansCle, quand: string): object {
  const parametres = { 'fr.retouche': { outil: o.outil, moteur: o.moteur } };
  const description = `${o.nature.action === 'c2pa.created' ? 'Rendered' : 'Edited'} by ${NOM_LOGICIEL}, tool ${o.outil}, engine ${o.moteur}${
    o.moteur === 'local' ? ' (local preview, no AI model)' : ''
  }`;
  // The agent of the AI action names the tool and the engine that made the image.
  const agent = { name: `${LOGICIEL.name} ${o.outil} (${o.moteur === 'local' ? 'local preview' : `engine ${o.moteur}`})`, version: LOGICIEL.version };
  const ia = { digitalSourceType: TYPES_SOURCE[o.nature.source], softwareAgent: agent, description, when: quand };
  const actions: object[] =
    o.nature.action === 'c2pa.created'
      ? [{ action: 'c2pa.created', ...ia, parameters: { ...parametres, ingredientIds: [ID_ENTREE] } }]
      : [
          { action: 'c2pa.opened', when: quand, softwareAgent: LOGICIEL, parameters: { ingredientIds: [ID_ENTREE] } },
          { action: 'c2pa.edited', ...ia, parameters: parametres },
        ];
  // The blur is ours, not the model's: an ordinary filter, said with what it hid.
  if (o.floutage) {
    const { reglage, visages, plaques } = o.floutage;
    actions.push({
      action: 'c2pa.filtered',
      when: quand,
      softwareAgent: LOGICIEL,
      description: `Faces (${visages}) and number plates (${plaques}) found in the image blurred beyond recognition by ${NOM_LOGICIEL}`,
      parameters: { 'fr.retouche': { floutage: reglage, visages, plaques } },
    });
  }
  return {
    claim_version: 2,
    claim_generator_info: [LOGICIEL],
    title: `retouche.${format === 'jpeg' ? 'jpg' : format}`,
    format: MIME[format],
    assertions: [
      {
        label: 'c2pa.actions.v2',
        // Our software performed these actions: a "created" assertion in C2PA 2.x terms (default: gathered).
        created: true,
        data: { actions },
      },
    ],
  };
}

/**
 * The input photo as a parentOf ingredient known only by its SHA-256: no `data`, no `thumbnail`,
 * no manifest_data, so none of its pixels travel in the output. `label` is only the id the action's
 * ingredientIds refers to; c2pa-rs names the assertion itself (c2pa.ingredient.v3).
 */
function definitionIngredient(e: OptionsC2pa['entree'], relation: 'parentOf' | 'inputTo'): string {
  const hex = e.hash.toString('hex');
  if (e.hash.length !== 32) throw new Error('entree.hash must be a SHA-256 (32 bytes)');
  return JSON.stringify({
    title: e.titre ?? 'entree',
    format: e.format.includes('/') ? e.format : `image/${e.format === 'jpg' ? 'jpeg' : e.format}`,
    relationship: relation,
    instance_id: `sha256:${hex}`,
    label: ID_ENTREE,
  });
}

// Builder settings (c2pa-rs Settings, JSON).
//  - thumbnail off: this build cannot make one anyway, but the output must never carry pixels.
//  - verify_after_sign(_hash): c2pa-rs re-validates the signed file before returning it, including the
//    data hash. Without the hash part, a COSE of the wrong size is accepted at signing time and only
//    shows up later as "assertion.dataHash.mismatch" in readers (checked). Trust is not required here:
//    an untrusted chain (our own CA) does not fail this check.
const CONTEXTE_BUILDER = JSON.stringify({
  builder: { thumbnail: { enabled: false } },
  verify: { verify_after_sign: true, verify_after_sign_hash: true },
});

// ---------------------------------------------------------------------------------------------------
// Warm-up

// A 1×1 PNG (90 bytes, made with sharp): enough to run the whole signing path.
const PNG_MINUSCULE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVQImWP4//8/AAX+Av5Y8msOAAAAAElFTkSuQmCC',
  'base64',
);

/**
 * V8 first runs WebAssembly with its baseline compiler and only optimizes functions that prove hot; a
 * call already running keeps its slow code. So the first signature of a process hashes about 5× slower
 * (24 MP JPEG: ~550 ms instead of ~95 ms here). Ten tiny signatures at cold start (~90 ms; three were
 * not enough here) move the hot paths to optimized code first (then ~145 ms for the first 24 MP JPEG).
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

// ---------------------------------------------------------------------------------------------------

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
    const sortie = await builder.sign(
      {
        alg: 'es256',
        reserveSize: taille,
        // c2pa-rs hands over the claim (CBOR) and expects the whole COSE_Sign1 back.
        sign: async (claim) => coseSign1(claim, chaineDer, signature, taille) as Promise<Uint8Array<ArrayBuffer>>,
      },
      [],
      MIME[format],
      new BlobOctets(image),
    );
    return Buffer.from(sortie.buffer, sortie.byteOffset, sortie.byteLength);
  } finally {
    builder.free();
  }
}
