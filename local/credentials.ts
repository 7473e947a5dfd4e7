/**
 * `npm run --silent credentials -- <file>`: what a C2PA reader says of a result, read with the
 * reference implementation (c2pa-rs), the local data folder's test CA given as trust anchor (so a
 * local result reads "Trusted"; on AWS results, give the stage's chain with --ancre <PEM file>). The
 * file is named from where npm was run; the data folder is RETOUCHE_DATA_DIR's, or, unset, the default
 * one or the one stack running (piles-actives.ts). Without an anchor it says so, and how to give one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { WasmReader } from '@contentauth/c2pa-wasm';
import { detecterFormat, TYPES_MIME } from '../lambdas/core/modele/images';
import { initialiserC2pa } from '../lambdas/moteurs/c2pa/wasm';
import { choisirDossier } from './piles-actives';

const USAGE = 'usage: npm run --silent credentials -- <result.jpg|png|webp> [--ancre ca.pem]';
const { positionals, values } = parseArgs({ allowPositionals: true, options: { ancre: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
// npm runs scripts from the project folder: a file named from another folder is found where it was named.
const ici = process.env.INIT_CWD ?? process.cwd();
const fichier = positionals[0];
if (!fichier || !existsSync(resolve(ici, fichier))) {
  process.stderr.write(`${fichier ? `${fichier}: no such file\n` : ''}${USAGE}\n`);
  process.exit(2);
}
const octets = readFileSync(resolve(ici, fichier));
const format = detecterFormat(octets);
if (!format) {
  process.stderr.write(`${fichier} is not a JPEG, PNG or WebP image\n`);
  process.exit(1);
}
// The local stack's test CA, in the data folder it runs on (piles-actives.ts finds it when RETOUCHE_DATA_DIR is not set).
const dossierDonnees = (): string => {
  const choix = choisirDossier();
  if ('refus' in choix) {
    process.stderr.write(`${choix.refus}\n`);
    process.exit(2);
  }
  if (choix.avis) process.stderr.write(`${choix.avis}\n`);
  return choix.dossier;
};
const dossier = values.ancre ? undefined : dossierDonnees();
const cleLocale = dossier === undefined ? undefined : join(dossier, 'c2pa', 'cle.json');
const ancre = values.ancre
  ? readFileSync(resolve(ici, values.ancre), 'utf8')
  : cleLocale && existsSync(cleLocale)
    ? (JSON.parse(readFileSync(cleLocale, 'utf8')) as { autorite: string }).autorite
    : undefined;
/** Said in the output whenever no anchor was given: a reader then stops at "Valid", never "Trusted". */
const SANS_ANCRE =
  `No trust anchor: at best "Valid" (signingCredential.untrusted), never "Trusted". A local result is signed with the test CA of the ` +
  `local stack's data folder (none in ${dossier}): run this with the RETOUCHE_DATA_DIR the stack was started with, or pass ` +
  `--ancre <PEM file> (for a deployed stage, its certificate chain).`;

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
      ancre: values.ancre ?? (ancre ? cleLocale : 'none'),
      ...(ancre ? {} : { note: SANS_ANCRE }),
      echecs: store.validation_results?.activeManifest?.failure?.map((f) => f.code) ?? [],
      signataire: actif?.signature_info,
      actions: actif?.assertions?.find((a) => a.label.startsWith('c2pa.actions'))?.data.actions,
      ingredients: actif?.ingredients,
    },
    null,
    2,
  ),
);
