/**
 * Marking a result: what the tool step (pipeline/service-outil.ts) calls on every image it is about to
 * store, whatever the engine. It adds a signed C2PA manifest (signature.ts) saying how the image was made
 * (commun/provenance.ts) and from which input (its SHA-256 only); the pixels are not touched.
 *
 * Where the key comes from:
 *   - AWS: RETOUCHE_C2PA_SECRET_ARN, a Secrets Manager secret `{"clePrivee": PEM, "chaine": [PEM…]}`
 *     readable only by the tool function (lib/provenance.ts writes it at deploy time).
 *   - the local stack: a test CA and leaf made once per data folder (local/pile.ts).
 */
import { createHash } from 'node:crypto';
import type { CleC2pa } from './certificats';
import type { FormatImage } from '../../core/modele/images';
import { prechaufferC2pa, signerC2pa } from './signature';
import { natureResultat } from '../commun/provenance';
import type { Floutage } from '../../core/modele/sorties';

export interface DemandeMarquage {
  outil: string;
  /** The engine that made the image: `local` (no AI model) or `bedrock`. */
  moteur: 'local' | 'bedrock';
  /** The input photo's bytes: only its hash goes into the manifest. */
  entree: Buffer;
  formatEntree: string;
  /** The other inputs merged into the image (fusion), beside `entree`, its reference: their hashes only. */
  composants?: readonly { octets: Buffer; format: string }[];
  /** The image's own name, as the ingredient's title. */
  titre: string | null;
  /** What was blurred after the edit, if anything (moteurs/commun/floutage.ts). */
  floutage?: Floutage | null;
}

export interface MarqueurC2pa {
  marquer(image: Buffer, format: FormatImage, demande: DemandeMarquage): Promise<Buffer>;
}

export const creerMarqueur = (cle: CleC2pa): MarqueurC2pa => ({
  marquer: (image, format, d) =>
    signerC2pa(image, format, {
      ...cle,
      outil: d.outil,
      moteur: d.moteur,
      nature: natureResultat(d.outil, d.moteur === 'local'),
      entree: { hash: createHash('sha256').update(d.entree).digest(), format: d.formatEntree, ...(d.titre ? { titre: d.titre } : {}) },
      ...(d.composants?.length ? { composants: d.composants.map((c) => ({ hash: createHash('sha256').update(c.octets).digest(), format: c.format })) } : {}),
      floutage: d.floutage ?? null,
    }),
});

/** The key as its secret holds it; anything else is a deployment error, said plainly. */
export const lireCleC2pa = (texte: string): CleC2pa => {
  const cle = JSON.parse(texte) as Partial<CleC2pa>;
  if (typeof cle.clePrivee !== 'string' || !Array.isArray(cle.chaine) || cle.chaine.length === 0) {
    throw new Error('the C2PA secret must hold {"clePrivee": "<PEM>", "chaine": ["<leaf PEM>", "<CA PEM>", …]}');
  }
  return { clePrivee: cle.clePrivee, chaine: cle.chaine };
};

/**
 * The tool function's marker, from its secret, warmed up at cold start: the first signature of a
 * process is several times slower until V8 optimises the WebAssembly (signature.ts).
 */
export const marqueurDepuisEnv = async (env: NodeJS.ProcessEnv = process.env): Promise<MarqueurC2pa> => {
  const arn = env.RETOUCHE_C2PA_SECRET_ARN;
  if (!arn) throw new Error('missing environment variable RETOUCHE_C2PA_SECRET_ARN (every result must be signed)');
  const { lireSecret } = await import('../../core/infra/client-secrets-manager');
  const cle = lireCleC2pa((await lireSecret(arn)) ?? '');
  await prechaufferC2pa(cle);
  return creerMarqueur(cle);
};
