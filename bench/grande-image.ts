/**
 * The tool step on a full-size upload (24 MP, 12–15 MB JPEG, test/support/photo.ts): wall time and
 * peak resident memory of each image tool on each engine, so that the tool Lambda's memory is sized
 * from a figure. Each (engine, tool) runs in a fresh Node process, as a cold Lambda container would:
 * it reads the photo's bytes, calls `retoucher` exactly as pipeline/outil.ts does (tool defaults from
 * the catalogue), and reports `process.resourceUsage().maxRSS` at the end. The Bedrock engine runs
 * against a real BedrockRuntimeClient whose HTTP handler answers as the Stability services do (an
 * image at the working size, PNG in base64, `finish_reasons: [null]`), so the figure covers the
 * SDK request and answer, decode, working copy, masks, scaling back, compositing into the
 * full-resolution photo, EXIF and encoding; only the model's own latency is missing.
 *
 * Then a warm container (one process running every tool twice on the Bedrock engine: memory freed by
 * one job is not all given back before the next), and the heaviest (engine, tool) once more on the
 * largest photo the API accepts (50 MP, under 15 MB). It prints the memory to give the tool function
 * and why. About 2 minutes on 2 cores; sharp is left at its defaults, as on Lambda.
 *
 *   npm run bench:grande-image
 *   npx tsx bench/grande-image.ts --repetitions 1 --outils ciel,saison --moteurs bedrock --a-chaud 0 --sans-limite
 *   npx tsx bench/grande-image.ts --largeur 8000 --hauteur 6000      # another size (no target check, no 50 MP run)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { OutilImage } from '../lambdas/core/modele/outils';
import { lancerEnfant } from './enfant';

const MO = 2 ** 20;
const OUTILS: readonly OutilImage[] = ['vider', 'staging', 'renovation', 'saison', 'ciel'];
const MOTEURS = ['local', 'bedrock'] as const;
type NomMoteur = (typeof MOTEURS)[number];

/** What a child prints, one JSON line per tool it ran. */
interface Mesure {
  outil: OutilImage | 'aucun';
  ms: number;
  /** CPU time of the whole process during the call (user + system): above `ms` means several threads. */
  cpuMs: number;
  /** Time spent inside the stand-in model (decoding, editing, encoding its answer): not the engine's. */
  modeleMs: number;
  /** Resident memory before the call, and the process's peak at its end (MB = 2^20 bytes). */
  rssAvantMo: number;
  picMo: number;
  octets: number;
  largeur: number;
  hauteur: number;
  concurrence: number;
}

// ---------- child: one engine, one or more tools, in a fresh process ----------

/** Settings as the API stores them on the job: the catalogue's defaults. */
const valeursParDefaut = async (outil: OutilImage): Promise<Record<string, string>> => {
  const { CATALOGUE } = await import('../lambdas/core/modele/outils');
  return Object.fromEntries(CATALOGUE[outil].champs.flatMap((c) => (c.defaut === undefined ? [] : [[c.nom, c.defaut]])));
};

/**
 * What a Stability service sends back, at the size it was sent (the working size): inpaint repaints
 * under the mask, Control Structure re-renders the whole frame, Search and Replace changes what it
 * found (ciel: the bright sky of the upper part; saison: the snow of the lower part). Everything it
 * did not mean to change drifts by a few levels, as a diffusion model's round trip does.
 */
const modeleSimule = async (corps: Record<string, unknown>, outil: OutilImage): Promise<Buffer> => {
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(Buffer.from(String(corps.image), 'base64'))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const masque = typeof corps.mask === 'string' ? await sharp(Buffer.from(corps.mask, 'base64')).extractChannel(0).raw().toBuffer() : null;
  const { width: l, height: h } = info;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const p = y * l + x;
      const i = p * 3;
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      const clair = r + g + b > 560 && Math.max(r, g, b) - Math.min(r, g, b) < 45;
      let nouveau: [number, number, number] | null = null;
      if (masque) nouveau = masque[p] ? [150 + ((x * 7 + y * 3) % 23), 128 + ((x + y * 5) % 19), 100 + ((x * y) % 17)] : null;
      else if (outil === 'renovation') nouveau = [0.6 * r + 90, 0.6 * g + 92, 0.6 * b + 95];
      // The sky's blue only: a white snowy roof repainted blue would rightly fail the structure check.
      else if (outil === 'ciel' && y < h * 0.5 && b > r + 20) nouveau = [60 + (y * 90) / h, 130 + (y * 80) / h, 225];
      else if (outil === 'saison' && y > h * 0.55 && clair) nouveau = [70 + ((x * 13) % 30), 118 + ((y * 7) % 25), 45];
      const derive = ((x + 2 * y) % 7) - 3;
      for (let c = 0; c < 3; c++) data[i + c] = Math.max(0, Math.min(255, Math.round(nouveau ? nouveau[c]! : data[i + c]! + derive)));
    }
  }
  return sharp(data, { raw: { width: l, height: h, channels: 3 } })
    .png()
    .toBuffer();
};

const enfant = async (nomMoteur: NomMoteur | 'aucun', outils: OutilImage[], fichier: string): Promise<void> => {
  const { default: sharp } = await import('sharp');
  const { creerMoteurLocal } = await import('../lambdas/moteurs/local/index');
  const { creerMoteurBedrock, configurationBedrock } = await import('../lambdas/moteurs/bedrock/index');
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');

  let modeleMs = 0;
  let outilCourant: OutilImage = outils[0] ?? 'vider';
  // A real client and its middleware (serialising, signing the 3 MB body, parsing the answer);
  // only the HTTP exchange is answered here instead of by Bedrock.
  const client = new BedrockRuntimeClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    maxAttempts: 1,
    requestHandler: {
      handle: async (requete: { body?: unknown }) => {
        const debut = performance.now();
        const corps = JSON.parse(String(requete.body)) as Record<string, unknown>;
        const image = await modeleSimule(corps, outilCourant);
        const reponse = JSON.stringify({ images: [image.toString('base64')], seeds: [corps.seed], finish_reasons: [null] });
        modeleMs += performance.now() - debut;
        return { response: { statusCode: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(reponse) } };
      },
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
    },
  });
  // Rekognition's answer stands in as a garden bench on the lawn (the local detector finds no furniture
  // outdoors): vider then has something to remove, staging its floor; detection itself is a network call.
  const detecteur = {
    nom: 'bench',
    detecter: async () => [{ nom: 'Bench', nature: 'meuble' as const, boite: { x0: 0.3, y0: 0.8, x1: 0.7, y1: 0.95 }, confiance: 0.9 }],
  };
  const moteur = nomMoteur === 'bedrock' ? creerMoteurBedrock({ client, detecteur, configuration: configurationBedrock({}) }) : creerMoteurLocal({ detecteur });

  // As the tool step reads its input from S3: the object's bytes, copied into a Buffer.
  const image = Buffer.from(await readFile(fichier));
  const ecrire = (m: Mesure) => process.stdout.write(`${JSON.stringify(m)}\n`);
  const mo = (kilo: number) => kilo / 1024;

  if (nomMoteur === 'aucun') {
    // The process alone (Node, tsx, sharp, the SDK, the engines' modules, the input): the floor under every figure.
    const rss = process.memoryUsage().rss / MO;
    ecrire({
      outil: 'aucun',
      ms: 0,
      cpuMs: 0,
      modeleMs: 0,
      rssAvantMo: rss,
      picMo: mo(process.resourceUsage().maxRSS),
      octets: 0,
      largeur: 0,
      hauteur: 0,
      concurrence: sharp.concurrency(),
    });
    return;
  }
  for (const outil of outils) {
    outilCourant = outil;
    modeleMs = 0;
    const valeurs = await valeursParDefaut(outil);
    const rssAvantMo = process.memoryUsage().rss / MO;
    const cpu = process.cpuUsage();
    const debut = performance.now();
    const sortie = await moteur.retoucher({ outil, valeurs, image, travail: `bench-grande-image-${outil}` });
    const ms = performance.now() - debut;
    const { user, system } = process.cpuUsage(cpu);
    const picMo = mo(process.resourceUsage().maxRSS);
    const meta = await sharp(sortie.image).metadata();
    ecrire({
      outil,
      ms,
      cpuMs: (user + system) / 1000,
      modeleMs,
      rssAvantMo,
      picMo,
      octets: sortie.image.length,
      largeur: meta.width ?? 0,
      hauteur: meta.height ?? 0,
      concurrence: sharp.concurrency(),
    });
  }
};

// ---------- parent: the photo, the runs, the table, the sizing ----------

const lancer = (args: string[]): Promise<Mesure[]> => lancerEnfant<Mesure>(fileURLToPath(import.meta.url), args);

const trier = (v: number[]) => [...v].sort((a, b) => a - b);
const mediane = (v: number[]) => {
  const t = trier(v);
  return t.length % 2 ? t[(t.length - 1) / 2]! : (t[t.length / 2 - 1]! + t[t.length / 2]!) / 2;
};
const entier = (v: number) => Math.round(v).toLocaleString('en-US');
const colonne = (texte: string, largeur: number, gauche = false) => (gauche ? texte.padEnd(largeur) : texte.padStart(largeur));

const parent = async (): Promise<number> => {
  const { values } = parseArgs({
    options: {
      repetitions: { type: 'string', default: '3' },
      outils: { type: 'string', default: OUTILS.join(',') },
      moteurs: { type: 'string', default: MOTEURS.join(',') },
      largeur: { type: 'string' },
      hauteur: { type: 'string' },
      graine: { type: 'string', default: '1' },
      // Passes over the tools in one warm process (0: none).
      'a-chaud': { type: 'string', default: '2' },
      // Skips the run at the API's 50 MP limit.
      'sans-limite': { type: 'boolean', default: false },
    },
  });
  const repetitions = Math.max(1, Number(values.repetitions));
  const outils = values.outils.split(',').filter((o): o is OutilImage => (OUTILS as readonly string[]).includes(o));
  const moteurs = values.moteurs.split(',').filter((m): m is NomMoteur => (MOTEURS as readonly string[]).includes(m));
  const tailleParDefaut = values.largeur === undefined && values.hauteur === undefined;

  const { default: sharp } = await import('sharp');
  const { photoGrande, LARGEUR_PHOTO, HAUTEUR_PHOTO } = await import('../test/support/photo');
  const debutBench = performance.now();
  console.log(
    `Node ${process.version}, sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}; sharp.concurrency() = ${sharp.concurrency()} (default, as on Lambda); ` +
      `${cpus().length} CPUs (${process.arch}), load average ${loadavg()[0]!.toFixed(2)} at start`,
  );

  const debutPhoto = performance.now();
  const photo = await photoGrande({
    largeur: Number(values.largeur ?? LARGEUR_PHOTO),
    hauteur: Number(values.hauteur ?? HAUTEUR_PHOTO),
    graine: Number(values.graine),
  });
  const msPhoto = performance.now() - debutPhoto;
  const entree = await sharp(photo).metadata();
  const [L, H] = [entree.width ?? 0, entree.height ?? 0];
  const mp = (L * H) / 1e6;
  const conforme = L * H >= 24e6 && photo.length >= 12 * MO && photo.length <= 15 * MO;
  console.log(
    `Input: test/support/photo.ts photoGrande(), ${L} × ${H} = ${mp.toFixed(1)} MP, ${(photo.length / MO).toFixed(2)} MB JPEG ` +
      `(quality 97, ${entree.chromaSubsampling}, EXIF orientation ${entree.orientation}), generated in ${entier(msPhoto)} ms` +
      (tailleParDefaut ? ` — ${conforme ? 'within' : 'OUTSIDE'} the 24 MP / 12–15 MB target` : ''),
  );
  const dossier = mkdtempSync(join(tmpdir(), 'retouche-grande-image-'));
  const fichier = join(dossier, 'photo.jpg');
  writeFileSync(fichier, photo);

  try {
    const [base] = await lancer(['aucun', 'vider', fichier]);
    console.log(
      `Process floor (Node + tsx + sharp + SDK + engines + the input in memory, no tool run): ${base!.picMo.toFixed(0)} MB peak RSS. ` +
        `Each figure below is one fresh process per run; ${repetitions} runs each, interleaved.`,
    );

    const mesures = new Map<string, Mesure[]>();
    for (let n = 0; n < repetitions; n++) {
      for (const outil of outils) {
        for (const moteur of moteurs) {
          const [m] = await lancer([moteur, outil, fichier]);
          mesures.set(`${outil} ${moteur}`, [...(mesures.get(`${outil} ${moteur}`) ?? []), m!]);
        }
      }
    }

    console.log('');
    const enTete = [
      colonne('tool', 11, true),
      colonne('engine', 8, true),
      colonne('time ms min/median', 19),
      colonne('engine-only ms', 15),
      colonne('cpu/wall', 9),
      colonne('peak RSS MB min/median/max', 27),
      colonne('output', 9),
      colonne('dimensions', 12),
      '  same as input',
    ].join(' ');
    console.log(enTete);
    console.log('-'.repeat(enTete.length));
    let pire = { mo: 0, ou: '' };
    let dimensionsGardees = true;
    const cpuParOutil: { nom: string; cpuMs: number; modeleMs: number }[] = [];
    for (const outil of outils) {
      for (const moteur of moteurs) {
        const m = mesures.get(`${outil} ${moteur}`) ?? [];
        const ms = m.map((x) => x.ms);
        const pics = trier(m.map((x) => x.picMo));
        const propre = m.map((x) => x.ms - x.modeleMs);
        const cpuWall = mediane(m.map((x) => x.cpuMs / x.ms));
        const garde = m.every((x) => x.largeur === L && x.hauteur === H);
        dimensionsGardees &&= garde;
        if (pics.at(-1)! > pire.mo) pire = { mo: pics.at(-1)!, ou: `${outil} on ${moteur}` };
        cpuParOutil.push({ nom: `${outil}/${moteur}`, cpuMs: mediane(m.map((x) => x.cpuMs - x.modeleMs)), modeleMs: mediane(m.map((x) => x.modeleMs)) });
        console.log(
          [
            colonne(outil, 11, true),
            colonne(moteur, 8, true),
            colonne(`${entier(Math.min(...ms))} / ${entier(mediane(ms))}`, 19),
            colonne(moteur === 'bedrock' ? entier(mediane(propre)) : '=', 15),
            colonne(cpuWall.toFixed(2), 9),
            colonne(`${pics[0]!.toFixed(0)} / ${mediane(pics).toFixed(0)} / ${pics.at(-1)!.toFixed(0)}`, 27),
            colonne(`${(m[0]!.octets / MO).toFixed(1)} MB`, 9),
            colonne(`${m[0]!.largeur}×${m[0]!.hauteur}`, 12),
            `  ${garde ? 'yes' : 'NO'}`,
          ].join(' '),
        );
      }
    }
    console.log(
      '\n"engine-only ms": the Bedrock engine\'s time without the stand-in model\'s own work (decoding, editing and encoding its answer);' +
        " a real call adds the model's latency instead, during which the function holds its memory and uses no CPU." +
        '\n"cpu/wall": CPU time over wall time of the call; about 1 means one thread does the work.',
    );

    // A warm container: one process runs job after job (glibc keeps what it freed, V8's heap grows).
    const tours = Math.max(0, Number(values['a-chaud']));
    let picChaud = 0;
    if (tours > 0 && moteurs.includes('bedrock')) {
      const suite = Array.from({ length: tours }, () => outils).flat();
      const chaud = await lancer(['bedrock', suite.join(','), fichier]);
      picChaud = Math.max(...chaud.map((x) => x.picMo));
      console.log(
        `\nWarm container (one process, Bedrock engine, ${suite.length} jobs in a row: ${outils.join(', ')} × ${tours}):` +
          `\n  peak RSS after each job ${chaud.map((x) => x.picMo.toFixed(0)).join(', ')} MB` +
          `\n  RSS before each job     ${chaud.map((x) => x.rssAvantMo.toFixed(0)).join(', ')} MB`,
      );
    }
    const pire24 = Math.max(pire.mo, picChaud);
    const ou24 = picChaud > pire.mo ? 'the warm container' : pire.ou;

    // The API's own limit: the heaviest (engine, tool) above, on the largest photo an upload may be.
    let limite: { mp: number; octets: number; jobs: Mesure[]; nom: string } | null = null;
    if (tailleParDefaut && !values['sans-limite'] && pire.ou) {
      const { MAX_PIXELS_IMAGE } = await import('../lambdas/core/modele/dimensions');
      const { MAX_OCTETS_IMAGE } = await import('../lambdas/core/modele/images');
      const largeur = Math.floor(Math.sqrt(MAX_PIXELS_IMAGE * 1.5));
      const hauteur = Math.floor(largeur / 1.5);
      // A phone's quality: 50 MP at quality 97 would not fit under the 15 MB upload limit.
      const grande = await photoGrande({ largeur, hauteur, graine: Number(values.graine), qualite: 92 });
      if (grande.length > MAX_OCTETS_IMAGE || largeur * hauteur > MAX_PIXELS_IMAGE) throw new Error('the API-limit photo is not an accepted upload');
      writeFileSync(fichier, grande);
      const [outil, , moteur] = pire.ou.split(' ') as [OutilImage, string, NomMoteur];
      // Twice in one process: the first job as a cold container sees it, the second as a warm one.
      limite = {
        mp: (largeur * hauteur) / 1e6,
        octets: grande.length,
        jobs: await lancer([moteur, `${outil},${outil}`, fichier]),
        nom: `${outil} on ${moteur}`,
      };
      const garde = limite.jobs.every((x) => x.largeur === largeur && x.hauteur === hauteur);
      dimensionsGardees &&= garde;
      console.log(
        `\nAt the API's limit (core/modele/dimensions.ts MAX_PIXELS_IMAGE): ${largeur} × ${hauteur} = ${limite.mp.toFixed(1)} MP, ` +
          `${(grande.length / MO).toFixed(2)} MB JPEG (quality 92, under the 15 MB upload limit), ${limite.nom}, twice in one process:` +
          `\n  ${limite.jobs.map((x, n) => `job ${n + 1}: ${entier(x.ms)} ms, peak RSS ${x.picMo.toFixed(0)} MB`).join('; ')}; output ${limite.jobs[0]!.largeur}×${limite.jobs[0]!.hauteur} ${garde ? '(same as input)' : '(NOT the input dimensions)'}`,
      );
    }

    // ---------- sizing ----------
    const MARGE = 1.5;
    const PAS = 64;
    const VCPU_MO = 1769;
    const taille = (mo: number) => Math.max(1024, Math.ceil((mo * MARGE) / PAS) * PAS);
    const pireLimite = limite ? Math.max(...limite.jobs.map((x) => x.picMo)) : 0;
    const recommande = taille(Math.max(pire24, pireLimite));
    const part = Math.min(1, recommande / VCPU_MO);
    console.log(
      `\nSizing the tool function's memory: more than the worst peak RSS × ${MARGE}, a multiple of ${PAS} MB, at least 1024 MB` +
        `\n  ${mp.toFixed(0)} MP uploads: worst peak ${pire24.toFixed(0)} MB (${ou24}; the process alone is ${base!.picMo.toFixed(0)} MB) → ${taille(pire24)} MB` +
        (limite
          ? `\n  ${limite.mp.toFixed(0)} MP uploads (the API's limit): worst peak ${pireLimite.toFixed(0)} MB (${limite.nom}) → ${taille(pireLimite)} MB`
          : '') +
        `\n  recommended memory: ${recommande} MB${limite ? `, because the API accepts up to ${limite.mp.toFixed(0)} MP; ${taille(pire24)} MB is enough only if that limit is lowered to ${mp.toFixed(0)} MP` : ''}` +
        `\n  why ×${MARGE}: peak RSS varies from run to run and from job to job in a warm container (figures above), a photo with more detail` +
        `\n    decodes the same but encodes larger, and the deployed process also holds the S3 body, the output for PutObject, the DynamoDB and S3` +
        `\n    clients, Powertools and X-Ray; a function over its memory is killed mid-job (retried, then refunded), a wasted run costs more than the margin` +
        `\n  CPU: Lambda gives CPU in proportion to memory (1 vCPU at ${VCPU_MO} MB, more above). sharp.concurrency() is ${sharp.concurrency()} and the` +
        ` engines' pixel loops are JavaScript,\n    so the step runs on about one thread (cpu/wall above): below ${VCPU_MO} MB its CPU time stretches by ${VCPU_MO}/memory,` +
        ` above ${VCPU_MO} MB more memory buys no speed.\n    At ${recommande} MB (${part.toFixed(2)} vCPU) the CPU part of a 24 MP job takes about ` +
        cpuParOutil.map((c) => `${c.nom} ${(c.cpuMs / part / 1000).toFixed(1)} s`).join(', ') +
        `\n    (this machine's ${process.arch} cores; Lambda runs arm64), plus the model's latency on Bedrock: far within the 5-minute timeout.` +
        `\n    Below ${VCPU_MO} MB a CPU-bound step costs about the same GB-seconds at any memory, while the model's wait is billed per MB: the smallest safe size is the cheapest.`,
    );
    console.log(
      `\nBench time: ${((performance.now() - debutBench) / 1000).toFixed(0)} s; load average ${loadavg()[0]!.toFixed(2)} at the end (other work on this machine slows the times, not the memory)`,
    );
    const ok = dimensionsGardees && (!tailleParDefaut || conforme);
    if (!ok) console.log(dimensionsGardees ? 'FAIL: the input photo is outside its target' : 'FAIL: an engine did not keep the input dimensions');
    return ok ? 0 : 1;
  } finally {
    rmSync(dossier, { recursive: true, force: true });
  }
};

if (process.argv[2] === '--enfant') {
  const [nomMoteur, outils, fichier] = process.argv.slice(3) as [NomMoteur | 'aucun', string, string];
  await enfant(nomMoteur, outils.split(',') as OutilImage[], fichier);
} else {
  process.exitCode = await parent();
}
