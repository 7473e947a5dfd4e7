/**
 * The vider preview on the real rooms of test/photos (chambre_*, cuisine*, salle-de-bain_*, sejour_*,
 * piece-vide_*): per photo, what the trained detector found, the fill's measure (qualite-remplissage.ts:
 * detail against the surroundings, share of the frame, its surfaces seen elsewhere) and the verdict the engine gives, as a Markdown
 * table; and the contact sheet of docs/engines.md, before | after with its verdict, where "after" of a
 * refused photo is the fill that was refused.
 * Run: npx tsx bench/vider-reel.ts [sheet=docs/exemples/vider-verdicts.jpg]
 */
import { readdirSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { graineDe } from '../lambdas/moteurs/commun/moteur';
import { decoder } from '../lambdas/moteurs/commun/pixels';
import { zoneVider } from '../lambdas/moteurs/commun/zones';
import { detecteurLocal } from '../lambdas/moteurs/local/detecteur-local';
import { creerMoteurLocal } from '../lambdas/moteurs/local/index';
import { PART_MAX, SEUIL_DETAIL, SEUIL_VU } from '../lambdas/moteurs/local/qualite-remplissage';
import { remplirVider } from '../lambdas/moteurs/local/vider';
import { DOSSIER_PHOTOS, photo } from '../test/support/verite';

const sortie = process.argv[2] ?? new URL('../docs/exemples/vider-verdicts.jpg', import.meta.url).pathname;
const moteur = creerMoteurLocal();
const PIECES = /^(chambre|cuisine|salle-de-bain|sejour|piece-vide)/;
const [VIGNETTE, ECART, TEXTE] = [230, 6, 30];

const echapper = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const etiquette = (lignes: string[], largeur: number, couleur: string) =>
  Buffer.from(
    `<svg width="${largeur}" height="${TEXTE}"><rect width="100%" height="100%" fill="#fff"/>${lignes
      .map((l, i) => `<text x="2" y="${12 + i * 14}" font-size="11" font-family="sans-serif" fill="${i ? couleur : '#000'}">${echapper(l)}</text>`)
      .join('')}</svg>`,
  );

const cases: Buffer[] = [];
console.log(`| Photo | Found | Share | Detail | Seen | Verdict |\n|---|---|---|---|---|---|`);
for (const nom of readdirSync(DOSSIER_PHOTOS).filter((n) => PIECES.test(n))) {
  // As PNG: the engine then answers PNG, without a second JPEG's noise in the measure.
  const source = await sharp(photo(nom)).png().toBuffer();
  const base = (await decoder(source)).pixels;
  const objets = await detecteurLocal.detecter(base);
  let verdict: string;
  try {
    await moteur.retoucher({ outil: 'vider', valeurs: {}, image: source, travail: 'vider-reel' });
    verdict = 'termine';
  } catch (e) {
    verdict = (e as Error).name;
  }
  const trouves = objets.filter((o) => o.nature === 'meuble').map((o) => o.nom);
  if (verdict === 'rien_a_retirer') {
    console.log(`| ${nom} | none | | | | rien_a_retirer |`);
    continue;
  }
  const zone = await zoneVider(base, objets);
  // The engine's own seed for this job: the fill, and its measure, are the ones it judged.
  const { resultat, qualite } = await remplirVider(base, zone, graineDe('vider-reel'));
  console.log(`| ${nom} | ${trouves.join(', ')} | ${qualite.part.toFixed(2)} | ${qualite.detail.toFixed(2)} | ${qualite.vu.toFixed(2)} | ${verdict} |`);
  const [avant, apres] = await Promise.all(
    [
      source,
      await sharp(resultat, { raw: { width: base.largeur, height: base.hauteur, channels: 3 } })
        .png()
        .toBuffer(),
    ].map((i) =>
      sharp(i)
        .resize(VIGNETTE, Math.round((VIGNETTE * 3) / 4), { fit: 'cover' })
        .toBuffer(),
    ),
  );
  const hauteur = Math.round((VIGNETTE * 3) / 4);
  const largeur = 2 * VIGNETTE + ECART;
  const pourquoi =
    verdict === 'termine'
      ? `termine: detail ${qualite.detail.toFixed(2)} ≥ ${SEUIL_DETAIL}, ${Math.round(qualite.part * 100)} % of the frame`
      : qualite.part > PART_MAX
        ? `refused: ${Math.round(qualite.part * 100)} % of the frame > ${PART_MAX * 100} %`
        : qualite.vu < SEUIL_VU
          ? `refused: a surface rebuilt seen elsewhere ${qualite.vu.toFixed(2)} < ${SEUIL_VU}`
          : `refused: detail ${qualite.detail.toFixed(2)} < ${SEUIL_DETAIL}`;
  cases.push(
    await sharp({ create: { width: largeur, height: hauteur + TEXTE, channels: 3, background: '#fff' } })
      .composite([
        { input: avant!, left: 0, top: 0 },
        { input: apres!, left: VIGNETTE + ECART, top: 0 },
        { input: etiquette([nom, pourquoi], largeur, verdict === 'termine' ? '#1a7f37' : '#b42318'), left: 0, top: hauteur },
      ])
      .png()
      .toBuffer(),
  );
}
// Two pairs per row.
const { width: lc, height: hc } = await sharp(cases[0]!).metadata();
const rangees = Math.ceil(cases.length / 2);
const planche = await sharp({ create: { width: 2 * lc! + 3 * ECART, height: rangees * (hc! + ECART), channels: 3, background: '#fff' } })
  .composite(cases.map((c, i) => ({ input: c, left: ECART + (i % 2) * (lc! + ECART), top: Math.floor(i / 2) * (hc! + ECART) })))
  .jpeg({ quality: 80, mozjpeg: true })
  .toBuffer();
writeFileSync(sortie, planche);
console.log(`\n${sortie}: ${(planche.length / 1024).toFixed(0)} KB`);
