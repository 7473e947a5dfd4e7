/**
 * The sharpness step at the edge of the edited area, before and after full-resolution editing.
 *
 * The model is replaced by the identity (it answers the very image it was sent), so what is measured
 * is only what our own pipeline does to the edited pixels: reducing the photo to the working size and
 * scaling the answer back. Before: the whole 24 MP photo sent at the previous default, a 1536 px long
 * edge (1536 × 1024). After: the part around the edited area sent within Stability's 9.4 MP ceiling
 * (image.ts: decoupeAutour, cadreDeTravail). Sharpness = mean |Laplacian| of the luminance in a band
 * 60 px wide just inside the mask (fully edited); "kept" is that figure over the same band of the photo
 * itself: 1.00 means the edited pixels are as sharp as the photo's, so no step at the mask's edge (the
 * band just outside is the photo's own pixels). Above 1, the working JPEG's faint ringing.
 *
 * Run: npm run bench:resolution   (the 24 MP photo of test/support/photo.ts, a furniture box on it)
 */
import sharp from 'sharp';
import {
  agrandir,
  cadreDeTravail,
  decoupeAutour,
  extraire,
  extraireMasque,
  imageDeTravail,
  reduire,
  replacer,
  reponseReduite,
} from '../lambdas/moteurs/bedrock/image';
import { recomposer, type Decoupe } from '../lambdas/moteurs/commun/masques';
import { luminance, type Pixels } from '../lambdas/moteurs/commun/pixels';
import { zoneVider } from '../lambdas/moteurs/commun/zones';
import { pixelsPhotoGrande } from '../test/support/photo';

const BANDE = 60;

/** The pipeline of image.ts around an identity model, for a pixel budget and a crop. */
const passer = async (photo: Pixels, alpha: Uint8Array, decoupe: Decoupe, budget: number) => {
  const partie = await extraire(photo, decoupe);
  const cadre = cadreDeTravail(partie.largeur, partie.hauteur, budget);
  const reduite = await reduire(partie, cadre);
  const envoye = await imageDeTravail(reduite, cadre);
  // The identity model: the image it received, as the lossless PNG Stability is asked for.
  const reponse = await sharp(envoye).png().toBuffer();
  const agrandie = await agrandir(await reponseReduite(reponse, cadre), partie);
  const alphaPartie = extraireMasque(alpha, photo.largeur, decoupe);
  const composee = { data: recomposer(partie, agrandie, alphaPartie), largeur: partie.largeur, hauteur: partie.hauteur };
  return { resultat: replacer(photo, composee, decoupe), envoye: cadre.largeur * cadre.hauteur, echelle: cadre.photo.largeur / partie.largeur };
};

/** Mean |Laplacian| in the bands just inside (alpha 255) and just outside (alpha 0) the mask's edge. */
const nettete = (p: Pixels, alpha: Uint8Array) => {
  const { largeur: l, hauteur: h, data } = p;
  const L = new Float32Array(l * h);
  for (let i = 0; i < l * h; i++) L[i] = luminance(data[i * 3]!, data[i * 3 + 1]!, data[i * 3 + 2]!);
  // Distance to the edge along rows and columns, enough for a box-shaped mask.
  const pres = new Uint8Array(l * h);
  for (let y = 0; y < h; y++)
    for (let x = 1; x < l; x++)
      if ((alpha[y * l + x]! === 255) !== (alpha[y * l + x - 1]! === 255))
        for (let d = -BANDE; d <= BANDE; d++) if (x + d >= 0 && x + d < l) pres[y * l + x + d] = 1;
  for (let x = 0; x < l; x++)
    for (let y = 1; y < h; y++)
      if ((alpha[y * l + x]! === 255) !== (alpha[(y - 1) * l + x]! === 255))
        for (let d = -BANDE; d <= BANDE; d++) if (y + d >= 0 && y + d < h) pres[(y + d) * l + x] = 1;
  let [dedans, nd, dehors, nh] = [0, 0, 0, 0];
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < l - 1; x++) {
      const i = y * l + x;
      if (!pres[i]) continue;
      const lap = Math.abs(4 * L[i]! - L[i - 1]! - L[i + 1]! - L[i - l]! - L[i + l]!);
      if (alpha[i] === 255) ((dedans += lap), nd++);
      else if (alpha[i] === 0) ((dehors += lap), nh++);
    }
  }
  return { dedans: dedans / nd, dehors: dehors / nh };
};

const photo = pixelsPhotoGrande();
// A piece of garden furniture in the lower middle of the 24 MP frame: a third of its width, a quarter of its height.
const zone = await zoneVider(photo, [{ nom: 'Bench', nature: 'meuble', boite: { x0: 0.33, y0: 0.7, x1: 0.67, y1: 0.95 }, confiance: 1 }]);
const entiere = { gauche: 0, haut: 0, largeur: photo.largeur, hauteur: photo.hauteur };
const cas = [
  { nom: 'before: whole photo, 1536 px long edge', decoupe: entiere, budget: 1536 * 1024 },
  { nom: 'after: crop around the mask, ≤ 9.4 MP', decoupe: decoupeAutour(zone.masque, photo.largeur, photo.hauteur), budget: 9_437_184 },
  { nom: 'after, whole-frame tools (renovation, saison, ciel): whole photo, ≤ 9.4 MP', decoupe: entiere, budget: 9_437_184 },
];
console.log(`Photo ${photo.largeur}×${photo.hauteur}; mask ${zone.masque.reduce((a, v) => a + (v ? 1 : 0), 0)} px`);
const reference = nettete(photo, zone.alpha);
console.log('| Case | Sent to the model | Scale of the edited area | Sharpness inside the edge: result / photo | Kept |');
console.log('|---|---|---|---|---|');
for (const c of cas) {
  const debut = performance.now();
  const { resultat, envoye, echelle } = await passer(photo, zone.alpha, c.decoupe, c.budget);
  const ms = performance.now() - debut;
  const { dedans } = nettete(resultat, zone.alpha);
  console.log(
    `| ${c.nom} | ${(envoye / 1e6).toFixed(2)} MP (${c.decoupe.largeur}×${c.decoupe.hauteur} part) | ×${echelle.toFixed(3)} | ` +
      `${dedans.toFixed(2)} / ${reference.dedans.toFixed(2)} | ${(dedans / reference.dedans).toFixed(2)} (${Math.round(ms)} ms) |`,
  );
}
