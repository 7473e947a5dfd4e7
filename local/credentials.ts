/**
 * `npm run --silent credentials -- <file>`: what a C2PA reader says of a result, read with the
 * reference implementation (c2pa-rs), the local data folder's test CA given as trust anchor (so a
 * local result reads "Trusted"; on AWS results, give the stage's chain with --ancre <PEM file>).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { WasmReader } from '@contentauth/c2pa-wasm';
import { detecterFormat, TYPES_MIME } from '../lambdas/core/modele/images';
import { initialiserC2pa } from '../lambdas/moteurs/c2pa/wasm';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { ancre: { type: 'string' } } });
const fichier = positionals[0];
if (!fichier || !existsSync(fichier)) {
  process.stderr.write('usage: npm run --silent credentials -- <result.jpg|png|webp> [--ancre ca.pem]\n');
  process.exit(2);
}
const octets = readFileSync(fichier);
const format = detecterFormat(octets);
if (!format) {
  process.stderr.write(`${fichier} is not a JPEG, PNG or WebP image\n`);
  process.exit(1);
}
const cleLocale = join(resolve(process.env.RETOUCHE_DATA_DIR ?? '.retouche'), 'c2pa', 'cle.json');
const ancre = values.ancre
  ? readFileSync(values.ancre, 'utf8')
  : existsSync(cleLocale)
    ? (JSON.parse(readFileSync(cleLocale, 'utf8')) as { autorite: string }).autorite
    : undefined;

initialiserC2pa();
let lecteur: WasmReader;
try {
  lecteur = await WasmReader.fromBytes(TYPES_MIME[format], new Uint8Array(octets), ancre ? JSON.stringify({ trust: { user_anchors: ancre } }) : undefined);
} catch (erreur) {
  console.log(JSON.stringify({ fichier, credentials: null, raison: erreur instanceof Error ? erreur.message : String(erreur) }, null, 2));
  process.exit(1);
}
const store = JSON.parse(lecteur.json()) as {
  validation_state?: string;
  active_manifest?: string;
  manifests?: Record<
    string,
    { signature_info?: { issuer?: string; common_name?: string }; assertions?: { label: string; data: { actions?: unknown[] } }[]; ingredients?: unknown[] }
  >;
  validation_results?: { activeManifest?: { failure?: { code: string }[] } };
};
const actif = store.manifests?.[store.active_manifest ?? ''];
console.log(
  JSON.stringify(
    {
      fichier,
      etat: store.validation_state,
      ancre: values.ancre ?? (ancre ? cleLocale : 'none: Valid at best'),
      echecs: store.validation_results?.activeManifest?.failure?.map((f) => f.code) ?? [],
      signataire: actif?.signature_info,
      actions: actif?.assertions?.find((a) => a.label.startsWith('c2pa.actions'))?.data.actions,
      ingredients: actif?.ingredients,
    },
    null,
    2,
  ),
);
