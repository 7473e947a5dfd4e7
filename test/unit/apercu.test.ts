/**
 * The preview's mark (issue 39, point 1): a small, legible "Preview" in the lower right corner of every image
 * the preview engine delivers, in the request's language, and none on the production engine's; drawn
 * before the metadata, beside the staging notice without touching it.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { langueDemandee } from '../../lambdas/core/contrat/langue';
import { LANGUES } from '../../lambdas/core/modele/outils';
import { ajouterMarqueApercu, MARQUES_APERCU, zoneMarqueApercu } from '../../lambdas/moteurs/commun/apercu';
import { ajouterMention, svgMention } from '../../lambdas/moteurs/commun/mention';
import type { DetecteurPersonnes } from '../../lambdas/moteurs/commun/personnes';
import { decoder, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import { lireProvenance } from '../../lambdas/moteurs/commun/provenance';
import { fichierResultat } from '../../lambdas/moteurs/commun/resultat';

const gris = (largeur: number, hauteur: number): Pixels => ({ largeur, hauteur, data: Buffer.alloc(largeur * hauteur * 3, 128) });

/** The box of the pixels that differ between two images of the same size. */
const difference = (a: Pixels, b: Pixels) => {
  const boite = { x0: Infinity, y0: Infinity, x1: -1, y1: -1, n: 0 };
  for (let p = 0; p < a.largeur * a.hauteur; p++) {
    if ([0, 1, 2].every((c) => a.data[p * 3 + c] === b.data[p * 3 + c])) continue;
    const [x, y] = [p % a.largeur, Math.floor(p / a.largeur)];
    boite.n++;
    ((boite.x0 = Math.min(boite.x0, x)), (boite.y0 = Math.min(boite.y0, y)), (boite.x1 = Math.max(boite.x1, x + 1)), (boite.y1 = Math.max(boite.y1, y + 1)));
  }
  return boite;
};

/** No blur is asked here: a detector called would be a mistake. */
const personnes = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error('no blur was asked');
    },
  },
) as DetecteurPersonnes;

describe('the preview mark', () => {
  it('sits in the lower right corner, small, and changes nothing else', async () => {
    for (const [l, h] of [
      [4000, 3000],
      [3000, 4000],
      [640, 480],
      [160, 120],
    ] as const) {
      const avant = gris(l, h);
      const apres = await ajouterMarqueApercu(avant);
      const d = difference(avant, apres);
      const zone = await zoneMarqueApercu(l, h);
      // Every changed pixel is in the mark's rectangle, which is in the lower right corner.
      expect(d.x0, `${l}×${h}`).toBeGreaterThanOrEqual(zone.left);
      expect(d.y0).toBeGreaterThanOrEqual(zone.top);
      expect(d.x1).toBeLessThanOrEqual(zone.left + zone.largeur);
      expect(d.y1).toBeLessThanOrEqual(zone.top + zone.hauteur);
      expect(zone.left + zone.largeur / 2).toBeGreaterThan(l * 0.75);
      expect(zone.top + zone.hauteur / 2).toBeGreaterThan(h * 0.85);
      expect(l - (zone.left + zone.largeur)).toBeLessThanOrEqual(Math.ceil(Math.min(l, h) * 0.03));
      // Small: under 1.5 % of a photo (a 12 MP photo: 0.6 %), but text at least 11 px high, as the staging notice.
      expect((zone.largeur * zone.hauteur) / (l * h)).toBeLessThan(l < 300 ? 0.08 : 0.015);
      expect(zone.hauteur).toBeGreaterThanOrEqual(16);
      expect(d.n).toBeGreaterThan(zone.largeur * zone.hauteur * 0.8);
    }
  });

  it('is legible: white letters on a dark plate, whatever the photo behind', async () => {
    for (const fond of [0, 128, 255]) {
      const avant: Pixels = { largeur: 800, hauteur: 600, data: Buffer.alloc(800 * 600 * 3, fond) };
      const apres = await ajouterMarqueApercu(avant);
      const zone = await zoneMarqueApercu(800, 600);
      let [blancs, sombres] = [0, 0];
      for (let y = zone.top; y < zone.top + zone.hauteur; y++)
        for (let x = zone.left; x < zone.left + zone.largeur; x++) {
          const i = (y * 800 + x) * 3;
          const lum = (apres.data[i]! + apres.data[i + 1]! + apres.data[i + 2]!) / 3;
          if (lum > 235) blancs++;
          else if (lum < 120) sombres++;
        }
      // The letters (white) on the plate (dark amber): both there, the plate the larger.
      expect(blancs, `on ${fond}`).toBeGreaterThan(zone.largeur * zone.hauteur * 0.08);
      expect(sombres, `on ${fond}`).toBeGreaterThan(zone.largeur * zone.hauteur * 0.4);
    }
  });

  it('speaks the six languages, English by default, and the request names it', async () => {
    expect(MARQUES_APERCU.English).toBe('Preview');
    expect(MARQUES_APERCU.French).toBe('Aperçu');
    expect(Object.keys(MARQUES_APERCU).sort()).toEqual([...LANGUES].sort());
    const avant = gris(400, 300);
    const [defaut, anglais, francais] = await Promise.all([
      ajouterMarqueApercu(avant),
      ajouterMarqueApercu(avant, 'English'),
      ajouterMarqueApercu(avant, 'French'),
    ]);
    expect(defaut.data.equals(anglais.data)).toBe(true);
    expect(francais.data.equals(anglais.data)).toBe(false);

    expect(langueDemandee('fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7')).toBe('French');
    expect(langueDemandee('en')).toBe('English');
    expect(langueDemandee('ja, de;q=0.5, it;q=0.4')).toBe('German');
    expect(langueDemandee('es;q=0.2, nl;q=0.8')).toBe('Dutch');
    expect(langueDemandee('fr;q=0, it')).toBe('Italian');
    expect(langueDemandee('*')).toBeUndefined();
    expect(langueDemandee('ja, zh')).toBeUndefined();
    expect(langueDemandee(undefined)).toBeUndefined();
    expect(langueDemandee('')).toBeUndefined();
    // A header is the client's: only its start is read.
    expect(langueDemandee(`${'xx, '.repeat(200)}fr`)).toBeUndefined();
  });

  it('is on every preview result, before its metadata, and on no production result', async () => {
    const photo = gris(320, 240);
    const base = { outil: 'ciel' as const, valeurs: { floutage: 'none' }, graine: 7, personnes };
    const apercu = await fichierResultat(photo, 'png', { ...base, apercu: true, langue: 'French' });
    const production = await fichierResultat(photo, 'png', { ...base, apercu: false });
    const [a, p] = await Promise.all([decoder(apercu.fichier), decoder(production.fichier)]);
    expect(difference(photo, p.pixels).n).toBe(0);
    const d = difference(photo, a.pixels);
    const zone = await zoneMarqueApercu(320, 240, 'French');
    expect(d.n).toBeGreaterThan(0);
    expect([d.x0 >= zone.left, d.y0 >= zone.top]).toEqual([true, true]);
    // The metadata of the file says preview too, and the signature comes after (pipeline/service-outil.ts).
    expect(await lireProvenance(apercu.fichier)).toContain('preview');
  });

  it('leaves the staging notice whole, in the other corner, in the longest language on a portrait photo', async () => {
    const [l, h] = [900, 1200];
    const avecMention = await ajouterMention(gris(l, h), 'Spanish');
    const mention = await svgMention('Amueblado virtualmente', l, h);
    const zone = await zoneMarqueApercu(l, h, 'Spanish');
    expect(zone.left).toBeGreaterThan(Math.round(Math.min(l, h) * 0.025) + mention.l);
    const tout = await ajouterMarqueApercu(avecMention, 'Spanish');
    const d = difference(avecMention, tout);
    expect(d.x0).toBeGreaterThanOrEqual(zone.left);
  });

  it('survives the JPEG encoding of a result', async () => {
    const jpeg = await sharp(Buffer.alloc(640 * 480 * 3, 90), { raw: { width: 640, height: 480, channels: 3 } })
      .jpeg()
      .toBuffer();
    const { pixels } = await decoder(jpeg);
    const { fichier } = await fichierResultat(pixels, 'jpeg', { outil: 'vider', valeurs: {}, apercu: true, graine: 1, personnes });
    const relu = (await decoder(fichier)).pixels;
    const zone = await zoneMarqueApercu(640, 480);
    const i = ((zone.top + Math.floor(zone.hauteur / 2)) * 640 + zone.left + 2) * 3;
    // The plate's left edge, amber: red above green and blue.
    expect(relu.data[i]!).toBeGreaterThan(relu.data[i + 2]! + 30);
  });
});
