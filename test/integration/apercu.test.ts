/**
 * The preview engine says what it is (issue 39, point 1), end to end on the local stack: GET /outils tells
 * which engine the stage runs, every job of the preview engine answers `apercu: true` and its result image
 * carries the mark in the request's language in its lower right corner; a stage on the production engine
 * answers `apercu: false` and delivers its result unmarked, while its test keys' jobs are previews, marked
 * the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerCle } from '../../lambdas/core/domaine/comptes';
import { detecterFormat } from '../../lambdas/core/modele/images';
import { zoneMarqueApercu } from '../../lambdas/moteurs/commun/apercu';
import type { Moteur } from '../../lambdas/moteurs/commun/moteur';
import { decoder, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import type { Travail } from '../../lambdas/core/modele/enregistrements';
import { appeler, attendreTravail, enBase64, imageTest } from '../support/client';
import { demarrerPileTest, pilePartagee } from '../support/pile';

const [L, H] = [320, 240];

/** Starts a ciel job on the photo (PNG in, PNG out: untouched pixels stay exact) and waits for it. */
const lancerCiel = async (urlBase: string, cle: string, photo: Buffer, langue?: string): Promise<Travail> => {
  const lancement = await appeler(urlBase, 'POST', '/travaux', {
    cle,
    json: { outil: 'ciel', images: [{ base64: enBase64(photo) }] },
    ...(langue ? { entetes: { 'Accept-Language': langue } } : {}),
  });
  expect(lancement.statut).toBe(202);
  return attendreTravail(urlBase, cle, lancement.corps.travaux[0].id);
};

const resultat = async (travail: Travail): Promise<Pixels> => {
  expect(travail.statut).toBe('termine');
  return (await decoder(Buffer.from(await (await fetch(travail.resultats[0]!.url)).arrayBuffer()))).pixels;
};

/** Pixels of `a` and `b` that differ, inside and outside a rectangle. */
const ecarts = (a: Pixels, b: Pixels, zone: { left: number; top: number; largeur: number; hauteur: number }) => {
  let [dedans, dehors] = [0, 0];
  for (let p = 0; p < a.largeur * a.hauteur; p++) {
    if ([0, 1, 2].every((c) => a.data[p * 3 + c] === b.data[p * 3 + c])) continue;
    const [x, y] = [p % a.largeur, Math.floor(p / a.largeur)];
    if (x >= zone.left && x < zone.left + zone.largeur && y >= zone.top && y < zone.top + zone.hauteur) dedans++;
    else dehors++;
  }
  return { dedans, dehors };
};

/** The mark's plate: amber pixels (red well above blue) fill most of its rectangle, white letters a little (thin, antialiased at 11 px). */
const comptes = async (p: Pixels, langue?: 'French' | 'English') => {
  const zone = await zoneMarqueApercu(p.largeur, p.hauteur, langue);
  let [ambre, blanc] = [0, 0];
  for (let y = zone.top; y < zone.top + zone.hauteur; y++)
    for (let x = zone.left; x < zone.left + zone.largeur; x++) {
      const i = (y * p.largeur + x) * 3;
      const [r, v, b] = [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!];
      if (r > 235 && v > 235 && b > 235) blanc++;
      else if (r > b + 60 && r > v + 30) ambre++;
    }
  return { ambre, blanc, aire: zone.largeur * zone.hauteur };
};
const porteLaMarque = async (p: Pixels, langue?: 'French' | 'English') => {
  const { ambre, blanc, aire } = await comptes(p, langue);
  return ambre > aire * 0.4 && blanc > aire * 0.03;
};

describe('a stage on the preview engine (npm start)', () => {
  let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
  let cle: string;
  beforeAll(async () => {
    pile = await pilePartagee();
    ({ cle } = await pile.creerCompte(20));
  });
  afterAll(async () => {
    await pile?.arreter();
  });

  it('says so in GET /outils, on every job, and on every result image, in the request’s language', async () => {
    expect((await appeler(pile.urlBase, 'GET', '/outils')).corps.apercu).toBe(true);
    const photo = await imageTest(3, 'png', L, H);
    const [francais, anglais, sansLangue] = await Promise.all([
      lancerCiel(pile.urlBase, cle, photo, 'fr-FR,fr;q=0.9,en;q=0.8'),
      lancerCiel(pile.urlBase, cle, photo, 'en-GB'),
      lancerCiel(pile.urlBase, cle, photo),
    ]);
    for (const t of [francais, anglais, sansLangue]) expect(t).toMatchObject({ statut: 'termine', apercu: true, test: false });
    const [fr, en, defaut] = await Promise.all([resultat(francais), resultat(anglais), resultat(sansLangue)]);
    expect(await porteLaMarque(fr, 'French')).toBe(true);
    expect(await porteLaMarque(en, 'English'), JSON.stringify(await comptes(en))).toBe(true);
    // The same job on the same photo: the results differ only where the marks are (both end at the same corner).
    const [zoneFr, zoneEn] = [await zoneMarqueApercu(L, H, 'French'), await zoneMarqueApercu(L, H, 'English')];
    const zone = zoneFr.left < zoneEn.left ? zoneFr : zoneEn;
    const difference = ecarts(fr, en, zone);
    expect(difference.dehors).toBe(0);
    expect(difference.dedans).toBeGreaterThan(50);
    // No language asked: English.
    expect(ecarts(en, defaut, zone)).toEqual({ dedans: 0, dehors: 0 });
    // And the corner is the mark's, not the photo's: the edit alone leaves it as the tool made it elsewhere.
    const photoPixels = (await decoder(photo)).pixels;
    expect(await porteLaMarque(photoPixels)).toBe(false);

    // A listing text carries no mark in its text: the job says preview.
    const annonce = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'annonce', valeurs: { lieu: 'Gent' } } });
    const texte = await attendreTravail(pile.urlBase, cle, annonce.corps.travaux[0].id);
    expect(texte).toMatchObject({ statut: 'termine', apercu: true, redaction: { intelligence_artificielle: false } });
    // Listed and read the same way.
    const liste = (await appeler(pile.urlBase, 'GET', '/travaux', { cle })).corps.travaux as Travail[];
    expect(liste.map((t) => t.apercu)).toEqual(liste.map(() => true));
  });
});

describe('a stage on the production engine', () => {
  /** Stands for Bedrock: gives the photo back as it is, as a perfect model would that changed nothing. */
  const production: Moteur = {
    nom: 'bedrock',
    retoucher: async ({ image }) => ({
      image,
      format: detecterFormat(image)!,
      graine: 1,
      structure: { score: 1, seuil: 0.6, essais: 1 },
      floutage: null,
    }),
    rediger: async () => ({ texte: '# Listing', redaction: { automatique: true, intelligence_artificielle: true, modele: 'production double' } }),
  };
  let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
  let live: string;
  let test: string;
  const avant = process.env.RETOUCHE_MOTEUR;
  beforeAll(async () => {
    // What CDK gives the catalogue's functions on a Bedrock stage (lib/api.ts): read as the stack makes its handlers.
    process.env.RETOUCHE_MOTEUR = 'bedrock';
    pile = await demarrerPileTest({ moteur: production });
    let compte: string;
    ({ compte, cle: live } = await pile.creerCompte(20));
    test = (await creerCle(pile.deps, compte, { test: true })).cle;
  });
  afterAll(async () => {
    if (avant === undefined) delete process.env.RETOUCHE_MOTEUR;
    else process.env.RETOUCHE_MOTEUR = avant;
    await pile?.arreter();
  });

  it('answers apercu: false and an unmarked result, but marks its test keys’ jobs as previews', async () => {
    // The local stack's public route reads no environment of its own: its handler, as CDK configures it.
    const { creer } = await import('../../lambdas/http/outils');
    expect(JSON.parse((await creer({ RETOUCHE_MOTEUR: 'bedrock' })({} as never, {} as never)).body).apercu).toBe(false);
    const photo = await imageTest(5, 'png', L, H);
    const lancement = await appeler(pile.urlBase, 'POST', '/travaux', { cle: live, json: { outil: 'ciel', images: [{ base64: enBase64(photo) }] } });
    expect(lancement.corps.travaux[0].apercu).toBe(false);
    const vivant = await attendreTravail(pile.urlBase, live, lancement.corps.travaux[0].id);
    expect(vivant).toMatchObject({ statut: 'termine', apercu: false, test: false });
    const photoPixels = (await decoder(photo)).pixels;
    expect(ecarts(await resultat(vivant), photoPixels, await zoneMarqueApercu(L, H))).toEqual({ dedans: 0, dehors: 0 });

    const essai = await lancerCiel(pile.urlBase, test, photo, 'fr');
    expect(essai).toMatchObject({ statut: 'termine', apercu: true, test: true });
    expect(await porteLaMarque(await resultat(essai), 'French')).toBe(true);
  });
});
