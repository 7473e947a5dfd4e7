/**
 * valibot schemas of `POST /travaux`, one per tool, derived from the catalogue. The same schemas give
 * the OpenAPI document (see openapi.ts), so validation and documentation cannot disagree.
 *
 * These are the rules only: what a client is told when one is broken is worded by messages/, from
 * the issue and the catalogue. The one wording here is the predicate of a rule valibot cannot
 * describe by itself (a `check`, a `regex`), written to follow the field's name.
 */
import * as v from 'valibot';
import { CATALOGUE, OUTILS, type Champ, type IdOutil } from '../modele/outils';
import { MOTIF_UUID } from '../modele/uuid';

const estHttps = (texte: string): boolean => {
  try {
    return new URL(texte).protocol === 'https:';
  } catch {
    return false;
  }
};

const nom = v.optional(v.pipe(v.string(), v.maxLength(255)));

/**
 * Longest `url` accepted. 2048 is the classic browser limit, but an S3 presigned URL made with
 * temporary credentials carries a session token of 1–2 KB once URL-encoded and can pass it; about
 * 8 KB is the longest request line common web servers accept by default (nginx, Apache), so a longer
 * URL could hardly be fetched anyway. It also keeps the job record, which holds the URL (up to 6 for
 * annonce), far under DynamoDB's 400 KB item limit: an unbounded URL failed the request with a 500.
 */
export const MAX_CARACTERES_URL = 8192;

export const ImageUrl = v.strictObject({
  url: v.pipe(
    v.string(),
    // Before the URL is parsed: a megabyte of text is refused by its length alone.
    v.maxLength(MAX_CARACTERES_URL),
    v.url(),
    v.check(estHttps, 'must be an https URL (http and other schemes are refused)'),
    v.description('Public https URL of the image.'),
  ),
  nom,
});

export const ImageBase64 = v.strictObject({
  base64: v.pipe(v.string(), v.minLength(1), v.description('Base64 content of the image, or a data URL.')),
  nom,
});

export const ImageTeleversement = v.strictObject({
  televersement: v.pipe(
    v.string(),
    v.regex(MOTIF_UUID, 'must be the id of an upload made with POST /televersements (a UUID)'),
    v.description('Id of a direct upload made with POST /televersements (our extension): full-size photos, up to 15 MB.'),
  ),
  nom,
});

export const Image = v.union([ImageUrl, ImageBase64, ImageTeleversement]);
export type ImageEntree = v.InferOutput<typeof Image>;

const schemaChamp = (champ: Champ) => {
  const base = champ.valeurs ? v.picklist(champ.valeurs) : v.pipe(v.string(), v.minLength(1), v.maxLength(champ.longueur_max ?? Number.MAX_SAFE_INTEGER));
  const decrit = v.pipe(base, v.description(champ.description));
  if (champ.requis) return decrit;
  return champ.defaut === undefined ? v.optional(decrit) : v.optional(decrit, champ.defaut);
};

/**
 * Settings of one tool: unknown names refused, defaults applied, every value a string. valibot's
 * object schemas take an array for an object (an empty one passed as `{}`), while the spec and the
 * OpenAPI document say an object: arrays are refused first. The JSON Schema generated is unchanged.
 */
export const schemaValeurs = (outil: IdOutil) =>
  v.pipe(
    v.unknown(),
    v.check((valeurs) => !Array.isArray(valeurs), 'must be an object of settings, not an array'),
    v.strictObject(Object.fromEntries(CATALOGUE[outil].champs.map((champ) => [champ.nom, schemaChamp(champ)]))),
  );

const schemaRequete = (outil: IdOutil) => {
  const { images, champs } = CATALOGUE[outil];
  const valeurs = schemaValeurs(outil);
  // The count is checked before the elements: a million entries get one issue, not a million.
  const listeImages = v.pipe(v.array(v.unknown()), v.minLength(images.min), v.maxLength(images.max), v.array(Image));
  const valeursRequises = champs.some((champ) => champ.requis);
  return v.strictObject({
    outil: v.literal(outil),
    valeurs: valeursRequises ? valeurs : v.optional(valeurs, {}),
    images: images.min === 0 ? v.optional(listeImages, []) : listeImages,
  });
};

export const SCHEMAS_REQUETE = Object.fromEntries(OUTILS.map((outil) => [outil, schemaRequete(outil)])) as {
  [K in IdOutil]: ReturnType<typeof schemaRequete>;
};

/** The body of `POST /travaux`, all tools: the member `outil` selects the shape. */
export const RequeteTravaux = v.variant(
  'outil',
  OUTILS.map((outil) => SCHEMAS_REQUETE[outil]),
);

/** `POST /televersements` (our extension): the files the client is about to upload. */
export const TYPES_TELEVERSEMENT = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const MAX_FICHIERS_TELEVERSEMENT = 50;

export const FichierAnnonce = v.strictObject({
  nom: v.optional(v.pipe(v.string(), v.maxLength(255), v.description('Name of the file, kept as the image name.'))),
  type: v.pipe(v.picklist(TYPES_TELEVERSEMENT), v.description('Content-Type the upload will be sent with (signed into the URL).')),
  taille: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.description('Exact size of the file in bytes (signed into the URL); at most 15 MB (15 × 2^20 bytes).'),
  ),
});

export const RequeteTeleversements = v.strictObject({
  fichiers: v.pipe(v.array(v.unknown()), v.minLength(1), v.maxLength(MAX_FICHIERS_TELEVERSEMENT), v.array(FichierAnnonce)),
});

export interface RequeteValidee {
  outil: IdOutil;
  valeurs: Record<string, string>;
  images: ImageEntree[];
}

/**
 * Checks a body already known to name a valid tool (the caller checks `outil` first so that a wrong
 * tool gets `invalid_tool`, not a list of every tool's shape): the request with its defaults, or
 * valibot's issues. They are worded for the client by messages/travaux.ts (`refusTravaux`, or `validerRequete`
 * there, which throws the worded 422), imported only when a body is refused.
 */
export const verifierRequete = (
  outil: IdOutil,
  corps: unknown,
): { requete: RequeteValidee; issues?: never } | { requete?: never; issues: v.BaseIssue<unknown>[] } => {
  const resultat = v.safeParse(SCHEMAS_REQUETE[outil], corps);
  if (!resultat.success) return { issues: resultat.issues };
  const sortie = resultat.output as RequeteValidee;
  return { requete: { outil, valeurs: { ...sortie.valeurs }, images: [...sortie.images] } };
};
