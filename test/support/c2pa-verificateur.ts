// Independent C2PA verifier for the tests: our results are signed by c2pa-rs (through its
// WebAssembly build); they are read back here by other code, so that a mistake shared by the
// signer and its own reader cannot pass unnoticed.
//
// Library parts used:
//   - @trustnxt/c2pa-ts 0.9.4: JPEG/PNG containers (JPEG, PNG from '/asset'), JUMBF parsing (SuperBox),
//     manifest model and validation (ManifestStore.read + validate: COSE_Sign1 signature with the leaf key,
//     per-certificate profile checks, hashed-URI checks of assertions, c2pa.hash.data with exclusions).
//   - cbor-x: decoding the COSE protected header, encoding the COSE Sig_structure.
//   - node:crypto: X509Certificate (chain walk up to the anchor), crypto.verify (second, strict ES256 check).
// Written here:
//   - WebPAsset: reads the RIFF 'C2PA' chunk, implements c2pa-ts's Asset interface (read side only).
//   - the trust-anchor check (c2pa-ts 0.9.4 does no chain-of-trust validation at all),
//   - strict ES256 checks (alg -7, x5chain in the protected header, 64-byte r||s signature, P-256 key),
//   - requirement that the hard binding is a c2pa.hash.data that was actually checked, and that its
//     exclusions only cover the manifest container (c2pa-ts checks neither),
//   - extraction of the summary (generator, actions, ingredients, signer, time) from the raw CBOR.
import { X509Certificate, verify as cryptoVerify } from 'node:crypto';
import { Decoder, Encoder } from 'cbor-x';
import { JPEG, PNG, type Asset } from '@trustnxt/c2pa-ts/asset';
import { SuperBox, CBORBox } from '@trustnxt/c2pa-ts/jumbf';
import { ManifestStore, ValidationResult, type Manifest } from '@trustnxt/c2pa-ts/manifest';

export type FormatImage = 'jpeg' | 'png' | 'webp';

export interface ResultatVerification {
  valide: boolean;
  erreurs: string[];
  manifeste: {
    generateur?: string;
    actions: { action: string; digitalSourceType?: string; softwareAgent?: unknown; parameters?: unknown }[];
    ingredients: { titre?: string; relation?: string; hash?: string; instanceId?: string }[];
    signataire?: string;
    heureSignature?: string;
  };
}

/** Read-only c2pa-ts Asset for WebP: c2pa-rs stores the JUMBF manifest store in a top-level RIFF chunk 'C2PA'. */
export class WebPAsset implements Asset {
  readonly mimeType = 'image/webp';
  readonly chunks: { id: string; offset: number; size: number }[] = []; // offset of the 8-byte chunk header
  private readonly manifestChunk?: { offset: number; size: number };

  static canRead(buf: Uint8Array): boolean {
    return buf.length >= 12 && ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 4) === 'WEBP';
  }

  constructor(private readonly data: Uint8Array) {
    if (!WebPAsset.canRead(data)) throw new Error('pas un fichier WebP (RIFF/WEBP)');
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const riffEnd = 8 + view.getUint32(4, true);
    if (riffEnd !== data.length) throw new Error(`taille RIFF ${riffEnd} != taille du fichier ${data.length}`);
    for (let pos = 12; pos < riffEnd;) {
      if (pos + 8 > riffEnd) throw new Error(`en-tête de chunk tronqué à ${pos}`);
      const id = ascii(data, pos, 4);
      const size = view.getUint32(pos + 4, true);
      if (pos + 8 + size > riffEnd) throw new Error(`chunk '${id}' à ${pos} dépasse la fin du RIFF`);
      this.chunks.push({ id, offset: pos, size });
      pos += 8 + size + (size & 1); // chunks are padded to an even length
    }
    const c2pa = this.chunks.filter((c) => c.id === 'C2PA');
    if (c2pa.length > 1) throw new Error('plusieurs chunks C2PA');
    this.manifestChunk = c2pa[0];
  }

  getDataLength(): number {
    return this.data.length;
  }
  async getDataRange(start = 0, length?: number): Promise<Uint8Array> {
    return this.data.subarray(start, length === undefined ? undefined : start + length);
  }
  getManifestJUMBF(): Uint8Array | undefined {
    const c = this.manifestChunk;
    return c && this.data.subarray(c.offset + 8, c.offset + 8 + c.size);
  }
  /** The C2PA chunk, header included (this is what c2pa-rs excludes from the data hash). */
  getHashExclusionRange(): { start: number; length: number } {
    if (!this.manifestChunk) throw new Error('pas de chunk C2PA');
    return { start: this.manifestChunk.offset, length: this.manifestChunk.size + 8 };
  }
  dumpInfo(): string {
    return ['WebP file', ...this.chunks.map((c) => `  ${c.id} at ${c.offset}, ${c.size} bytes`)].join('\n');
  }
  async ensureManifestSpace(): Promise<void> {
    throw new Error('WebPAsset is read-only');
  }
  async writeManifestJUMBF(): Promise<void> {
    throw new Error('WebPAsset is read-only');
  }
}

const cborDecoder = new Decoder({ mapsAsObjects: false });
const cborEncoder = new Encoder({ tagUint8Array: false });
const hex = (b?: Uint8Array) => (b ? Buffer.from(b).toString('hex') : undefined);
function ascii(b: Uint8Array, start: number, n: number): string {
  return String.fromCharCode(...b.subarray(start, start + n));
}
/** Raw CBOR content of an assertion, as signed (c2pa-ts normalises some values, e.g. digitalSourceType). */
function rawContent(box?: SuperBox): any {
  const content = box?.contentBoxes[0];
  return content instanceof CBORBox ? content.content : undefined;
}
function openAsset(fichier: Buffer, format: FormatImage): Asset {
  const bytes = new Uint8Array(fichier.buffer as ArrayBuffer, fichier.byteOffset, fichier.byteLength);
  if (format === 'jpeg' && JPEG.canRead(bytes)) return new JPEG(bytes);
  if (format === 'png' && PNG.canRead(bytes)) return new PNG(bytes);
  if (format === 'webp') return new WebPAsset(bytes);
  throw new Error(`le fichier n'est pas au format ${format}`);
}

export async function verifierC2pa(fichier: Buffer, format: FormatImage, ancre: string): Promise<ResultatVerification> {
  const erreurs: string[] = [];
  const manifeste: ResultatVerification['manifeste'] = { actions: [], ingredients: [] };
  const fin = () => ({ valide: erreurs.length === 0, erreurs, manifeste });

  let asset: Asset, store: ManifestStore, m: Manifest | undefined;
  try {
    asset = openAsset(fichier, format);
    const jumbf = asset.getManifestJUMBF();
    if (!jumbf) {
      erreurs.push('aucun manifeste C2PA dans le fichier');
      return fin();
    }
    store = ManifestStore.read(SuperBox.fromBuffer(jumbf as Uint8Array<ArrayBuffer>));
    m = store.getActiveManifest();
  } catch (e) {
    erreurs.push(`lecture: ${(e as Error).message}`);
    return fin();
  }
  if (!m?.claim || !m.assertions || !m.signature) {
    erreurs.push('manifeste actif absent ou incomplet (claim, assertions, signature)');
    return fin();
  }

  // ---- (a) structure: summary from the raw CBOR ------------------------------------------------
  const claimRaw = rawContent(m.claim.sourceBox);
  const info = claimRaw?.claim_generator_info;
  const gen = Array.isArray(info) ? info[0] : info; // claim v2: a map; claim v1: an array
  manifeste.generateur = gen?.name ? [gen.name, gen.version].filter(Boolean).join('/') : claimRaw?.claim_generator;
  for (const a of m.assertions.assertions) {
    const raw = rawContent(a.sourceBox);
    if (a.label === 'c2pa.actions' || a.label === 'c2pa.actions.v2') {
      for (const act of raw?.actions ?? [])
        manifeste.actions.push({
          action: act.action,
          digitalSourceType: act.digitalSourceType,
          softwareAgent: act.softwareAgent,
          parameters: act.parameters,
        });
    } else if (a.label?.startsWith('c2pa.ingredient')) {
      const ref = raw?.activeManifest ?? raw?.c2pa_manifest ?? raw?.data;
      manifeste.ingredients.push({
        titre: raw?.['dc:title'],
        relation: raw?.relationship,
        hash: hex(ref?.hash),
        instanceId: raw?.instanceID ?? raw?.instance_id,
      });
    }
  }
  if (!m.assertions.assertions.some((a) => a.label === 'c2pa.actions' || a.label === 'c2pa.actions.v2')) erreurs.push("pas d'assertion c2pa.actions");

  // ---- c2pa-ts validation: signature, certificate profiles, hashed URIs, data hash --------------
  let resultat: ValidationResult;
  try {
    resultat = await store.validate(asset);
  } catch (e) {
    resultat = ValidationResult.fromError(e as Error);
  }
  for (const s of resultat.statusEntries)
    if (!s.success) erreurs.push(`c2pa-ts: ${s.code}${s.url ? ` (${s.url})` : ''}${s.explanation ? `: ${s.explanation}` : ''}`);

  // ---- hard binding: exactly a c2pa.hash.data, checked, excluding only the manifest container -----
  const liaisons = m.assertions.getHardBindings();
  const dataHash = liaisons.find((a) => a.label === 'c2pa.hash.data') as any;
  if (liaisons.length !== 1 || !dataHash)
    erreurs.push(`liaison forte attendue: un c2pa.hash.data (trouvé: ${liaisons.map((a) => a.label).join(', ') || 'aucune'})`);
  else if (!resultat.statusEntries.some((s) => s.code.startsWith('assertion.dataHash')))
    erreurs.push("c2pa.hash.data non vérifié sur les octets de l'image (validation interrompue avant)");
  if (dataHash) {
    let autorisees: { start: number; length: number }[] = [];
    try {
      autorisees = [asset.getHashExclusionRange()]; // APP11 segments / caBX chunk / C2PA chunk
    } catch {}
    if (format === 'webp') autorisees.push({ start: 4, length: 4 }); // RIFF size field (newer c2pa-rs excludes it)
    for (const x of dataHash.exclusions as { start: number; length: number }[])
      if (!autorisees.some((r) => x.start >= r.start && x.start + x.length <= r.start + r.length))
        erreurs.push(`exclusion [${x.start}, +${x.length}] hors du conteneur du manifeste`);
  }

  // ---- (b) COSE signature: strict ES256 + chain up to the given anchor ---------------------------
  const sig = m.signature.signatureData;
  try {
    if (!sig.certificate || !sig.rawProtectedBucket || !sig.signature) throw new Error('signature incomplète');
    const leaf = new X509Certificate(Buffer.from(sig.certificate.rawData));
    manifeste.signataire = leaf.subject.replace(/\n/g, ', ');
    manifeste.heureSignature = sig.timestamp?.toISOString();

    const protege = cborDecoder.decode(sig.rawProtectedBucket) as Map<unknown, unknown>;
    if (protege.get(1) !== -7) erreurs.push(`algorithme COSE ${String(protege.get(1))}, attendu -7 (ES256)`);
    if (!protege.has(33)) erreurs.push("x5chain absent de l'en-tête protégé");
    if (leaf.publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') erreurs.push('clé du signataire: P-256 attendue');
    if (sig.signature.length !== 64) erreurs.push(`signature de ${sig.signature.length} octets: ES256 veut r||s sur 64 octets (pas de DER)`);
    const sigStructure = cborEncoder.encode(['Signature1', sig.rawProtectedBucket, new Uint8Array(0), m.claim.getBytes(m.claim)]);
    if (!cryptoVerify('sha256', sigStructure, { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, sig.signature))
      erreurs.push('signature COSE invalide (node:crypto)');

    const anchor = new X509Certificate(ancre);
    const chaine = [leaf, ...sig.chainCertificates.map((c) => new X509Certificate(Buffer.from(c.rawData)))];
    if (!anchor.ca) erreurs.push("l'ancre n'est pas un certificat d'AC");
    if (leaf.ca || leaf.raw.equals(anchor.raw)) erreurs.push('le signataire est une AC');
    for (let i = 0; i + 1 < chaine.length; i++) {
      const [fils, parent] = [chaine[i]!, chaine[i + 1]!];
      if (!fils.checkIssued(parent) || !fils.verify(parent.publicKey)) erreurs.push(`x5chain[${i}] n'est pas émis par x5chain[${i + 1}]`);
    }
    const sommet = chaine[chaine.length - 1]!;
    const ancre_ok = sommet.raw.equals(anchor.raw) || (sommet.checkIssued(anchor) && sommet.verify(anchor.publicKey));
    if (!ancre_ok) erreurs.push("chaîne de certificats non émise par l'ancre donnée");
    const now = Date.now();
    if (now < Date.parse(anchor.validFrom) || now > Date.parse(anchor.validTo)) erreurs.push('ancre hors de sa période de validité');
  } catch (e) {
    erreurs.push(`signature: ${(e as Error).message}`);
  }
  return fin();
}
