/**
 * The local engine's detectors on the real photographs of test/photos, against their truth
 * (verite.json): per class, recall and precision at IoU ≥ 0.5 (test/support/verite.ts scores them),
 * for each source alone and as the engine combines them; NanoDet at several score thresholds; and the
 * decisions a person sees (vider on an empty room, staging on an exterior, saison on an interior), and
 * how often the detector's indoor objects tell an interior. For the window and door finder
 * (commun/fenetres.ts), which both engines add to their detector, also what a protective mask needs
 * more than IoU ≥ 0.5: how much of each true window or door its boxes cover, and how much of the
 * frame they cover where no fixed element is (a false window protects a patch of wall, or leaves part
 * of the bed vider removes: that share is given apart).
 *
 *   npm run bench:detecteurs
 */
import { readdirSync } from 'node:fs';
import { preuveDExterieur, preuveDInterieur, type ObjetDetecte } from '../lambdas/moteurs/commun/detection';
import type { Genre } from '../lambdas/moteurs/commun/personnes';
import { decoder } from '../lambdas/moteurs/commun/pixels';
import { avecOuvertures, trouverFenetres } from '../lambdas/moteurs/commun/fenetres';
import type { Rectangle } from '../lambdas/moteurs/commun/masques';
import { detecteurCouleurs } from '../lambdas/moteurs/local/detecteur-local';
import { CONFIANCE_INDICE, CONFIANCE_MIN, trouverObjets } from '../lambdas/moteurs/local/objets-nanodet';
import { zonesSaison } from '../lambdas/moteurs/local/saison';
import { detecteurCouleurs as personnesCouleurs } from '../lambdas/moteurs/local/personnes-local';
import { trouverVisages } from '../lambdas/moteurs/local/visages-blazeface';
import { regionAgrandie } from '../lambdas/moteurs/commun/floutage';
import { fusionner } from '../lambdas/moteurs/commun/personnes';
import { zoneStaging, zoneVider } from '../lambdas/moteurs/commun/zones';
import { ajouter, apparier, DOSSIER_PHOTOS, photo, precision, rappel, rectangle, SCORE_VIDE, verite, type ObjetVrai, type Score } from '../test/support/verite';

const FENETRES_PORTES = new Set(['Window', 'Door']);
const SEUILS = [0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5];
const TOUS: ReadonlySet<Genre> = new Set(['visage', 'plaque']);

const truth = verite();
const manquantes = readdirSync(DOSSIER_PHOTOS).filter((f) => f.endsWith('.jpg') && !truth[f]);
if (manquantes.length) console.log(`photos without truth (left out): ${manquantes.join(', ')}`);

type Lignes = Map<string, Score>;
const lignes: Lignes = new Map();
const compter = (cle: string, s: Score) => lignes.set(cle, ajouter(lignes.get(cle) ?? SCORE_VIDE, s));

const vrais = (objets: readonly ObjetVrai[], garder: (o: ObjetVrai) => boolean) => objets.filter(garder).map((o) => rectangle(o.boite));
const meubles = (d: readonly ObjetDetecte[]) => d.filter((o) => o.nature === 'meuble');
const fenetresPortes = (d: readonly ObjetDetecte[]) => d.filter((o) => o.nature === 'fixe' && FENETRES_PORTES.has(o.nom));
const autresFixes = (d: readonly ObjetDetecte[]) => d.filter((o) => o.nature === 'fixe' && !FENETRES_PORTES.has(o.nom) && !preuveDExterieur([o]));

let [temps, n] = [0, 0];
let tempsFenetres = 0;

/** Rasters of the frame at this many cells a side: enough for a window of 1 % of the width. */
const GRILLE = 256;
const raster = (boites: readonly Rectangle[]): Uint8Array => {
  const g = new Uint8Array(GRILLE * GRILLE);
  for (const b of boites)
    for (let y = Math.max(0, Math.floor(b.y0 * GRILLE)); y < Math.min(GRILLE, Math.ceil(b.y1 * GRILLE)); y++)
      g.fill(1, y * GRILLE + Math.max(0, Math.floor(b.x0 * GRILLE)), y * GRILLE + Math.min(GRILLE, Math.ceil(b.x1 * GRILLE)));
  return g;
};
/** Per kind of photo: the sum over true windows and doors of the share covered, their number, the false areas' sums, the photos. */
const couvertures = new Map<string, { couvert: number; vrais: number; faux: number; fauxMeuble: number; photos: number; boites: number }>();
const mesurerCouverture = (
  cle: string,
  trouvees: readonly Rectangle[],
  vraies: readonly Rectangle[],
  fixesVrais: readonly Rectangle[],
  meublesVrais: readonly Rectangle[],
) => {
  const c = couvertures.get(cle) ?? { couvert: 0, vrais: 0, faux: 0, fauxMeuble: 0, photos: 0, boites: 0 };
  const [t, f, m] = [raster(trouvees), raster(fixesVrais), raster(meublesVrais)];
  for (const v of vraies) {
    const r = raster([v]);
    let [dans, couvert] = [0, 0];
    for (let i = 0; i < r.length; i++) if (r[i]) (dans++, t[i] && couvert++);
    c.couvert += dans ? couvert / dans : 0;
  }
  let [faux, fauxMeuble] = [0, 0];
  for (let i = 0; i < t.length; i++) if (t[i] && !f[i]) (faux++, m[i] && fauxMeuble++);
  c.vrais += vraies.length;
  c.faux += faux / t.length;
  c.fauxMeuble += fauxMeuble / t.length;
  c.photos++;
  c.boites += trouvees.length;
  couvertures.set(cle, c);
};
/** What staging and vider decide, by what the photo is: counts of each verdict. */
const decisions = new Map<string, number>();
const decider = async (cle: string, f: () => Promise<unknown>) => {
  let verdict = 'runs';
  try {
    await f();
  } catch (e) {
    const m = (e as Error).message;
    const pourquoi = ['outside', 'furnished', 'bathroom', 'No sky', 'no grey winter sky'].find((mot) => m.includes(mot));
    verdict = `${(e as Error).name}${pourquoi ? ` (${pourquoi.toLowerCase()})` : ''}`;
  }
  decisions.set(`${cle} → ${verdict}`, (decisions.get(`${cle} → ${verdict}`) ?? 0) + 1);
};
for (const [nom, v] of Object.entries(truth)) {
  const { pixels } = await decoder(photo(nom));
  const couleurs = await detecteurCouleurs.detecter(pixels);
  const t = performance.now();
  const modeleBas = await trouverObjets(pixels, Math.min(...SEUILS));
  temps += performance.now() - t;
  n++;
  const modele = modeleBas.filter((o) => o.confiance >= CONFIANCE_MIN);
  const sorte = v.lieu === 'exterieur' ? 'exterior' : v.meublee ? 'furnished room' : 'empty room';
  // The looser reading that tells an interior (local/index.ts gives it to staging, ciel and saison).
  const indices = modeleBas.filter((o) => o.confiance >= CONFIANCE_INDICE);
  decisions.set(
    `${v.lieu === 'exterieur' ? 'exteriors' : 'interiors'} told inside (NanoDet ≥ ${CONFIANCE_INDICE})`,
    (decisions.get(`${v.lieu === 'exterieur' ? 'exteriors' : 'interiors'} told inside (NanoDet ≥ ${CONFIANCE_INDICE})`) ?? 0) +
      (preuveDInterieur(indices) ? 1 : 0),
  );
  await decider(`staging on ${sorte === 'furnished room' ? 'a' : 'an'} ${sorte}`, () => zoneStaging(pixels, modele, indices));
  await decider(`saison on ${v.lieu === 'exterieur' ? (v.hiver ? 'a winter exterior' : 'an exterior, not winter') : 'an interior'}`, () =>
    zonesSaison(pixels, indices),
  );
  await decider(`vider on ${sorte === 'furnished room' ? 'a' : 'an'} ${sorte}`, () => zoneVider(pixels, modele));
  const m = vrais(v.objets, (o) => o.classe === 'meuble');
  const fp = vrais(v.objets, (o) => o.classe === 'fixe' && FENETRES_PORTES.has(o.nom ?? ''));
  const fa = vrais(v.objets, (o) => o.classe === 'fixe' && !FENETRES_PORTES.has(o.nom ?? ''));
  compter('furniture · colour rules', apparier(meubles(couleurs), m));
  for (const s of SEUILS) compter(`furniture · NanoDet ≥ ${s}`, apparier(meubles(modeleBas.filter((o) => o.confiance >= s)), m));
  // What vider is for: pieces of 1 % of the frame or more (a chair, a bed, a table); smaller truths may be found at no cost.
  const grands = vrais(v.objets, (o) => o.classe === 'meuble' && (o.boite[2] - o.boite[0]) * (o.boite[3] - o.boite[1]) >= 0.01);
  const petitsMeubles = vrais(v.objets, (o) => o.classe === 'meuble' && (o.boite[2] - o.boite[0]) * (o.boite[3] - o.boite[1]) < 0.01);
  for (const s of SEUILS)
    compter(`furniture ≥ 1 % of frame · NanoDet ≥ ${s}`, apparier(meubles(modeleBas.filter((o) => o.confiance >= s)), grands, petitsMeubles));
  compter('windows+doors · colour rules', apparier(fenetresPortes(couleurs), fp));
  // The finder as the local engine runs it: told an interior by the model's indoor objects.
  const t2 = performance.now();
  const ouvertes = await trouverFenetres(pixels, { interieur: preuveDInterieur(indices) !== undefined });
  tempsFenetres += performance.now() - t2;
  compter('windows+doors · edge finder', apparier(fenetresPortes(ouvertes), fp));
  compter('windows+doors · local engine (NanoDet + edge finder)', apparier(fenetresPortes(avecOuvertures(modele, ouvertes)), fp));
  const fixesVrais = vrais(v.objets, (o) => o.classe === 'fixe');
  const boitesOuvertes = fenetresPortes(ouvertes).map((o) => o.boite);
  for (const cle of ['all photos', v.lieu === 'exterieur' ? 'exteriors' : 'interiors']) mesurerCouverture(cle, boitesOuvertes, fp, fixesVrais, m);
  compter('other fixed · colour rules', apparier(autresFixes(couleurs), fa));
  compter(`other fixed · NanoDet ≥ ${CONFIANCE_MIN}`, apparier(autresFixes(modele), fa));
  // Faces: those of 24 px or more on their short side are to be found; smaller ones may be, at no cost.
  const grand = (o: ObjetVrai) => Math.min((o.boite[2] - o.boite[0]) * pixels.largeur, (o.boite[3] - o.boite[1]) * pixels.hauteur) >= 24;
  const visages = vrais(v.objets, (o) => o.classe === 'visage' && grand(o));
  const petits = vrais(v.objets, (o) => o.classe === 'visage' && !grand(o));
  const regles = await personnesCouleurs.detecter(pixels, TOUS);
  const blaze = await trouverVisages(pixels);
  const enDetections = (r: readonly { boite: ObjetDetecte['boite']; confiance: number }[]) => r.map((x) => ({ boite: x.boite, confiance: x.confiance }));
  compter('faces ≥ 24 px · colour rules', apparier(enDetections(regles.filter((r) => r.genre === 'visage')), visages, petits));
  compter('faces ≥ 24 px · BlazeFace', apparier(enDetections(blaze), visages, petits));
  const visagesMoteur = fusionner([...regles, ...blaze]).filter((r) => r.genre === 'visage');
  compter('faces ≥ 24 px · engine (combined)', apparier(enDetections(visagesMoteur), visages, petits));
  // What blurring needs: the face under the blur. A true face counts when 70 % of its box lies inside the
  // regions the blur covers (each detection grown by its margin, floutage.ts); a detector's box tighter or
  // looser than the hand-drawn one is no miss then.
  const zones = visagesMoteur.map((r) => regionAgrandie(r, 1, 1).exacte);
  const couverts = visages.filter((vrai) => {
    let [dedans, n] = [0, 0];
    for (let i = 0; i < 20; i++)
      for (let j = 0; j < 20; j++) {
        const [x, y] = [vrai.x0 + ((i + 0.5) / 20) * (vrai.x1 - vrai.x0), vrai.y0 + ((j + 0.5) / 20) * (vrai.y1 - vrai.y0)];
        n++;
        if (zones.some((z) => x >= z.x0 && x < z.x1 && y >= z.y0 && y < z.y1)) dedans++;
      }
    return dedans >= 0.7 * n;
  }).length;
  compter('faces ≥ 24 px under the blur · engine', { trouves: couverts, attendus: visages.length, fausses: 0 });
  const plaques = vrais(v.objets, (o) => o.classe === 'plaque' && o.lisible === true);
  const illisibles = vrais(v.objets, (o) => o.classe === 'plaque' && o.lisible !== true);
  compter('legible plates · colour rules', apparier(enDetections(regles.filter((r) => r.genre === 'plaque')), plaques, illisibles));
}

const pct = (x: number) => (Number.isNaN(x) ? '   –' : `${(100 * x).toFixed(0).padStart(3)}%`);
console.log(`\n${Object.keys(truth).length} photos; NanoDet ${Math.round(temps / n)} ms per photo on average (${process.arch}, Node ${process.version})\n`);
console.log('| class · detector | found / true | false | recall | precision |');
console.log('|---|---|---|---|---|');
for (const [cle, s] of lignes) console.log(`| ${cle} | ${s.trouves} / ${s.attendus} | ${s.fausses} | ${pct(rappel(s))} | ${pct(precision(s))} |`);

console.log(
  `\n| windows+doors · edge finder (${Math.round(tempsFenetres / n)} ms per photo) | boxes | true | true area covered, mean | false area, mean share of frame | of which on true furniture |`,
);
console.log('|---|---|---|---|---|---|');
for (const [cle, c] of couvertures)
  console.log(
    `| ${cle} (${c.photos}) | ${c.boites} | ${c.vrais} | ${pct(c.couvert / c.vrais)} | ${(100 * (c.faux / c.photos)).toFixed(2)}% | ${(100 * (c.fauxMeuble / c.photos)).toFixed(2)}% |`,
  );

console.log('\n| decision (NanoDet boxes, zones.ts) | photos |');
console.log('|---|---|');
for (const [cle, nombre] of [...decisions].sort()) console.log(`| ${cle} | ${nombre} |`);
