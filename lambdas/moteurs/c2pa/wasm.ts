/**
 * c2pa-rs compiled to WebAssembly (@contentauth/c2pa-wasm): where its .wasm file is found, the check
 * that it is the build its JS glue expects, and the loading, once per process, before the first
 * signature (signature.ts) or reading (local/credentials.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { initSync, WASM_SRI } from '@contentauth/c2pa-wasm';

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
    // calls fail in obscure ways; the glue publishes the file's digest, so compare (once per container).
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
