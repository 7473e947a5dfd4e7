/**
 * The C2PA marking on its own: what the production engine's results declare (checked by the
 * independent verifier), that signing adds metadata only (the decoded pixels are the same bytes in
 * JPEG, PNG and WebP), and that a key that does not match its certificate is refused at once.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { creerPkiTest, type PkiTest } from '../../lambdas/moteurs/c2pa/certificats';
import { creerMarqueur, lireCleC2pa } from '../../lambdas/moteurs/c2pa/marquage';
import { TYPES_SOURCE } from '../../lambdas/moteurs/commun/provenance';
import { fichierResultat } from '../../lambdas/moteurs/commun/resultat';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { imageTest } from '../support/images';

let pki: PkiTest;
beforeAll(async () => {
  pki = await creerPkiTest('Retouche unit test');
});

/** No `floutage` asked: the detector must not even be called. */
const aucunePersonne = { nom: 'aucun', detecter: () => Promise.reject(new Error('no floutage was asked')) };

const pixels = { data: Buffer.from(Array.from({ length: 120 * 80 * 3 }, (_, i) => (i * 31) % 251)), largeur: 120, hauteur: 80 };

describe('C2PA marking', () => {
  it('the production engine: renovation is an image rendered whole from the photo, the other tools an AI edit of it', async () => {
    const marqueur = creerMarqueur(pki);
    const entree = await imageTest(1);
    const { fichier: resultat } = await fichierResultat(pixels, 'jpeg', {
      outil: 'renovation',
      valeurs: {},
      apercu: false,
      graine: 1,
      personnes: aucunePersonne,
    });
    const renovation = await verifierC2pa(
      await marqueur.marquer(resultat, 'jpeg', { outil: 'renovation', moteur: 'bedrock', entree, formatEntree: 'jpeg', titre: 'maison.jpg' }),
      'jpeg',
      pki.autorite,
    );
    expect(renovation.erreurs).toEqual([]);
    expect(renovation.manifeste.actions).toEqual([
      expect.objectContaining({
        action: 'c2pa.created',
        digitalSourceType: TYPES_SOURCE.trainedAlgorithmicMedia,
        softwareAgent: { name: 'Retouche renovation (engine bedrock)', version: '1.0.0' },
        parameters: expect.objectContaining({ 'fr.retouche': { outil: 'renovation', moteur: 'bedrock' } }),
      }),
    ]);
    expect(renovation.manifeste.ingredients).toEqual([expect.objectContaining({ titre: 'maison.jpg', relation: 'inputTo' })]);

    const ciel = await verifierC2pa(
      await marqueur.marquer(resultat, 'jpeg', { outil: 'ciel', moteur: 'bedrock', entree, formatEntree: 'jpeg', titre: null }),
      'jpeg',
      pki.autorite,
    );
    expect(ciel.erreurs).toEqual([]);
    expect(ciel.manifeste.actions.map((a) => [a.action, a.digitalSourceType])).toEqual([
      ['c2pa.opened', undefined],
      ['c2pa.edited', TYPES_SOURCE.compositeWithTrainedAlgorithmicMedia],
    ]);
  });

  it.each(['jpeg', 'png', 'webp'] as const)('%s: signing adds metadata only, the decoded pixels are the same bytes', async (format) => {
    const { fichier: avant } = await fichierResultat(pixels, format, { outil: 'saison', valeurs: {}, apercu: false, graine: 2, personnes: aucunePersonne });
    const apres = await creerMarqueur(pki).marquer(avant, format, { outil: 'saison', moteur: 'bedrock', entree: avant, formatEntree: format, titre: null });
    expect(apres.length).toBeGreaterThan(avant.length);
    expect(await sharp(apres).raw().toBuffer()).toEqual(await sharp(avant).raw().toBuffer());
    expect((await verifierC2pa(apres, format, pki.autorite)).valide).toBe(true);
  });

  it('refuses a key that is not the certificate’s, and a malformed secret, with a clear message', async () => {
    const autre = await creerPkiTest('Other');
    const marqueur = creerMarqueur({ clePrivee: autre.clePrivee, chaine: pki.chaine });
    const image = await imageTest(2);
    await expect(marqueur.marquer(image, 'jpeg', { outil: 'ciel', moteur: 'local', entree: image, formatEntree: 'jpeg', titre: null })).rejects.toThrow(
      /does not match the leaf/,
    );
    expect(() => lireCleC2pa('{"clePrivee": "x"}')).toThrow(/must hold/);
  });
});
