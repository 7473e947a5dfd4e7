/**
 * docs/api.md, the integration guide, is written by hand; this keeps it true to the code. Its tool and
 * settings tables must match the catalogue (tools, costs, image counts, settings, allowed values,
 * defaults), its error tables the codes and statuses of erreurs.ts, its endpoint sections the routes, its
 * limits the constants, and its JSON examples must parse and agree with the catalogue. A change to any
 * of these without the page (or the other way round) fails here.
 */
import { readFileSync } from 'node:fs';
import { MAX_TELEVERSEMENTS_OUVERTS } from '../../lambdas/core/domaine/televersements';
import { describe, expect, it } from 'vitest';
import { REQUETES_PAR_MINUTE } from '../../lambdas/core/domaine/cadence';
import { MAX_CLES_PAR_COMPTE } from '../../lambdas/core/domaine/comptes';
import { LIMITE_DEFAUT, LIMITE_MAX } from '../../lambdas/core/domaine/consultation';
import { MAX_PIXELS_IMAGE } from '../../lambdas/core/modele/dimensions';
import { CODES_API, CODES_TRAVAIL } from '../../lambdas/core/modele/erreurs';
import { MAX_TRAVAUX_EN_ATTENTE } from '../../lambdas/core/domaine/facturation';
import { DUREE_IDEMPOTENCE_SECONDES } from '../../lambdas/core/depots/idempotence';
import { MAX_OCTETS_IMAGE, MAX_OCTETS_REQUETE } from '../../lambdas/core/modele/images';
import { VALIDITE_LIEN_SECONDES } from '../../lambdas/core/infra/liens';
import { CATALOGUE, estOutil, LONGUEUR_MAX_TEXTE, MAX_IMAGES_ANNONCE, MAX_IMAGES_LOT, OUTILS } from '../../lambdas/core/modele/outils';
import { RETENTION_RESULTATS_JOURS, UTILISATION_TELEVERSEMENT_MINUTES, VALIDITE_URL_TELEVERSEMENT_SECONDES } from '../../lambdas/core/modele/retention';
import { MAX_CARACTERES_URL, MAX_FICHIERS_TELEVERSEMENT } from '../../lambdas/core/contrat/schemas';
import { ROUTES } from '../../lambdas/http/routes';

const PAGE = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const LIGNES = PAGE.split('\n');

/** Heading lines outside code blocks: a `# comment` in a shell example is not a heading. */
const titres = (): { index: number; niveau: number; texte: string }[] => {
  const trouves: { index: number; niveau: number; texte: string }[] = [];
  let dansCode = false;
  LIGNES.forEach((ligne, index) => {
    if (ligne.startsWith('```')) dansCode = !dansCode;
    const titre = dansCode ? null : /^(#{1,6}) (.+)$/.exec(ligne);
    if (titre) trouves.push({ index, niveau: titre[1]!.length, texte: titre[2]!.trim() });
  });
  return trouves;
};

/** The lines of a section, from its heading to the next heading of the same or a higher level. */
const section = (texte: string): string[] => {
  const tous = titres();
  const debut = tous.find((t) => t.texte === texte);
  if (!debut) throw new Error(`docs/api.md has no heading "${texte}"`);
  const fin = tous.find((t) => t.index > debut.index && t.niveau <= debut.niveau);
  return LIGNES.slice(debut.index + 1, fin?.index ?? LIGNES.length);
};

/** The rows of the first table of a section, as trimmed cells, without its header and separator. */
const tableau = (lignes: string[]): string[][] => {
  const debut = lignes.findIndex((l) => l.startsWith('|'));
  if (debut < 0) throw new Error('no table in this section');
  const rangees: string[][] = [];
  for (const ligne of lignes.slice(debut + 2)) {
    if (!ligne.startsWith('|')) break;
    rangees.push(
      ligne
        .slice(1, ligne.endsWith('|') ? -1 : undefined)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return rangees;
};

/** The `code spans` of a cell, in order. */
const codes = (cellule: string): string[] => [...cellule.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The one `code span` that opens a cell (`vider`, `invalid_body`). */
const premierCode = (cellule: string): string => {
  const m = /^`([^`]+)`$/.exec(cellule);
  if (!m) throw new Error(`expected a single code span, got: ${cellule}`);
  return m[1]!;
};

describe('docs/api.md: the tools table', () => {
  const rangees = tableau(section('The tools'));

  it('lists every tool of the catalogue, once, in its order', () => {
    expect(rangees.map((r) => premierCode(r[0]!))).toEqual([...OUTILS]);
  });

  it.each(OUTILS)('gives %s its cost, unit, image counts and settings', (id) => {
    const outil = CATALOGUE[id];
    const rangee = rangees.find((r) => premierCode(r[0]!) === id)!;
    const [, , cout, images, reglages] = rangee;
    expect(cout, `cost of ${id}`).toBe(`${outil.cout} per ${outil.images.par_lot ? 'image' : 'job'}`);
    expect(images, `images of ${id}`).toBe(`${outil.images.min}–${outil.images.max}`);
    if (outil.champs.length === 0) expect(reglages, `settings of ${id}`).toBe('none');
    else expect(codes(reglages!), `settings of ${id}`).toEqual(outil.champs.map((c) => c.nom));
  });
});

describe('docs/api.md: the settings table', () => {
  const rangees = tableau(section('Settings (`valeurs`)'));
  const attendus = OUTILS.flatMap((id) => CATALOGUE[id].champs.map((champ) => ({ id, champ })));

  it('has one row per setting of the catalogue, and no other', () => {
    expect(rangees.map((r) => `${premierCode(r[0]!)}.${premierCode(r[1]!)}`)).toEqual(attendus.map(({ id, champ }) => `${id}.${champ.nom}`));
  });

  it.each(attendus.map(({ id, champ }) => [`${id}.${champ.nom}`, id, champ] as const))('gives %s as the catalogue does', (_nom, id, champ) => {
    const rangee = rangees.find((r) => premierCode(r[0]!) === id && premierCode(r[1]!) === champ.nom)!;
    const [, , requis, permises, defaut] = rangee;
    expect(requis, 'required').toBe(champ.requis ? '**yes**' : 'no');
    if (champ.valeurs) {
      expect(codes(permises!), 'allowed values, all and in order').toEqual([...champ.valeurs]);
      expect(permises!.replace(/`[^`]+`/g, '').replace(/[,\s]/g, ''), 'nothing but the values').toBe('');
    } else {
      expect(permises, 'free text and its length').toMatch(new RegExp(`^free text, 1 to ${champ.longueur_max} characters`));
    }
    expect(defaut, 'default').toBe(champ.defaut === undefined ? '—' : `\`${champ.defaut}\``);
  });
});

/** Every object of every ```json block, each with the tool of the nearest object above it that names one. */
const objetsJson = (): { objet: Record<string, unknown>; outil: string | undefined }[] => {
  const blocs = [...PAGE.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const trouves: { objet: Record<string, unknown>; outil: string | undefined }[] = [];
  const parcourir = (valeur: unknown, outil: string | undefined): void => {
    if (Array.isArray(valeur)) return valeur.forEach((v) => parcourir(v, outil));
    if (!valeur || typeof valeur !== 'object') return;
    const objet = valeur as Record<string, unknown>;
    const ici = typeof objet.outil === 'string' ? objet.outil : outil;
    trouves.push({ objet, outil: ici });
    Object.values(objet).forEach((v) => parcourir(v, ici));
  };
  for (const bloc of blocs) parcourir(JSON.parse(bloc), undefined);
  return trouves;
};

describe('docs/api.md: the JSON examples', () => {
  it('all parse', () => {
    expect(() => objetsJson()).not.toThrow();
    expect(objetsJson().length).toBeGreaterThan(50);
  });

  it('charge what the catalogue says: cout per job, cout_total for the jobs started', () => {
    let couts = 0;
    let totaux = 0;
    for (const { objet, outil } of objetsJson()) {
      if (!estOutil(outil)) continue;
      if (typeof objet.cout === 'number' && typeof objet.outil === 'string') {
        expect(objet.cout, `cout of a ${outil} job`).toBe(CATALOGUE[outil].cout);
        couts++;
      }
      if (typeof objet.cout_total === 'number' && Array.isArray(objet.travaux)) {
        expect(objet.cout_total, `cout_total of a ${outil} request`).toBe(objet.travaux.length * CATALOGUE[outil].cout);
        totaux++;
      }
    }
    // The examples carry what is checked: a page whose examples lost their costs would pass silently otherwise.
    expect(couts).toBeGreaterThanOrEqual(3);
    expect(totaux).toBeGreaterThanOrEqual(2);
  });

  it('use only settings and values the tool has', () => {
    let reglages = 0;
    const outils = new Set<string>();
    for (const { objet, outil } of objetsJson()) {
      const valeurs = objet.valeurs;
      if (!valeurs || typeof valeurs !== 'object' || Array.isArray(valeurs)) continue;
      expect(estOutil(outil), `valeurs ${JSON.stringify(valeurs)} under a known tool`).toBe(true);
      if (!estOutil(outil)) continue;
      for (const [nom, valeur] of Object.entries(valeurs)) {
        const champ = CATALOGUE[outil].champs.find((c) => c.nom === nom);
        expect(champ, `${outil} has a setting ${nom}`).toBeDefined();
        if (champ?.valeurs) expect(champ.valeurs, `${outil}.${nom}`).toContain(valeur);
        reglages++;
        outils.add(outil);
      }
    }
    // Settings of several tools were checked, not none.
    expect(reglages).toBeGreaterThanOrEqual(5);
    expect(outils.size).toBeGreaterThanOrEqual(3);
  });

  it('show catalogue entries exactly as GET /outils serves them', () => {
    const entrees = objetsJson().filter(({ objet }) => estOutil(objet.id) && Array.isArray(objet.champs));
    expect(entrees.length).toBeGreaterThan(0);
    for (const { objet } of entrees) expect(objet).toEqual(JSON.parse(JSON.stringify(CATALOGUE[objet.id as keyof typeof CATALOGUE])));
  });
});

describe('docs/api.md: errors, routes and limits', () => {
  it('lists every API error code with its status, and no other', () => {
    const rangees = tableau(section('API error codes'));
    expect(Object.fromEntries(rangees.map((r) => [premierCode(r[0]!), Number(r[1])]))).toEqual(CODES_API);
    expect(rangees).toHaveLength(Object.keys(CODES_API).length);
  });

  it('lists every job error code, and no other', () => {
    const rangees = tableau(section('Job error codes'));
    expect(rangees.map((r) => premierCode(r[0]!))).toEqual(Object.keys(CODES_TRAVAIL));
  });

  it('has a section per route, and a row in the endpoints table', () => {
    const resume = tableau(section('Endpoints')).map((r) => codes(r[0]!)[0]);
    for (const route of ROUTES) {
      const nom = `${route.methode} ${route.chemin}`;
      expect(() => section(nom), nom).not.toThrow();
      expect(resume, nom).toContain(nom);
    }
    expect(resume).toHaveLength(ROUTES.length);
  });

  it('gives the limits the code enforces', () => {
    const limites = section('Limits').join('\n');
    const milliers = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
    for (const attendu of [
      `1 to ${MAX_IMAGES_LOT} images for an image tool`,
      `0 to ${MAX_IMAGES_ANNONCE} for \`annonce\``,
      `${MAX_OCTETS_IMAGE / 2 ** 20} MB (MiB: ${milliers(MAX_OCTETS_IMAGE)} bytes) and ${MAX_PIXELS_IMAGE / 1e6} megapixels`,
      `${MAX_OCTETS_REQUETE / 2 ** 20} MB on the interface`,
      `1 to ${LONGUEUR_MAX_TEXTE} characters each`,
      `${MAX_CARACTERES_URL} / 255 characters`,
      `${REQUETES_PAR_MINUTE} requests per calendar minute per key`,
      `${MAX_TRAVAUX_EN_ATTENTE} jobs \`en_attente\` or \`en_cours\` per account`,
      `\`limite\` 1 to ${LIMITE_MAX}, default ${LIMITE_DEFAUT}`,
      `1 to ${MAX_FICHIERS_TELEVERSEMENT} files per \`POST /televersements\``,
      `URL valid ${VALIDITE_URL_TELEVERSEMENT_SECONDES / 60} minutes; upload usable ${UTILISATION_TELEVERSEMENT_MINUTES} minutes from its announcement`,
      `at most ${MAX_TELEVERSEMENTS_OUVERTS} uploads announced and not yet used per account`,
      `${MAX_CLES_PAR_COMPTE} active keys per account`,
      `${VALIDITE_LIEN_SECONDES / 3600} hours from the call that returned them`,
      `${RETENTION_RESULTATS_JOURS} days for results, ZIPs and jobs`,
    ]) {
      expect(limites, attendu).toContain(attendu);
    }
    expect(section('Retries and Idempotency-Key').join('\n')).toContain(`remembered ${DUREE_IDEMPOTENCE_SECONDES / 3600} hours`);
  });
});
