/**
 * `fusion` at the door, before any pixel is merged: what POST /travaux refuses for free (one photo is no
 * bracket, ten are too many, camera RAW and HEIC said by name), the stage's price (`-c couts`), and what its
 * result says it is (an edit of captured photos, every exposure named by its hash in the Content Credentials).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { auMoinsUneImage, lireDemande } from '../../lambdas/core/contrat/demande';
import { formatRefuse, messageIllisible } from '../../lambdas/core/modele/images';
import { catalogueDeLaPile, coutsDeLaPile, lireCouts, OUTILS } from '../../lambdas/core/modele/outils';
import { creerPkiTest, type PkiTest } from '../../lambdas/moteurs/c2pa/certificats';
import { creerMarqueur } from '../../lambdas/moteurs/c2pa/marquage';
import { natureResultat, TYPES_SOURCE } from '../../lambdas/moteurs/commun/provenance';
import { encoderResultat } from '../../lambdas/moteurs/commun/resultat';
import { configurationDepuisContexte, RefusDeConfiguration } from '../../lib/configuration';
import { verifierC2pa } from '../support/c2pa-verificateur';
import { imageTest } from '../support/images';
import { refusDe } from '../support/refus';

const json = (corps: unknown) => refusDe(lireDemande('application/json', Buffer.from(JSON.stringify(corps))));
const url = (n: number) => ({ url: `https://photos.example.com/salon-${n}.jpg` });

describe('POST /travaux for fusion: refused for free', () => {
  it('one photo is no bracket, ten are too many: 422 naming the count and the range', async () => {
    const une = await json({ outil: 'fusion', images: [url(1)] });
    expect([une.statut, une.code]).toEqual([422, 'invalid_image']);
    expect(une.message).toBe('images holds 1 image: fusion needs at least 2 (photos of one view at different exposures)');
    const dix = await json({ outil: 'fusion', images: Array.from({ length: 10 }, (_, i) => url(i)) });
    expect(dix.message).toBe('images holds 10 images: fusion takes at most 9');
    const aucune = await json({ outil: 'fusion', images: [] });
    expect(aucune.message).toContain('images is empty: fusion needs at least 2 images');
  });

  it('takes 2 to 9 photos in one job, and settings it does not have are refused', async () => {
    const { demande, pretes } = await lireDemande('application/json', Buffer.from(JSON.stringify({ outil: 'fusion', images: [url(1), url(2), url(3)] })));
    expect(demande.outil).toBe('fusion');
    expect(pretes).toHaveLength(3);
    const reglage = await json({ outil: 'fusion', valeurs: { style: 'modern' }, images: [url(1), url(2)] });
    expect(reglage.code).toBe('invalid_settings');
    expect(reglage.message).toContain('style is not a setting of fusion');
  });

  it('two photos sent, one unreadable: a 422 before anything is charged, not a job that could only fail', async () => {
    const echecs = [{ index: 1, code: 'invalid_image' as const, message: 'The image is not a JPEG, PNG or WebP file.' }];
    const prete = { index: 0, nom: null, entree: { url: 'https://photos.example.com/a.jpg' } };
    const refus = await refusDe(Promise.resolve().then(() => auMoinsUneImage('fusion', [prete], echecs)));
    expect([refus.statut, refus.code]).toEqual([422, 'invalid_image']);
    expect(refus.message).toBe('fusion needs at least 2 readable images; 1 could be read (see echecs).');
    expect(() => auMoinsUneImage('ciel', [prete], echecs)).not.toThrow();
  });

  it('camera RAW and HEIC are named, with what to export instead; other bytes are "not a JPEG"', () => {
    const tete = (texte: string, decalage = 0) => Buffer.concat([Buffer.alloc(decalage), Buffer.from(texte, 'latin1'), Buffer.alloc(16)]);
    expect(formatRefuse(tete('II*\0\x10\0\0\0CR'))).toBe('a Canon CR2 RAW file');
    expect(formatRefuse(tete('ftypcrx ', 4))).toBe('a Canon CR3 RAW file');
    expect(formatRefuse(tete('MM\0*'))).toContain('TIFF or camera RAW file (DNG, NEF, ARW');
    expect(formatRefuse(tete('FUJIFILMCCD-RAW 0201'))).toBe('a Fujifilm RAF RAW file');
    expect(formatRefuse(tete('ftypheic', 4))).toBe('a HEIC/HEIF photo');
    expect(formatRefuse(tete('IIRO'))).toBe('an Olympus ORF RAW file');
    expect(formatRefuse(tete('IIU\0'))).toBe('a Panasonic RW2 RAW file');
    expect(formatRefuse(tete('GIF89a'))).toBeNull();
    expect(messageIllisible(tete('II*\0\x10\0\0\0CR'), 'The image')).toBe(
      "The image is a Canon CR2 RAW file, which is not read: export it as JPEG, PNG (16-bit PNG keeps a bracket's range) or WebP first.",
    );
    expect(messageIllisible(tete('GIF89a'), 'The image')).toBe('The image is not a JPEG, PNG or WebP file.');
    expect(messageIllisible(Buffer.alloc(0), 'The image')).toBe('The image is empty.');
  });
});

describe("the stage's prices", () => {
  it('the catalogue by default (fusion 2), the operator’s where set, said by GET /outils', () => {
    expect(coutsDeLaPile({}).fusion).toBe(2);
    const couts = coutsDeLaPile({ RETOUCHE_COUTS: 'fusion:3, ciel:1' });
    expect([couts.fusion, couts.ciel, couts.vider]).toEqual([3, 1, 4]);
    const catalogue = catalogueDeLaPile({ RETOUCHE_COUTS: 'fusion:5', RETOUCHE_OUTILS: 'ciel,fusion' });
    expect(catalogue.map((o) => [o.id, o.cout])).toEqual([
      ['ciel', 2],
      ['fusion', 5],
    ]);
    expect(OUTILS.at(-1)).toBe('fusion');
  });

  it.each(['fusion', 'fusion:', 'fusion:-1', 'fusion:1.5', 'fusoin:3', 'fusion:3:4'])('"%s" is refused with what to write', (texte) => {
    expect(() => lireCouts(texte)).toThrow(/costs must read tool:credits separated by commas, e\.g\. fusion:3,ciel:2/);
  });

  it('the synth refuses a malformed -c couts, and keeps a good one for the functions', () => {
    const contexte = (couts: string) => (cle: string) => (cle === 'couts' ? couts : undefined);
    expect(() => configurationDepuisContexte(contexte('fusion=3'))).toThrow(RefusDeConfiguration);
    expect(configurationDepuisContexte(contexte('fusion:3')).couts).toBe('fusion:3');
  });
});

describe('what a fusion result says it is', () => {
  let pki: PkiTest;
  beforeAll(async () => {
    pki = await creerPkiTest('Retouche fusion test');
  });

  it('an edit of captured photos on every engine, never a preview nor generated', () => {
    for (const apercu of [true, false]) expect(natureResultat('fusion', apercu)).toEqual({ action: 'c2pa.edited', source: 'compositeCapture' });
  });

  it('its Content Credentials: the reference opened, every other exposure a component, no model named', async () => {
    const pixels = { data: Buffer.alloc(64 * 48 * 3, 128), largeur: 64, hauteur: 48 };
    const image = await encoderResultat(pixels, 'jpeg', { outil: 'fusion', apercu: false, graine: null });
    const [sombre, moyenne, claire] = await Promise.all([imageTest(1), imageTest(2), imageTest(3)]);
    const signee = await creerMarqueur(pki).marquer(image, 'jpeg', {
      outil: 'fusion',
      moteur: 'local',
      entree: moyenne,
      formatEntree: 'jpeg',
      composants: [
        { octets: sombre, format: 'jpeg' },
        { octets: claire, format: 'jpeg' },
      ],
      titre: 'salon.jpg',
    });
    const { erreurs, manifeste } = await verifierC2pa(signee, 'jpeg', pki.autorite);
    expect(erreurs).toEqual([]);
    expect(manifeste.actions.map((a) => [a.action, a.digitalSourceType])).toEqual([
      ['c2pa.opened', undefined],
      ['c2pa.edited', TYPES_SOURCE.compositeCapture],
    ]);
    expect(manifeste.actions[1]!.softwareAgent).toEqual({ name: 'Retouche fusion (exposure fusion)', version: '1.0.0' });
    expect(manifeste.ingredients.map((i) => i.relation)).toEqual(['parentOf', 'componentOf', 'componentOf']);
    expect(manifeste.ingredients[0]!.titre).toBe('salon.jpg');
  });
});
