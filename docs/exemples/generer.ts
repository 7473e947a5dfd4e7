/**
 * The before/after examples of docs/engines.md, made by the local preview engine (the one `npm start`
 * runs) on the synthetic scenes of scenes.ts. Run: npm run exemples  (writes docs/exemples/*.jpg and
 * annonce.md; the same bytes on every run with the same sharp).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { IdOutil, OutilImage } from '../../lambdas/core/modele/outils';
import { redigerAnnonceLocale } from '../../lambdas/moteurs/local/annonce-locale';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { rendreScenes, type Scenes } from './scenes';

export interface Exemple {
  outil: OutilImage;
  scene: keyof Scenes;
  valeurs: Record<string, string>;
}

/** One example per image tool, on the scene that shows its idea, with settings a customer would pick. */
export const EXEMPLES: readonly Exemple[] = [
  { outil: 'vider', scene: 'salon', valeurs: {} },
  { outil: 'staging', scene: 'pieceVide', valeurs: { piece: 'living room', style: 'Scandinavian', mention: 'English' } },
  { outil: 'renovation', scene: 'facadeHiver', valeurs: { zone: 'facade', niveau: 'complete', style: 'contemporary' } },
  { outil: 'saison', scene: 'facadeHiver', valeurs: {} },
  { outil: 'ciel', scene: 'facadeHiver', valeurs: {} },
];

export const FAITS_ANNONCE = {
  langue: 'English',
  lieu: 'Ghent, Patershol',
  infos: '3 bedrooms; 128 m²; garden of 240 m²; built 1932, renovated 2021; EPC label B',
  atouts: 'south-facing garden, original parquet floors, walking distance to the old town',
};

const LARGEUR_VIGNETTE = 480;
const ECART = 8;

/** Before and after side by side, each 480 px wide, on a white background. */
const avantApres = async (avant: Buffer, apres: Buffer): Promise<Buffer> => {
  const [a, b] = await Promise.all([avant, apres].map((i) => sharp(i).resize({ width: LARGEUR_VIGNETTE }).toBuffer()));
  const { height } = await sharp(a!).metadata();
  return sharp({ create: { width: 2 * LARGEUR_VIGNETTE + ECART, height: height!, channels: 3, background: '#ffffff' } })
    .composite([
      { input: a!, left: 0, top: 0 },
      { input: b!, left: LARGEUR_VIGNETTE + ECART, top: 0 },
    ])
    .jpeg({ quality: 84, mozjpeg: true })
    .toBuffer();
};

/** Writes `<outil>.jpg` for each example and `annonce.md`; returns the files written. */
export const genererExemples = async (dossier: string): Promise<Record<IdOutil, string>> => {
  await mkdir(dossier, { recursive: true });
  const scenes = await rendreScenes();
  // The engine as `npm start` runs it, trained detector included (the colour rules vouch for what it half sees
  // in a drawing): the examples show what a customer gets, and a drawn rug or picture is not furniture to remove.
  const moteur = creerMoteurLocal();
  const fichiers = {} as Record<IdOutil, string>;
  for (const { outil, scene, valeurs } of EXEMPLES) {
    const { image } = await moteur.retoucher({ outil, valeurs, image: scenes[scene], travail: `exemple-${outil}` });
    fichiers[outil] = join(dossier, `${outil}.jpg`);
    await writeFile(fichiers[outil], await avantApres(scenes[scene], image));
  }
  fichiers.annonce = join(dossier, 'annonce.md');
  await writeFile(fichiers.annonce, `${redigerAnnonceLocale(FAITS_ANNONCE, 3)}\n`);
  return fichiers;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ecrits = await genererExemples(fileURLToPath(new URL('.', import.meta.url)));
  for (const f of Object.values(ecrits)) console.log(f);
}
