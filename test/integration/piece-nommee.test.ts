/**
 * staging's room, named or defaulted, through the whole service: POST /travaux reads which settings the
 * request gave, the job keeps their names (never shown: the job shows its settings with defaults), and
 * the tool step hands them to the engine, which weighs only a named room against its detectors' guesses
 * (moteurs/commun/zones.ts). A bathroom photo, on the local stack with the preview's own detector (the
 * other integration tests' colour rules read drawn images, not photographs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lire as lireEnregistrement } from '../../lambdas/core/depots/travaux';
import type { Lancement } from '../../lambdas/core/modele/enregistrements';
import { appeler, attendreTravail, enBase64 } from '../support/client';
import { demarrerPileTest } from '../support/pile';
import { photo } from '../support/verite';

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
let url: string;

beforeAll(async () => {
  pile = await demarrerPileTest({ detecteur: undefined });
  url = pile.urlBase;
});
afterAll(async () => pile?.arreter());

/** A bathroom the preview knows by its washbasin only: what a named room decides. */
const SALLE_DE_BAIN = photo('salle-de-bain_coco006818.jpg');
const BAINS = /^This looks like a bathroom \(a washbasin found/;

const solde = async (cle: string): Promise<number> => (await appeler(url, 'GET', '/solde', { cle })).corps.credits;

describe('staging a bathroom photo through POST /travaux', () => {
  it('without piece: refused as a bathroom and refunded; the job still shows the default room, and a replay answers the same', async () => {
    const { cle } = await pile.creerCompte(10);
    const json = { outil: 'staging', images: [{ base64: enBase64(SALLE_DE_BAIN), nom: 'sdb.jpg' }] };
    const entetes = { 'Idempotency-Key': 'sans-piece' };
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json, entetes });
    expect(statut).toBe(202);
    const [lance] = corps.travaux;
    expect(lance!.valeurs.piece).toBe('living room');
    expect(lance).not.toHaveProperty('valeurs_nommees');
    expect((await lireEnregistrement(pile.deps, lance!.id))?.valeurs_nommees).toEqual([]);

    const travail = await attendreTravail(url, cle, lance!.id);
    expect(travail).toMatchObject({ statut: 'echec', rembourse: true, erreur: { code: 'sol_introuvable', message: expect.stringMatching(BAINS) } });
    expect(travail.valeurs.piece).toBe('living room');
    expect(travail).not.toHaveProperty('valeurs_nommees');
    expect(await solde(cle)).toBe(10);

    // The replay of the same request gives the first answer, starts nothing and charges nothing.
    const rejoue = await appeler<Lancement>(url, 'POST', '/travaux', { cle, json, entetes });
    expect(rejoue.statut).toBe(202);
    expect(rejoue.corps).toEqual(corps);
    expect(await solde(cle)).toBe(10);
  });

  it.each([
    ['JSON', 'bedroom'],
    // The default's own value, named: the agent's word, not the default.
    ['JSON', 'living room'],
    ['multipart', 'bedroom'],
  ])('with piece named (%s, %s): furnished, not refused for the washbasin', async (forme, piece) => {
    const { cle } = await pile.creerCompte(10);
    let envoi: Parameters<typeof appeler>[3];
    if (forme === 'JSON') envoi = { cle, json: { outil: 'staging', valeurs: { piece }, images: [{ base64: enBase64(SALLE_DE_BAIN) }] } };
    else {
      const formulaire = new FormData();
      formulaire.append('outil', 'staging');
      formulaire.append('piece', piece);
      formulaire.append('image', new Blob([SALLE_DE_BAIN], { type: 'image/jpeg' }), 'sdb.jpg');
      envoi = { cle, corps: formulaire };
    }
    const { statut, corps } = await appeler<Lancement>(url, 'POST', '/travaux', envoi);
    expect(statut).toBe(202);
    const id = corps.travaux[0]!.id;
    expect((await lireEnregistrement(pile.deps, id))?.valeurs_nommees).toEqual(['piece']);
    const travail = await attendreTravail(url, cle, id);
    expect(travail.erreur).toBeNull();
    expect(travail).toMatchObject({ statut: 'termine', valeurs: { piece, style: 'modern' } });
    expect(await solde(cle)).toBe(5);
  });
});
