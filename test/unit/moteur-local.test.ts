/** The local preview engine: real, different, reproducible images that keep untouched pixels. */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { OutilImage } from '../../lambdas/core/modele/outils';
import { redigerAnnonceLocale } from '../../lambdas/moteurs/local/annonce-locale';
import { creerMoteurLocal } from '../../lambdas/moteurs/local/index';
import { detecteurCouleurs } from '../../lambdas/moteurs/local/detecteur-local';
import { decoder } from '../../lambdas/moteurs/commun/pixels';
import { zoneStaging, zoneVider } from '../../lambdas/moteurs/commun/zones';
import { lireProvenance } from '../../lambdas/moteurs/commun/provenance';
import { redresser } from '../../lambdas/moteurs/commun/redressement';
import { sansMarque } from '../support/apercu';
import { imageTest, pieceTest } from '../support/client';

// The images here are drawn: the colour rules read them (the trained model reads the real photos of moteur-reel.test.ts).
const moteur = creerMoteurLocal({ detecteur: detecteurCouleurs });
const OUTILS: OutilImage[] = ['vider', 'staging', 'renovation', 'saison', 'ciel'];

const pixels = async (image: Buffer) => sharp(image).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });

const ecartMoyen = (a: Buffer, b: Buffer): number => {
  let somme = 0;
  for (let i = 0; i < a.length; i++) somme += Math.abs(a[i]! - b[i]!);
  return somme / a.length;
};

describe('local preview engine', () => {
  it('each tool returns a real image of the same size, different from the input and from the other tools', async () => {
    const [dehors, dedans] = [await imageTest(1, 'png', 160, 120), await pieceTest(1, 'png', 160, 120)];
    const sorties = new Map<string, Buffer>();
    for (const outil of OUTILS) {
      // staging furnishes a room seen from inside, renovation repaints its walls (the drawn garden has no
      // facade, only a sky over the ground, which it leaves); the other tools take the garden.
      const source = outil === 'staging' || outil === 'renovation' ? dedans : dehors;
      const entree = await pixels(source);
      const valeurs: Record<string, string> = outil === 'renovation' ? { zone: 'interieur' } : {};
      const { image, format, graine } = await moteur.retoucher({ outil, valeurs, image: source, travail: 'travail-1' });
      expect(format).toBe('png');
      expect(graine).toEqual(expect.any(Number));
      const sortie = await pixels(image);
      expect([sortie.info.width, sortie.info.height]).toEqual([160, 120]);
      expect(ecartMoyen(sortie.data, entree.data), outil).toBeGreaterThan(1);
      sorties.set(outil, sortie.data);
    }
    for (const a of OUTILS) for (const b of OUTILS) if (a < b) expect(sorties.get(a)!.equals(sorties.get(b)!), `${a} vs ${b}`).toBe(false);
  });

  it('settings change the result: two staging styles differ, two renovation zones differ', async () => {
    const source = await pieceTest(2);
    const style = async (valeurs: Record<string, string>, outil: OutilImage = 'staging') =>
      (await moteur.retoucher({ outil, valeurs, image: source, travail: 't' })).image;
    expect((await style({ style: 'japandi' })).equals(await style({ style: 'industrial' }))).toBe(false);
    expect((await style({ piece: 'bedroom' })).equals(await style({ piece: 'kitchen' }))).toBe(false);
    expect((await style({ zone: 'facade' }, 'renovation')).equals(await style({ zone: 'interieur' }, 'renovation'))).toBe(false);
  });

  it('is reproducible: the same job gives the same bytes', async () => {
    const source = await imageTest(3);
    const a = await moteur.retoucher({ outil: 'saison', valeurs: {}, image: source, travail: 'même' });
    const b = await moteur.retoucher({ outil: 'saison', valeurs: {}, image: source, travail: 'même' });
    expect(a.image.equals(b.image)).toBe(true);
    expect(a.graine).toBe(b.graine);
  });

  /** Rows and columns, in pixels, where a result differs from `reference` (both raw RGB of the same size). */
  const modifie = (a: Buffer, reference: Buffer, largeur: number) => {
    const zone = { x0: Infinity, x1: -1, y0: Infinity, y1: -1 };
    for (let p = 0; p < a.length / 3; p++) {
      const i = p * 3;
      if (a[i] === reference[i] && a[i + 1] === reference[i + 1] && a[i + 2] === reference[i + 2]) continue;
      const [x, y] = [p % largeur, Math.floor(p / largeur)];
      ((zone.x0 = Math.min(zone.x0, x)), (zone.x1 = Math.max(zone.x1, x + 1)), (zone.y0 = Math.min(zone.y0, y)), (zone.y1 = Math.max(zone.y1, y + 1)));
    }
    return zone;
  };

  // saison is not here: it turns the whole garden to summer, its grey sky and the light on the ground (lumiere-ciel.test.ts).
  it('renovation changes only its zone: every other pixel is the input, exactly', async () => {
    const [l, h] = [200, 150];
    const source = await imageTest(4, 'png', l, h);
    const avant = await pixels(source);
    const dedans = (z: { x0: number; x1: number; y0: number; y1: number }, r: { x0: number; x1: number; y0: number; y1: number }) =>
      z.x0 >= Math.round(r.x0 * l) && z.x1 <= Math.round(r.x1 * l) && z.y0 >= Math.round(r.y0 * h) && z.y1 <= Math.round(r.y1 * h);
    const zones: [OutilImage, Record<string, string>, { x0: number; x1: number; y0: number; y1: number }][] = [
      ['renovation', { zone: 'interieur' }, { x0: 0, x1: 1, y0: 0, y1: 0.55 }],
      ['renovation', { zone: 'facade' }, { x0: 0, x1: 1, y0: 0.25, y1: 0.92 }],
    ];
    for (const [outil, valeurs, attendue] of zones) {
      const { image } = await moteur.retoucher({ outil, valeurs, image: source, travail: 't' });
      const change = modifie(await sansMarque((await pixels(image)).data, avant.data, l, h), avant.data, l);
      expect(change.x1, `${outil} changed something`).toBeGreaterThan(0);
      expect(dedans(change, attendue), `${outil} ${JSON.stringify(valeurs)} changed ${JSON.stringify(change)}`).toBe(true);
    }
  });

  it('vider and staging change only the area built from what the local detector found (zones.ts), and never a fixed element', async () => {
    for (const [outil, valeurs] of [
      ['vider', {}],
      ['staging', { piece: 'bedroom', style: 'industrial' }],
    ] as const) {
      const source = await (outil === 'staging' ? pieceTest : imageTest)(4, 'png', 240, 160);
      const photo = (await decoder(source)).pixels;
      const objets = await detecteurCouleurs.detecter(photo);
      const zone = outil === 'vider' ? await zoneVider(photo, objets) : await zoneStaging(photo, objets);
      const { image, structure } = await moteur.retoucher({ outil, valeurs, image: source, travail: 't' });
      expect(structure.essais, outil).toBe(1);
      const apres = await sansMarque((await pixels(image)).data, photo.data, 240, 160);
      let changes = 0;
      for (let p = 0; p < zone.masque.length; p++) {
        const i = p * 3;
        if (apres[i] === photo.data[i] && apres[i + 1] === photo.data[i + 1] && apres[i + 2] === photo.data[i + 2]) continue;
        changes++;
        expect(zone.masque[p], `${outil}: pixel ${p % 240},${Math.floor(p / 240)} outside its zone`).toBe(255);
        expect(zone.fixes[p], `${outil}: a fixed element changed`).toBe(0);
      }
      expect(changes, outil).toBeGreaterThan(0);
    }
  });

  it('vider on a photo where the local detector finds no furniture: rien_a_retirer, as in production', async () => {
    const ciel = await sharp({ create: { width: 160, height: 120, channels: 3, background: { r: 120, g: 170, b: 230 } } })
      .png()
      .toBuffer();
    await expect(moteur.retoucher({ outil: 'vider', valeurs: {}, image: ciel, travail: 't' })).rejects.toMatchObject({ name: 'rien_a_retirer' });
    await expect(moteur.retoucher({ outil: 'staging', valeurs: {}, image: ciel, travail: 't' })).rejects.toMatchObject({ name: 'sol_introuvable' });
  });

  it('ciel corrects light and verticals as production does, then replaces only the sky: the ground is the corrected photo, exactly', async () => {
    const source = await imageTest(4, 'png', 120, 80);
    const { image } = await moteur.retoucher({ outil: 'ciel', valeurs: {}, image: source, travail: 't' });
    const corrigee = await redresser((await decoder(source)).pixels);
    const apres = await sansMarque((await pixels(image)).data, corrigee.data, 120, 80);
    const change = modifie(apres, corrigee.data, 120);
    expect(change.y0).toBe(0);
    expect(change.y1).toBeLessThanOrEqual(Math.floor(80 * 0.65));
  });

  it('draws the "virtually staged" notice when asked, in the language asked, only in the lower left corner', async () => {
    const [l, h] = [320, 240];
    const source = await pieceTest(7, 'png', l, h);
    const staging = async (mention: string) =>
      (await pixels((await moteur.retoucher({ outil: 'staging', valeurs: { mention }, image: source, travail: 't' })).image)).data;
    const sans = await staging('none');
    const anglais = await staging('English');
    const allemand = await staging('German');
    const notice = modifie(anglais, sans, l);
    expect(notice.x0).toBeLessThan(l * 0.1);
    expect(notice.y1).toBe(h - Math.round(Math.min(l, h) * 0.025));
    expect(notice.y0).toBeGreaterThan(h * 0.8);
    expect(notice.x1).toBeLessThan(l * 0.6);
    // A longer text, a wider plate.
    expect(modifie(allemand, sans, l).x1).toBeGreaterThan(notice.x1);
  });

  it('applies EXIF orientation: a portrait JPEG stored landscape comes back portrait', async () => {
    const paysage = await sharp(await imageTest(5, 'jpeg', 90, 60))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const { image } = await moteur.retoucher({ outil: 'saison', valeurs: {}, image: paysage, travail: 't' });
    const meta = await sharp(image).metadata();
    expect([meta.width, meta.height]).toEqual([60, 90]);
  });

  it('marks every result as edited by Retouche with its tool, as a local preview', async () => {
    const { image } = await moteur.retoucher({ outil: 'renovation', valeurs: {}, image: await imageTest(6), travail: 't' });
    const provenance = await lireProvenance(image);
    expect(provenance).toContain('Edited by Retouche, tool renovation');
    expect(provenance).toContain('local preview');
  });

  it('unreadable bytes end the job with image_illisible', async () => {
    await expect(moteur.retoucher({ outil: 'ciel', valeurs: {}, image: Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2]), travail: 't' })).rejects.toMatchObject({
      name: 'image_illisible',
    });
  });
});

describe('local listing writer', () => {
  const valeurs = { lieu: 'Gent', infos: '3 bedrooms; 120 m²', atouts: 'garden, quiet street' };

  it('writes in each of the six languages, with only the facts given', () => {
    const mots = { French: 'vendre', English: 'sale', Dutch: 'koop', German: 'verkaufen', Spanish: 'venta', Italian: 'vendita' };
    for (const [langue, mot] of Object.entries(mots)) {
      const texte = redigerAnnonceLocale({ ...valeurs, langue }, 2);
      expect(texte, langue).toContain(mot);
      expect(texte).toContain('Gent');
      expect(texte).toContain('- garden');
      expect(texte).toContain('120 m²');
      // Digits only come from the facts given (3, 120) and the number of photos (2).
      expect(texte.match(/\d+/g)?.sort()).toEqual(['120', '2', '3']);
    }
  });

  it('defaults to Dutch and keeps user text from becoming Markdown structure', () => {
    const texte = redigerAnnonceLocale({ lieu: '# Titre [lien](https://x.example)', atouts: '**gras**' }, 0);
    expect(texte).toContain('Te koop');
    expect(texte).not.toContain('](https://');
    expect(texte).toContain('\\*\\*gras\\*\\*');
    expect(texte.split('\n').filter((l) => l.startsWith('#'))).toHaveLength(2);
  });

  it('lists the facts given, split on commas, semicolons and lines, but not inside a number', () => {
    const texte = redigerAnnonceLocale(
      { lieu: 'Gent', langue: 'English', infos: '3 bedrooms, €465,000; 2,5 km to the station\n120 m²', atouts: 'garden,quiet' },
      0,
    );
    expect(texte).toContain('- 3 bedrooms\n- €465,000\n- 2,5 km to the station\n- 120 m²');
    expect(texte).toContain('- garden\n- quiet');
  });

  it('honours the simulated model time', async () => {
    const lent = creerMoteurLocal({ delaiMs: 120, detecteur: detecteurCouleurs });
    const debut = performance.now();
    await lent.rediger({ valeurs: { lieu: 'Gent' }, images: [], travail: 't' });
    expect(performance.now() - debut).toBeGreaterThanOrEqual(100);
  });
});
