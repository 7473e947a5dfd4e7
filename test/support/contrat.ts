/**
 * What a client developer does with `GET /openapi.json`: generate types (openapi-typescript) and an SDK
 * (@hey-api/openapi-ts), both with their default options, and compile code against them with the
 * project's TypeScript, strict. The requests below are written as a client would write them; each
 * invalid one is alone in its file, on one line, so that its error can only come from what it does wrong.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';

const URL_IMAGE = "'https://photos.example.com/salon.jpg'";
const TELEVERSEMENT = "'5f0c8d21-6e4b-4a93-8c7d-0e1f2a3b4c5d'";

/** Bodies of POST /travaux the API accepts: each must compile with both generators. */
export const CORPS_VALIDES: Record<string, string> = {
  ciel_sans_valeurs: `{ outil: 'ciel', images: [{ url: ${URL_IMAGE} }] }`,
  staging_style_seul: `{ outil: 'staging', valeurs: { style: 'japandi' }, images: [{ url: ${URL_IMAGE}, nom: 'chambre.jpg' }] }`,
  staging_valeurs_vides: `{ outil: 'staging', valeurs: {}, images: [{ url: ${URL_IMAGE} }] }`,
  renovation: `{ outil: 'renovation', valeurs: { zone: 'interieur', niveau: 'rafraichissement', style: 'natural materials' }, images: [{ url: ${URL_IMAGE} }] }`,
  vider_base64: `{ outil: 'vider', images: [{ base64: 'data:image/jpeg;base64,/9j/4AAQ', nom: 'salon.jpg' }] }`,
  saison_televersement: `{ outil: 'saison', images: [{ televersement: ${TELEVERSEMENT} }] }`,
  ciel_trois_formes: `{ outil: 'ciel', images: [{ url: ${URL_IMAGE} }, { base64: 'iVBORw0KGgo=' }, { televersement: ${TELEVERSEMENT}, nom: 'b.jpg' }] }`,
  annonce_lieu_seul: `{ outil: 'annonce', valeurs: { lieu: 'Gent' } }`,
  annonce_complete: `{ outil: 'annonce', valeurs: { lieu: 'Gent', langue: 'French', infos: '3 chambres', atouts: 'jardin' }, images: [{ url: ${URL_IMAGE} }] }`,
};

export interface CasInvalide {
  nom: string;
  /** What is wrong, in words. */
  pourquoi: string;
  /** The statement, for the openapi-typescript file and for the hey-api file. */
  openapiTypescript: string;
  heyApi: string;
}

const corpsInvalide = (nom: string, pourquoi: string, corps: string): CasInvalide => ({
  nom,
  pourquoi,
  openapiTypescript: `export const corps: CorpsTravaux = ${corps};`,
  heyApi: `export const appel = creerTravaux({ body: ${corps} });`,
});

/** Requests the API refuses, that the generated types must refuse too: each must fail to compile. */
export const CAS_INVALIDES: CasInvalide[] = [
  corpsInvalide('outil-inconnu', 'a tool that does not exist', `{ outil: 'peinture', images: [{ url: ${URL_IMAGE} }] }`),
  corpsInvalide('outil-manquant', 'no outil', `{ images: [{ url: ${URL_IMAGE} }] }`),
  corpsInvalide(
    'valeur-non-permise',
    'a setting value outside its list',
    `{ outil: 'staging', valeurs: { style: 'baroque' }, images: [{ url: ${URL_IMAGE} }] }`,
  ),
  corpsInvalide('reglage-requis-manquant', 'annonce without lieu', `{ outil: 'annonce', valeurs: { langue: 'French' } }`),
  corpsInvalide('valeurs-requises-manquantes', 'annonce without valeurs (lieu is required)', `{ outil: 'annonce' }`),
  corpsInvalide('reglage-inconnu', 'a setting the tool does not have', `{ outil: 'ciel', valeurs: { style: 'modern' }, images: [{ url: ${URL_IMAGE} }] }`),
  corpsInvalide('reglage-non-texte', 'a setting that is not a string', `{ outil: 'annonce', valeurs: { lieu: 12 } }`),
  corpsInvalide('images-manquantes', 'an image tool without images', `{ outil: 'ciel' }`),
  corpsInvalide('url-nombre', 'a url that is a number', `{ outil: 'vider', images: [{ url: 42 }] }`),
  corpsInvalide('image-sans-source', 'an image with neither url, base64 nor televersement', `{ outil: 'ciel', images: [{ nom: 'a.jpg' }] }`),
  corpsInvalide('membre-inconnu', 'a member the body does not have', `{ outil: 'ciel', images: [{ url: ${URL_IMAGE} }], priorite: 'haute' }`),
  {
    nom: 'fichier-type-non-permis',
    pourquoi: 'an upload of a type that is not accepted',
    openapiTypescript: `export const corps: CorpsTeleversements = { fichiers: [{ type: 'image/gif', taille: 1200 }] };`,
    heyApi: `export const appel = creerTeleversements({ body: { fichiers: [{ type: 'image/gif', taille: 1200 }] } });`,
  },
  {
    nom: 'fichier-taille-texte',
    pourquoi: 'an upload size given as text',
    openapiTypescript: `export const corps: CorpsTeleversements = { fichiers: [{ type: 'image/jpeg', taille: '1200' }] };`,
    heyApi: `export const appel = creerTeleversements({ body: { fichiers: [{ type: 'image/jpeg', taille: '1200' }] } });`,
  },
  {
    nom: 'limite-texte',
    pourquoi: 'GET /travaux with limite as text',
    openapiTypescript: `export const requete: RequeteListe = { limite: '5' };`,
    heyApi: `export const appel = listerTravaux({ query: { limite: '5' } });`,
  },
  {
    nom: 'detail-inexistant',
    pourquoi: 'reading a member a validation detail does not have',
    openapiTypescript: `export const lu = (e: Erreur): unknown => e.error.details?.[0]?.code;`,
    heyApi: `export const lu = (e: Erreur): unknown => e.error.details?.[0]?.code;`,
  },
];

const ENTETE_OPENAPI_TYPESCRIPT = [
  "import type { components, operations, paths } from '../openapi-typescript';",
  "type CorpsTravaux = operations['creerTravaux']['requestBody']['content']['application/json'];",
  "type CorpsTeleversements = paths['/televersements']['post']['requestBody']['content']['application/json'];",
  "type RequeteListe = NonNullable<operations['listerTravaux']['parameters']['query']>;",
  "type Erreur = components['schemas']['Erreur'];",
];
const ENTETE_HEY_API = ["import { creerTeleversements, creerTravaux, listerTravaux, type Erreur } from '../hey-api';"];
/** Every name imported is used once, so that only the statement under test can fail. */
const UTILISES_OPENAPI_TYPESCRIPT = 'export type Utilises = [CorpsTravaux, CorpsTeleversements, RequeteListe, Erreur];';
const UTILISES_HEY_API = 'export const utilises = [creerTeleversements, creerTravaux, listerTravaux] as const; export type Utilise = Erreur;';

const fichierInvalide = (entete: string[], utilises: string, instruction: string) => [...entete, utilises, instruction, ''].join('\n');
/** The line (1-based) of the statement under test in an invalid case's file. */
export const LIGNE_INVALIDE = { openapiTypescript: ENTETE_OPENAPI_TYPESCRIPT.length + 2, heyApi: ENTETE_HEY_API.length + 2 };

const valideOpenapiTypescript = () => `${ENTETE_OPENAPI_TYPESCRIPT.join('\n')}

// Every tool's request, as the API accepts it.
${Object.entries(CORPS_VALIDES)
  .map(([nom, corps]) => `export const ${nom}: CorpsTravaux = ${corps};`)
  .join('\n')}
export const par_le_schema: components['schemas']['RequeteTravaux'] = { outil: 'ciel', images: [{ url: ${URL_IMAGE} }] };
export const televersements: CorpsTeleversements = { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: 13107200 }, { type: 'image/webp', taille: 1 }] };
export const requete_liste: RequeteListe = { limite: 5, outil: 'ciel' };
export const idempotence: NonNullable<operations['creerTravaux']['parameters']['header']> = { 'Idempotency-Key': 'commande-42' };

// Answers: what is always there is read without a check or an assertion.
type Liste = paths['/travaux']['get']['responses'][200]['content']['application/json'];
type Travail = operations['lireTravail']['responses'][200]['content']['application/json'];
type Lancement = operations['creerTravaux']['responses'][202]['content']['application/json'];
type Lot = operations['lireLot']['responses'][200]['content']['application/json'];
type Televersements = operations['creerTeleversements']['responses'][201]['content']['application/json'];
export const lire = (liste: Liste, travail: Travail, lancement: Lancement, lot: Lot, t: Televersements, solde: components['schemas']['Solde']) => {
  const nombre: number = liste.travaux.length;
  const premier: string | undefined = liste.travaux[0]?.id;
  const statut: 'en_attente' | 'en_cours' | 'termine' | 'echec' = travail.statut;
  const liens: string[] = travail.resultats.map((r) => r.url + r.expire_le);
  const texte: string | null = travail.texte;
  const ia: boolean | undefined = travail.redaction?.intelligence_artificielle;
  const echecs: number[] = lancement.echecs.map((e) => e.index);
  const lotId: string | null = lancement.lot;
  const zip: string | undefined = lot.zip?.url;
  const compteurs: number = lot.total + lot.termines + lot.echecs + lot.en_cours + lot.travaux.length;
  const put: 'PUT' = t.televersements[0]!.methode;
  const credits: number = solde.credits;
  return [nombre, premier, statut, liens, texte, ia, echecs, lotId, zip, compteurs, put, credits];
};

// Errors: details on validation errors, and the other members the service sends.
export const erreur = (e: operations['creerTravaux']['responses'][422]['content']['application/json']) => {
  const code: string = e.error.code;
  const chemin: string | undefined = e.error.details?.[0]?.chemin;
  const message: string | undefined = e.error.details?.[0]?.message;
  const index: number | undefined = e.error.index;
  const raison: 'inconnu' | 'non_recu' | 'expire' | 'deja_utilise' | undefined = e.error.raison;
  const echecs: string[] | undefined = e.error.echecs?.map((x) => x.code);
  const attente: number | undefined = e.error.retry_after;
  return [code, chemin, message, index, raison, echecs, attente];
};
`;

const valideHeyApi = () => `import { client } from '../hey-api/client.gen';
import {
  creerTeleversements,
  creerTravaux,
  lireLot,
  lireSolde,
  lireTravail,
  listerOutils,
  listerTravaux,
  type Erreur,
  type RequeteTravaux,
} from '../hey-api';

client.setConfig({ baseUrl: 'https://api.example.com/api/v1', auth: () => 'rtch_cle' });

// Every tool's request, as the API accepts it.
export const corps: RequeteTravaux[] = [
${Object.values(CORPS_VALIDES)
  .map((c) => `  ${c},`)
  .join('\n')}
];

export const utiliser = async (): Promise<unknown[]> => {
  const lancement = await creerTravaux({ body: { outil: 'ciel', images: [{ url: ${URL_IMAGE} }] }, headers: { 'Idempotency-Key': 'commande-42' } });
  const staging = await creerTravaux({ body: { outil: 'staging', valeurs: { style: 'japandi' }, images: [{ televersement: ${TELEVERSEMENT} }] } });
  const annonce = await creerTravaux({ body: { outil: 'annonce', valeurs: { lieu: 'Gent' } } });
  const televersements = await creerTeleversements({ body: { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: 13107200 }] } });
  const liste = await listerTravaux({ query: { limite: 5, outil: 'ciel' } });
  const travail = await lireTravail({ path: { id: ${TELEVERSEMENT} } });
  const lot = await lireLot({ path: { id: ${TELEVERSEMENT} } });
  const solde = await lireSolde();
  const outils = await listerOutils();

  // Answers: what is always there is read without a check or an assertion once the call succeeded.
  const nombre: number | undefined = liste.data?.travaux.length;
  const premier: string | undefined = liste.data?.travaux[0]?.id;
  const statut: string | undefined = travail.data?.statut;
  const liens: string[] | undefined = travail.data?.resultats.map((r) => r.url);
  const lotId: string | null | undefined = staging.data?.lot;
  const echecs: number[] | undefined = lancement.data?.echecs.map((e) => e.index);
  const zip: string | undefined = lot.data?.zip?.url;
  const put: 'PUT' | undefined = televersements.data?.televersements[0]?.methode;
  const credits: number | undefined = solde.data?.credits;
  const reglages: string[] | undefined = outils.data?.outils.flatMap((o) => o.champs.map((c) => c.nom));

  // Errors: details on validation errors, and the other members the service sends.
  const erreur: Erreur | undefined = annonce.error;
  const chemin: string | undefined = annonce.error?.error.details?.[0]?.chemin;
  const raison: string | undefined = lancement.error?.error.raison;
  const indexImage: number | undefined = lancement.error?.error.index;
  return [nombre, premier, statut, liens, lotId, echecs, zip, put, credits, reglages, erreur, chemin, raison, indexImage];
};
`;

/** Generates both clients from the document, with each generator's default options. */
export const generer = async (document: object, dossier: string): Promise<void> => {
  await mkdir(join(dossier, 'cas'), { recursive: true });
  await writeFile(join(dossier, 'openapi.json'), JSON.stringify(document, null, 2));
  // Both get their own copy: a generator may annotate the object it is given.
  const ast = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0]);
  await writeFile(join(dossier, 'openapi-typescript.ts'), astToString(ast));
  // Only logging is set: quiet, and no crash report written into the working directory.
  await createClient({
    input: structuredClone(document) as Record<string, unknown>,
    output: join(dossier, 'hey-api'),
    logs: { level: 'silent', file: false },
  });
};

/** Writes the valid file and one file per invalid case for each generator; returns their names. */
export const ecrireCas = async (dossier: string) => {
  const fichiers = {
    valides: ['cas/valide-openapi-typescript.ts', 'cas/valide-hey-api.ts'],
    invalides: [] as { fichier: string; cas: CasInvalide; ligne: number }[],
  };
  await writeFile(join(dossier, fichiers.valides[0]!), valideOpenapiTypescript());
  await writeFile(join(dossier, fichiers.valides[1]!), valideHeyApi());
  for (const cas of CAS_INVALIDES) {
    const ot = `cas/invalide-openapi-typescript-${cas.nom}.ts`;
    const hey = `cas/invalide-hey-api-${cas.nom}.ts`;
    await writeFile(join(dossier, ot), fichierInvalide(ENTETE_OPENAPI_TYPESCRIPT, UTILISES_OPENAPI_TYPESCRIPT, cas.openapiTypescript));
    await writeFile(join(dossier, hey), fichierInvalide(ENTETE_HEY_API, UTILISES_HEY_API, cas.heyApi));
    fichiers.invalides.push({ fichier: ot, cas, ligne: LIGNE_INVALIDE.openapiTypescript }, { fichier: hey, cas, ligne: LIGNE_INVALIDE.heyApi });
  }
  return fichiers;
};

export interface Diagnostic {
  fichier: string;
  ligne: number;
  texte: string;
}

const executer = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * `tsc --noEmit` over the generated code and the cases, with the project's TypeScript and its strict
 * options. A client's own settings: the DOM library (the SDK is a fetch client) and no Node types.
 */
export const compiler = async (dossier: string): Promise<Diagnostic[]> => {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      module: 'ESNext',
      moduleResolution: 'Bundler',
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      noFallthroughCasesInSwitch: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
    include: ['openapi-typescript.ts', 'hey-api/**/*.ts', 'cas/**/*.ts'],
  };
  await writeFile(join(dossier, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  let sortie: string;
  try {
    sortie = (await executer(process.execPath, [tsc, '--noEmit', '-p', join(dossier, 'tsconfig.json'), '--pretty', 'false'], { cwd: dossier })).stdout;
  } catch (erreur) {
    // tsc exits 2 when it reports errors: that is what the invalid cases are for.
    sortie = (erreur as { stdout?: string }).stdout ?? '';
    if (!sortie) throw erreur;
  }
  const diagnostics: Diagnostic[] = [];
  for (const ligne of sortie.split('\n')) {
    const m = /^(.+?)\((\d+),\d+\): error (.*)$/.exec(ligne);
    if (m) diagnostics.push({ fichier: m[1]!.replaceAll('\\', '/'), ligne: Number(m[2]), texte: m[3]! });
    else if (ligne.startsWith(' ') && diagnostics.length) diagnostics[diagnostics.length - 1]!.texte += `\n${ligne}`;
    else if (ligne.trim()) diagnostics.push({ fichier: '', ligne: 0, texte: ligne });
  }
  return diagnostics;
};
