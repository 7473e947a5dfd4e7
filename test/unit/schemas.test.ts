import { describe, expect, expectTypeOf, it } from 'vitest';
import * as v from 'valibot';
import { CATALOGUE, OUTILS } from '../../lambdas/core/modele/outils';
import { validerRequete } from '../../lambdas/core/contrat/messages/travaux';
import { documentOpenApi } from '../../lambdas/core/contrat/openapi/document';
import { SchemaOutils } from '../../lambdas/core/contrat/openapi/schemas';
import { SchemaCle, SchemaCleCreee, SchemaContactCredits, SchemaMouvement } from '../../lambdas/core/contrat/openapi/schemas-compte';
import { MAX_CLES_PAR_COMPTE, type CleDuCompte, type creerCleNommee } from '../../lambdas/core/domaine/comptes';
import type { ContactCredits } from '../../lambdas/core/domaine/contact-credits';
import type { Mouvement } from '../../lambdas/core/domaine/mouvements';
import { ROUTES } from '../../lambdas/http/routes';
import { refus } from '../support/refus';

const image = { url: 'https://photos.example.com/salon.jpg' };

describe('validerRequete', () => {
  it('applies every default and records them in valeurs', () => {
    expect(validerRequete('staging', { outil: 'staging', images: [image] }).valeurs).toEqual({
      piece: 'living room',
      style: 'modern',
      mention: 'none',
      floutage: 'none',
    });
    expect(validerRequete('renovation', { outil: 'renovation', images: [image], valeurs: { zone: 'interieur' } }).valeurs).toEqual({
      zone: 'interieur',
      niveau: 'complete',
      style: 'contemporary',
      floutage: 'none',
    });
    expect(validerRequete('annonce', { outil: 'annonce', valeurs: { lieu: 'Gent' } })).toEqual({
      outil: 'annonce',
      valeurs: { lieu: 'Gent', langue: 'Dutch' },
      images: [],
    });
    expect(validerRequete('vider', { outil: 'vider', images: [image] }).valeurs).toEqual({ floutage: 'none' });
  });

  it('staging takes a visible notice in one of the six languages (our extension), none by default', () => {
    const mention = CATALOGUE.staging.champs.find((c) => c.nom === 'mention');
    expect(mention).toMatchObject({ requis: false, defaut: 'none', valeurs: ['none', 'French', 'English', 'Dutch', 'German', 'Spanish', 'Italian'] });
    expect(validerRequete('staging', { outil: 'staging', images: [image], valeurs: { mention: 'French' } }).valeurs.mention).toBe('French');
    expect(refus(() => validerRequete('staging', { outil: 'staging', images: [image], valeurs: { mention: 'yes' } })).statut).toBe(422);
  });

  it('refuses unknown settings, for every tool', () => {
    for (const outil of OUTILS) {
      const valeurs = outil === 'annonce' ? { lieu: 'Gent', couleur: 'rouge' } : { couleur: 'rouge' };
      const corps = { outil, images: [image], valeurs };
      const erreur = refus(() => validerRequete(outil, corps));
      expect(erreur.code).toBe('invalid_settings');
      expect(erreur.statut).toBe(422);
      expect(erreur.message).toContain('couleur');
    }
  });

  it('refuses values outside the allowed list and non-strings', () => {
    expect(refus(() => validerRequete('staging', { outil: 'staging', images: [image], valeurs: { style: 'baroque' } })).code).toBe('invalid_settings');
    expect(refus(() => validerRequete('staging', { outil: 'staging', images: [image], valeurs: { style: 3 } })).code).toBe('invalid_settings');
  });

  it('requires lieu for annonce and caps text settings at 1000 characters', () => {
    expect(refus(() => validerRequete('annonce', { outil: 'annonce', valeurs: {} })).message).toContain('lieu');
    expect(validerRequete('annonce', { outil: 'annonce', valeurs: { lieu: 'x'.repeat(1000) } }).valeurs.lieu).toHaveLength(1000);
    const erreur = refus(() => validerRequete('annonce', { outil: 'annonce', valeurs: { lieu: 'Gent', atouts: 'x'.repeat(1001) } }));
    expect(erreur.code).toBe('invalid_settings');
    expect(erreur.message).toContain('1000');
  });

  it('takes 0 to 6 images for annonce and 1 to 50 for the image tools', () => {
    const six = Array.from({ length: 6 }, () => image);
    expect(validerRequete('annonce', { outil: 'annonce', valeurs: { lieu: 'Gent' }, images: six }).images).toHaveLength(6);
    expect(refus(() => validerRequete('annonce', { outil: 'annonce', valeurs: { lieu: 'Gent' }, images: [...six, image] })).code).toBe('invalid_image');
    expect(refus(() => validerRequete('ciel', { outil: 'ciel', images: [] })).code).toBe('invalid_image');
    expect(refus(() => validerRequete('ciel', { outil: 'ciel' })).code).toBe('invalid_image');
  });

  it('wants each image to be exactly one of url or base64, and urls in https', () => {
    const invalide = (img: unknown) => refus(() => validerRequete('ciel', { outil: 'ciel', images: [img] }));
    expect(invalide({ url: 'http://photos.example.com/a.jpg' }).code).toBe('invalid_image');
    expect(invalide({ url: 'https://a.example/x.jpg', base64: 'AAAA' }).code).toBe('invalid_image');
    expect(invalide({}).code).toBe('invalid_image');
    expect(invalide({ url: 'not a url' }).code).toBe('invalid_image');
    expect(validerRequete('ciel', { outil: 'ciel', images: [{ base64: 'data:image/png;base64,AAAA', nom: 'a.png' }] }).images).toEqual([
      { base64: 'data:image/png;base64,AAAA', nom: 'a.png' },
    ]);
  });

  it('refuses unknown top-level members', () => {
    expect(refus(() => validerRequete('ciel', { outil: 'ciel', images: [image], priorite: 'haute' })).statut).toBe(422);
  });
});

describe('catalogue and OpenAPI document', () => {
  it('describes each setting with its allowed values, default and maximum length', () => {
    expect(v.safeParse(SchemaOutils, { outils: OUTILS.map((o) => CATALOGUE[o]), apercu: false }).success).toBe(true);
    const lieu = CATALOGUE.annonce.champs.find((c) => c.nom === 'lieu');
    expect(lieu).toMatchObject({ requis: true, longueur_max: 1000 });
    expect(CATALOGUE.staging.champs.find((c) => c.nom === 'style')?.valeurs).toContain('japandi');
    expect(OUTILS.map((o) => CATALOGUE[o].cout)).toEqual([4, 5, 8, 3, 2, 3, 2]);
  });

  it('is OpenAPI 3.1 whose request schema is generated from the validating schemas', () => {
    const document = documentOpenApi();
    expect(document.openapi).toBe('3.1.0');
    const requete = JSON.stringify(document.components.schemas.RequeteTravaux);
    for (const valeur of ['warm bohemian', 'rafraichissement', 'Italian', 'additionalProperties']) expect(requete).toContain(valeur);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/outils', '/solde', '/travaux', '/travaux/{id}', '/lots/{id}']));
  });
});

/** The routes that are not the document's, and why: each has its own contract, which is not HTTP JSON in OpenAPI's terms. */
const HORS_DOCUMENT: Record<string, string> = {
  // JSON-RPC over Streamable HTTP: its tools are described by the MCP protocol itself (tools/list), clients/mcp/README.md.
  'POST /mcp': 'the MCP server',
  // Called by Stripe only, trusted by its signature: no client of ours calls it.
  'POST /paiements/stripe': "Stripe's webhook",
};

describe('the OpenAPI document and the routes', () => {
  type Operation = { operationId: string; security?: Record<string, unknown>[] };
  const document = documentOpenApi();
  const chemins = document.paths as unknown as Record<string, Record<string, Operation>>;
  const operation = (methode: string, chemin: string) => chemins[chemin]?.[methode.toLowerCase()];

  it('describes every route of routes.ts, the web site’s /compte… included, and no route that does not exist', () => {
    const hors = ROUTES.filter((r) => `${r.methode} ${r.chemin}` in HORS_DOCUMENT);
    expect(hors.map((r) => `${r.methode} ${r.chemin}`).sort(), 'every exception is a route').toEqual(Object.keys(HORS_DOCUMENT).sort());
    const decrites = ROUTES.filter((r) => !hors.includes(r));
    for (const r of decrites) expect(operation(r.methode, r.chemin), `${r.methode} ${r.chemin}`).toBeDefined();
    expect(decrites.filter((r) => r.chemin.startsWith('/compte'))).toHaveLength(5);
    const documentees = Object.entries(chemins).flatMap(([chemin, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${chemin}`));
    expect(documentees.sort()).toEqual(decrites.map((r) => `${r.methode} ${r.chemin}`).sort());
  });

  it('asks what each route asks: a session for the web site’s, nothing for the public ones, an API key by default', () => {
    expect(Object.keys(document.components.securitySchemes)).toEqual(['cle', 'session']);
    expect(document.security).toEqual([{ cle: [] }]);
    for (const r of ROUTES.filter((r) => !(`${r.methode} ${r.chemin}` in HORS_DOCUMENT))) {
      const attendue = r.session ? [{ session: [] }] : r.authentifiee ? undefined : [];
      expect(operation(r.methode, r.chemin)!.security, `${r.methode} ${r.chemin}`).toEqual(attendue);
    }
  });

  it('gives the web site’s answers the shapes the handlers build, and the key limit the code enforces', () => {
    expectTypeOf<v.InferOutput<typeof SchemaCle>>().toEqualTypeOf<CleDuCompte>();
    // The domain says `CleDuCompte & { cle }`: the same members, written as one object.
    type Aplati<T> = { [K in keyof T]: T[K] };
    expectTypeOf<v.InferOutput<typeof SchemaCleCreee>>().toEqualTypeOf<Aplati<Awaited<ReturnType<typeof creerCleNommee>>>>();
    expectTypeOf<v.InferOutput<typeof SchemaMouvement>>().toEqualTypeOf<Mouvement>();
    expectTypeOf<v.InferOutput<typeof SchemaContactCredits>>().toEqualTypeOf<ContactCredits>();
    const exemples = (methode: string, chemin: string, statut: number) =>
      (
        operation(methode, chemin) as unknown as {
          responses: Record<number, { content: { 'application/json': { examples: Record<string, { value: any }> } } }>;
        }
      ).responses[statut]!.content['application/json'].examples;
    for (const { value } of Object.values(exemples('GET', '/compte', 200))) expect(value.cles.max).toBe(MAX_CLES_PAR_COMPTE);
    const plein = exemples('POST', '/compte/cles', 409).plein!.value.error;
    expect(plein).toMatchObject({ code: 'too_many_keys', max: MAX_CLES_PAR_COMPTE });
    expect(plein.message).toContain(`at most ${MAX_CLES_PAR_COMPTE} API keys`);
  });
});
