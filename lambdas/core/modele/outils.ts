/**
 * The tool catalogue: the one place where a tool's cost, image counts and settings are declared.
 * `GET /outils`, the valibot schemas of `POST /travaux`, the OpenAPI document and the engines all read
 * it, so a setting added here shows up everywhere at once.
 */

export const OUTILS = ['vider', 'staging', 'renovation', 'saison', 'ciel', 'annonce', 'fusion'] as const;
export type IdOutil = (typeof OUTILS)[number];
/**
 * The tools that retouch one photo with a model (or the preview's stand-in for it): every tool but the
 * listing text and `fusion`, our extension, which merges several photos by classical image processing,
 * the same code on every engine (moteurs/commun/fusion/).
 */
export type OutilImage = Exclude<IdOutil, 'annonce' | 'fusion'>;
export const OUTILS_IMAGE = OUTILS.filter((o): o is OutilImage => o !== 'annonce' && o !== 'fusion');
/** Tools whose result no model makes: the preview engine delivers them at production quality, so never marked as a preview. */
export const sansModele = (outil: IdOutil): boolean => outil === 'fusion';

/** One setting of a tool, as described in `Outil.champs` (the spec leaves its inner shape open). */
export interface Champ {
  nom: string;
  type: 'string';
  requis: boolean;
  description: string;
  /** Allowed values (a closed list), when the setting is an enumeration. */
  valeurs?: readonly string[];
  defaut?: string;
  /** Maximum length in characters, for free text. */
  longueur_max?: number;
}

export interface Outil {
  id: IdOutil;
  nom: string;
  resume: string;
  cout: number;
  images: { min: number; max: number; par_lot: boolean };
  champs: readonly Champ[];
}

/** The six languages of `annonce` and of the staging notice. */
export const LANGUES = ['French', 'English', 'Dutch', 'German', 'Spanish', 'Italian'] as const;
export type Langue = (typeof LANGUES)[number];
/** `mention` value that draws no notice. */
export const SANS_MENTION = 'none';

export const MAX_IMAGES_LOT = 50;
export const MAX_IMAGES_ANNONCE = 6;
/** A bracket: 2 photos at least (there is nothing to merge in one), 9 at most (3–7 is what cameras shoot). */
export const MIN_IMAGES_FUSION = 2;
export const MAX_IMAGES_FUSION = 9;
export const LONGUEUR_MAX_TEXTE = 1000;

const imagesParLot = { min: 1, max: MAX_IMAGES_LOT, par_lot: true } as const;

/** The values of `floutage`, `none` first and by default (moteurs/personnes.ts says what each blurs). */
export const VALEURS_FLOUTAGE = ['none', 'faces', 'plates', 'faces and plates'] as const;

/**
 * Our extension, on every image tool (docs/api.md, "Our extensions"): faces and number plates found in the
 * result are blurred beyond recognition before it is signed (moteurs/floutage.ts). Off unless asked.
 */
const CHAMP_FLOUTAGE: Champ = {
  nom: 'floutage',
  type: 'string',
  requis: false,
  description: 'Blur the faces, the number plates, or both, found in the result, beyond recognition (Retouche extension); none by default.',
  valeurs: VALEURS_FLOUTAGE,
  defaut: 'none',
};

export const CATALOGUE: Readonly<Record<IdOutil, Outil>> = {
  vider: {
    id: 'vider',
    nom: 'Vider la pièce',
    resume: 'Removes furniture and clutter and reveals the real space.',
    cout: 4,
    images: imagesParLot,
    champs: [CHAMP_FLOUTAGE],
  },
  staging: {
    id: 'staging',
    nom: 'Home staging virtuel',
    resume: 'Furnishes an empty room in a chosen style.',
    cout: 5,
    images: imagesParLot,
    champs: [
      {
        nom: 'piece',
        type: 'string',
        requis: false,
        description: 'Kind of room to furnish.',
        valeurs: ['living room', 'bedroom', 'kitchen', 'dining room', 'home office', "children's bedroom"],
        defaut: 'living room',
      },
      {
        nom: 'style',
        type: 'string',
        requis: false,
        description: 'Furnishing style.',
        valeurs: ['modern', 'Scandinavian', 'industrial', 'classic elegant', 'japandi', 'warm bohemian'],
        defaut: 'modern',
      },
      {
        // Our extension (docs/api.md, "Our extensions"): off unless asked, so spec clients see no change.
        nom: 'mention',
        type: 'string',
        requis: false,
        description: 'Visible "virtually staged" notice drawn on the photo, in this language (Retouche extension); none by default.',
        valeurs: [SANS_MENTION, ...LANGUES],
        defaut: SANS_MENTION,
      },
      CHAMP_FLOUTAGE,
    ],
  },
  renovation: {
    id: 'renovation',
    nom: 'Rénovation virtuelle',
    resume: 'Shows the property once renovated, facade or interior.',
    cout: 8,
    images: imagesParLot,
    champs: [
      {
        nom: 'zone',
        type: 'string',
        requis: false,
        description: 'Part of the property shown.',
        valeurs: ['facade', 'interieur'],
        defaut: 'facade',
      },
      {
        nom: 'niveau',
        type: 'string',
        requis: false,
        description: 'Depth of the renovation.',
        valeurs: ['rafraichissement', 'complete'],
        defaut: 'complete',
      },
      {
        nom: 'style',
        type: 'string',
        requis: false,
        description: 'Style of the renovation.',
        valeurs: ['contemporary', 'classic', 'natural materials'],
        defaut: 'contemporary',
      },
      CHAMP_FLOUTAGE,
    ],
  },
  saison: {
    id: 'saison',
    nom: 'Été',
    resume: 'Turns a winter photo into a summer photo.',
    cout: 3,
    images: imagesParLot,
    champs: [CHAMP_FLOUTAGE],
  },
  ciel: {
    id: 'ciel',
    nom: 'Ciel bleu',
    resume: 'Blue sky, balanced light, straight lines.',
    cout: 2,
    images: imagesParLot,
    champs: [CHAMP_FLOUTAGE],
  },
  annonce: {
    id: 'annonce',
    nom: 'Annonce',
    resume: 'Generates a ready-to-post listing text in a chosen language (Markdown).',
    cout: 3,
    images: { min: 0, max: MAX_IMAGES_ANNONCE, par_lot: false },
    champs: [
      {
        nom: 'langue',
        type: 'string',
        requis: false,
        description: 'Language of the listing.',
        valeurs: LANGUES,
        defaut: 'Dutch',
      },
      {
        nom: 'lieu',
        type: 'string',
        requis: true,
        description: 'Place of the property.',
        longueur_max: LONGUEUR_MAX_TEXTE,
      },
      {
        nom: 'infos',
        type: 'string',
        requis: false,
        description: 'Facts: surface, rooms, price.',
        longueur_max: LONGUEUR_MAX_TEXTE,
      },
      {
        nom: 'atouts',
        type: 'string',
        requis: false,
        description: 'Selling points.',
        longueur_max: LONGUEUR_MAX_TEXTE,
      },
    ],
  },
  fusion: {
    id: 'fusion',
    nom: 'Fusion d’expositions',
    resume: 'Merges bracketed exposures of one view (2 to 9 photos, handheld or not) into one photo: windows and dark corners both show (Retouche extension).',
    // The stage's price may differ (`-c couts=fusion:3`): coutsDeLaPile.
    cout: 2,
    images: { min: MIN_IMAGES_FUSION, max: MAX_IMAGES_FUSION, par_lot: false },
    champs: [],
  },
};

export const estOutil = (valeur: unknown): valeur is IdOutil => typeof valeur === 'string' && (OUTILS as readonly string[]).includes(valeur);

/**
 * The tools this stage offers: all of them, unless the operator withdrew some (`-c outils=…`, given to the
 * functions as RETOUCHE_OUTILS). An EU-resident stage offers only what runs in the EU (lib/residence.ts).
 * A name that is not a tool stops the function at its cold start rather than hide a tool by a typo.
 */
export const outilsOfferts = (env: NodeJS.ProcessEnv = process.env): readonly IdOutil[] => {
  const liste = env.RETOUCHE_OUTILS;
  if (liste === undefined || liste === '') return OUTILS;
  const noms = liste.split(',').map((n) => n.trim());
  const inconnus = noms.filter((n) => !estOutil(n));
  if (inconnus.length > 0) throw new Error(`RETOUCHE_OUTILS names no tool: ${inconnus.join(', ')} (tools: ${OUTILS.join(', ')})`);
  return OUTILS.filter((o) => noms.includes(o));
};

/**
 * Whether this stage's live jobs run the preview engine: `RETOUCHE_MOTEUR`, `local` unless the stage was
 * deployed with `bedrock` (moteurs/choix.ts). Said by GET /outils and recorded on each job (`apercu`); a
 * test key's jobs run the preview on every stage.
 */
export const apercuDeLaPile = (env: NodeJS.ProcessEnv = process.env): boolean => (env.RETOUCHE_MOTEUR ?? 'local') === 'local';

/**
 * The stage's price of each tool, in credits: the catalogue's, unless the operator set some
 * (`-c couts=fusion:3,ciel:2`, given to the functions as RETOUCHE_COUTS; lib/configuration.ts checks it at
 * synthesis). GET /outils says these prices and POST /travaux debits them; a malformed value stops the
 * function at its cold start rather than sell a tool at a price nobody set.
 */
export const coutsDeLaPile = (env: NodeJS.ProcessEnv = process.env): Readonly<Record<IdOutil, number>> => {
  const couts = Object.fromEntries(OUTILS.map((o) => [o, CATALOGUE[o].cout])) as Record<IdOutil, number>;
  for (const [outil, cout] of Object.entries(lireCouts(env.RETOUCHE_COUTS ?? ''))) couts[outil as IdOutil] = cout;
  return couts;
};

/** `fusion:3,ciel:2` → {fusion: 3, ciel: 2}; throws, naming what is wrong, on anything else. */
export const lireCouts = (texte: string): Partial<Record<IdOutil, number>> => {
  const couts: Partial<Record<IdOutil, number>> = {};
  for (const morceau of texte
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)) {
    const [outil, valeur, ...reste] = morceau.split(':').map((m) => m.trim());
    const cout = Number(valeur);
    if (!estOutil(outil) || reste.length > 0 || valeur === '' || !Number.isSafeInteger(cout) || cout < 0) {
      throw new Error(`costs must read tool:credits separated by commas, e.g. fusion:3,ciel:2, among ${OUTILS.join(', ')} (got ${morceau})`);
    }
    couts[outil] = cout;
  }
  return couts;
};

/** GET /outils' list: the tools this stage offers, at this stage's prices. */
export const catalogueDeLaPile = (env: NodeJS.ProcessEnv = process.env): Outil[] => {
  const couts = coutsDeLaPile(env);
  return outilsOfferts(env).map((id) => ({ ...CATALOGUE[id], cout: couts[id] }));
};
