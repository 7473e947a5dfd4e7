/**
 * The saison preview: winter to summer without a model. The snow on the ground (neige.ts) becomes a
 * lawn with the snow's own light and shade, a grey winter sky takes a summer light, and the ground and
 * the house a warmer one. A photo with neither snow nor a grey sky, or taken inside, has nothing this
 * preview can turn to summer: it says so (`hiver_introuvable`, refunded) rather than charge for a tint.
 * Bare trees are not leafed and a dormant lawn is not greened: no rule here tells them from brown
 * paving or a hedge without greening those too (tried on test/photos).
 */
import { ErreurTravail } from '../../core/modele/erreurs';
import { adoucir, cielDehors, trouverCiel } from '../commun/ciel-masque';
import { preuveDInterieur, type ObjetDetecte } from '../commun/detection';
import { luminance, type Pixels } from '../commun/pixels';
import { bleuDuJour, rangeesDuCiel } from './ciel';
import { borner } from './couleurs';
import { neigeAnalyse } from './neige';

/** A sky bluer than this (mean blue minus red, 0–255) is a clear sky already: summer's. */
const BLEU_FRANC = 45;
/** A sky darker than this (mean luma) is dusk or night: its hour is kept, not turned to noon. */
const L_JOUR = 120;
/**
 * A grey sky is whole: riddled with small holes (gaps of at most TROU_MAX analysis pixels, over
 * TROUS_MAX per sky pixel) it is a pavement strewn with petals seen from above, read as sky
 * (test/photos: 12 per thousand there, at most 1.5 on the skies of the set).
 */
const TROU_MAX = 6;
const TROUS_MAX = 0.005;
/** How far a grey sky goes towards the day's blue: some of its clouds stay. */
const FORCE_CIEL = 0.55;

/**
 * Whether the sky of the analysis copy is a grey winter day's: bright (not dusk), not
 * clearly blue, not red (a sunset). Measured on test/photos: the overcast facades give 24–28 (blue minus
 * red), the blue skies 64–91.
 */
const cielGris = ({ data, largeur: l }: Pixels, ciel: Uint8Array): boolean => {
  const somme = [0, 0, 0];
  let [n, trous, derniere] = [0, 0, -1];
  for (let q = 0; q < ciel.length; q++) {
    if (!ciel[q]) continue;
    n++;
    for (let c = 0; c < 3; c++) somme[c]! += data[q * 3 + c]!;
    // A gap of a few pixels between two sky pixels of a row: a hole in the "sky".
    if (derniere >= 0 && q % l > derniere % l && q - derniere - 1 >= 1 && q - derniere - 1 <= TROU_MAX) trous++;
    derniere = q;
  }
  const [r, g, b] = somme.map((v) => v / n) as [number, number, number];
  return luminance(r, g, b) >= L_JOUR && b - r < BLEU_FRANC && r <= g + 8 && trous / n < TROUS_MAX;
};

/** Per pixel weight 0–1 of a feathered 0–255 mask: 0 from the sky's edge (alpha 128) outwards, 1 inside. */
const dansCiel = (alpha: number) => Math.min(1, alpha / 128);

/** A per-pixel value in [0, 1) from its position: grass texture that is the same on every run. */
const hachage = (x: number, y: number) => {
  let v = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1);
  v = Math.imul(v ^ (v >>> 15), 0x85ebca6b);
  return ((v ^ (v >>> 13)) >>> 0) / 2 ** 32;
};

export interface ZonesSaison {
  /** Where the lawn is painted (the snow), 0–255 feathered. */
  pelouse: Buffer;
  /** The sky, 0–255 feathered: never edited as ground. */
  ciel: Buffer;
  /** Whether that sky is a grey winter day's, to be given a summer light. */
  gris: boolean;
}

/**
 * What saison turns to summer, or the job error that says there is nothing: exported for the tests
 * and the bench. `objets`: the detector's, which tell an interior (detection.ts preuveDInterieur).
 */
export const zonesSaison = async (p: Pixels, objets: readonly ObjetDetecte[] = []): Promise<ZonesSaison> => {
  const { analyse, masqueAnalyse, alpha } = await trouverCiel(p, { interieur: preuveDInterieur(objets) !== undefined });
  // Without its sky a photo is an interior or the ground alone, where a white floor, a bathroom's
  // tiles or a sunlit pavement pass for snow (test/photos): nothing this preview can tell is winter.
  if (!cielDehors(masqueAnalyse))
    throw new ErreurTravail(
      'hiver_introuvable',
      'No sky, or too little of it, was found in this photo: saison turns a winter exterior seen with its sky to summer; an interior or the ground alone has nothing it can turn.',
    );
  const neige = neigeAnalyse(analyse, masqueAnalyse);
  const gris = cielGris(analyse, masqueAnalyse);
  if (!gris && !neige.includes(1)) throw new ErreurTravail('hiver_introuvable');
  // Feathered over a couple of analysis pixels: grass tufts in the snow are covered, the edge is soft.
  return { pelouse: await adoucir(neige, analyse, p, 1.5), ciel: alpha, gris };
};

export const apercuSaison = async (p: Pixels, objets: readonly ObjetDetecte[] = []): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const { pelouse, ciel, gris } = await zonesSaison(p, objets);
  // The sky's rows, for the day's gradient from its top to its horizon.
  const [haut, bas] = rangeesDuCiel(ciel, p.largeur);
  // The snow's own mean light: the lawn keeps its light and shade whatever the exposure.
  let [somme, n] = [0, 0];
  for (let q = 0; q < pelouse.length; q++) if (pelouse[q]! >= 128) ((somme += luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!)), n++);
  const reference = n ? somme / n : 180;
  for (let y = 0; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur; x++) {
      const q = y * p.largeur + x;
      const i = q * 3;
      const dans = dansCiel(ciel[q]!);
      // A grey sky takes the day's blue, part of the way: its clouds show through.
      if (gris && dans > 0) {
        const cible = bleuDuJour(Math.max(0, Math.min(1, (y - haut) / Math.max(1, bas - haut))));
        for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + dans * FORCE_CIEL * (cible[c]! - p.data[i + c]!));
      }
      // The ground's edit fades out towards the sky.
      const hors = 1 - dans;
      if (hors === 0) continue;
      const r = p.data[i]!,
        g = p.data[i + 1]!,
        b = p.data[i + 2]!;
      const w = pelouse[q]! / 255;
      // A warmer summer light on the ground and the house, lawn where the snow was, with a blade-scale variation.
      const chaud = [r * 1.04 + 4, g * 1.04 + 3, b * 0.94];
      const l = (0.8 + 0.45 * (luminance(r, g, b) / reference - 1)) * (0.88 + 0.24 * hachage(x, y));
      const herbe = [92 * l, 142 * l, 56 * l];
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(sortie[i + c]! + hors * (chaud[c]! + w * (herbe[c]! - chaud[c]!) - p.data[i + c]!));
    }
  }
  return sortie;
};
