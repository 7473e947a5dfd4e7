/**
 * The site words every refusal itself, in French and English (issue 41): each code the API can return
 * (`error.code`) and each reason a job can fail with (`Travail.erreur.code`), taken from the server's
 * own lists, must have its wording in site/src/i18n/fr.json and en.json. A code added to the API without
 * one fails here, before a French page shows an English sentence.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CODES_API, CODES_TRAVAIL } from '../../lambdas/core/modele/erreurs';
import en from '../../site/src/i18n/en.json';
import fr from '../../site/src/i18n/fr.json';

const LANGUES = { fr, en } as Record<string, Record<string, Record<string, unknown>>>;
const parametresDe = (texte: string) => [...texte.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe.each(Object.entries(LANGUES))('the site in %s', (_langue, messages) => {
  it.each(Object.keys(CODES_API))('words the API error %s', (code) => {
    const texte = messages.erreursApi?.[code];
    expect(typeof texte === 'string' && texte.trim().length > 0, `erreursApi.${code}`).toBe(true);
  });

  it.each(Object.keys(CODES_TRAVAIL))('words the job error %s', (code) => {
    const texte = messages.erreursTravail?.[code];
    expect(typeof texte === 'string' && texte.trim().length > 0, `erreursTravail.${code}`).toBe(true);
  });

  it('words no code the API does not have', () => {
    expect(Object.keys(messages.erreursApi ?? {}).filter((c) => !Object.hasOwn(CODES_API, c))).toEqual([]);
    expect(Object.keys(messages.erreursTravail ?? {}).filter((c) => !Object.hasOwn(CODES_TRAVAIL, c))).toEqual([]);
  });
});

it('says the same details in French and English', () => {
  for (const groupe of ['erreursApi', 'erreursApiDetails', 'erreursTravail']) {
    expect(Object.keys(fr[groupe as keyof typeof fr]).sort(), groupe).toEqual(Object.keys(en[groupe as keyof typeof en]).sort());
    for (const [cle, texte] of Object.entries(fr[groupe as keyof typeof fr] as Record<string, string>)) {
      const anglais = (en[groupe as keyof typeof en] as Record<string, string>)[cle] ?? '';
      expect(parametresDe(texte), `${groupe}.${cle}`).toEqual(parametresDe(anglais));
    }
  }
});

/** What the test uses of the site's modules, typed here: the site's sources compile against the DOM, not with the server's. */
interface ErreurSite {
  texte: string;
  langue?: string;
}
interface ModuleErreurs {
  decrire: (erreur: unknown) => ErreurSite;
  decrireErreurApi: (code: string, message: string, infos?: Record<string, unknown>) => ErreurSite;
  decrireEchec: (erreur: { code: string; message: string }) => ErreurSite;
}
interface ModuleApi {
  ErreurApi: new (statut: number, code: string, message: string, deLApi: boolean, infos?: Record<string, unknown>) => Error;
}
const chargerSite = <T>(module: string): Promise<T> => import(/* @vite-ignore */ `../../site/src/${module}.ts`) as Promise<T>;

describe('decrire, as a French page shows a refusal', () => {
  let erreurs: ModuleErreurs;
  let api: ModuleApi;

  beforeAll(async () => {
    // What i18n.ts reads from the browser at load: the page in French.
    vi.stubGlobal('navigator', { language: 'fr-FR' });
    vi.stubGlobal('localStorage', { getItem: () => null, setItem: () => undefined });
    vi.stubGlobal('document', { documentElement: {}, createElement: () => ({}) });
    erreurs = await chargerSite<ModuleErreurs>('erreurs');
    api = await chargerSite<ModuleApi>('api');
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  it('words a known code in French, with the details the API gives', () => {
    const refus = new api.ErreurApi(402, 'insufficient_credits', 'This request costs 96 credits; the balance is 80.', true, { credits: 80, requis: 96 });
    expect(erreurs.decrire(refus)).toEqual({ texte: 'Il faut 96 crédits pour cette demande ; votre solde est de 80. Rien n’a été lancé.' });
    expect(erreurs.decrireErreurApi('too_many_keys', 'An account has at most 5 API keys…', { max: 5 }).texte).toMatch(/^Un compte a au plus 5 clés actives/);
    expect(erreurs.decrireErreurApi('invalid_settings', '…', { details: [{ chemin: 'valeurs.style', message: '…' }] }).texte).toBe(
      'Un réglage de la demande n’est pas valable. Champ en cause : valeurs.style.',
    );
    // Without its details, the code's general wording.
    expect(erreurs.decrireErreurApi('rate_limited', 'More than 120 requests…').texte).toBe('Trop de demandes en une minute : réessayez dans un instant.');
  });

  it('words a failed job in French', () => {
    expect(erreurs.decrireEchec({ code: 'sol_introuvable', message: 'No free floor was found…' }).langue).toBeUndefined();
    expect(erreurs.decrireEchec({ code: 'sol_introuvable', message: 'No free floor was found…' }).texte).toMatch(/^Aucun sol libre/);
  });

  it("falls back to the API's English for a code it does not know", () => {
    const inconnue = new api.ErreurApi(418, 'teapot', 'I am a teapot.', true);
    expect(erreurs.decrire(inconnue)).toEqual({ texte: 'I am a teapot.', langue: 'en' });
    expect(erreurs.decrireEchec({ code: 'nouvelle_raison', message: 'A new reason.' })).toEqual({ texte: 'A new reason.', langue: 'en' });
  });
});
