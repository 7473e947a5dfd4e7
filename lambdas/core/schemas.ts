/**
 * valibot schemas of `POST /travaux`, one per tool, derived from the catalogue. The same schemas give
 * the OpenAPI document (see openapi.ts), so validation and documentation cannot disagree.
 */
import * as v from 'valibot';
import { ErreurApi, type CodeApi } from './erreurs';
import { CATALOGUE, OUTILS, type Champ, type IdOutil } from './outils';

const estHttps = (texte: string): boolean => {
  try {
    return new URL(texte).protocol === 'https:';
  } catch {
    return false;
  }
};

const nom = v.optional(v.pipe(v.string(), v.maxLength(255, 'nom is at most 255 characters')));

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
    v.string('url must be a string'),
    // Before the URL is parsed: a megabyte of text is refused by its length alone.
    v.maxLength(MAX_CARACTERES_URL, `url is at most ${MAX_CARACTERES_URL} characters`),
    v.url('url must be a valid URL'),
    v.check(estHttps, 'url must be an https URL'),
    v.description('Public https URL of the image.'),
  ),
  nom,
});

export const ImageBase64 = v.strictObject({
  base64: v.pipe(
    v.string('base64 must be a string'),
    v.minLength(1, 'base64 must not be empty'),
    v.description('Base64 content of the image, or a data URL.'),
  ),
  nom,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ImageTeleversement = v.strictObject({
  televersement: v.pipe(
    v.string('televersement must be a string'),
    v.regex(UUID, 'televersement must be the id of an upload (POST /televersements)'),
    v.description('Id of a direct upload made with POST /televersements (our extension): full-size photos, up to 15 MB.'),
  ),
  nom,
});

export const Image = v.union(
  [ImageUrl, ImageBase64, ImageTeleversement],
  'an image is exactly one of {url}, {base64} or {televersement}, with an optional nom',
);
export type ImageEntree = v.InferOutput<typeof Image>;

const schemaChamp = (champ: Champ) => {
  const base = champ.valeurs
    ? v.picklist(champ.valeurs, `${champ.nom} must be one of: ${champ.valeurs.join(', ')}`)
    : v.pipe(
        v.string(`${champ.nom} must be a string`),
        v.minLength(1, `${champ.nom} must not be empty`),
        v.maxLength(champ.longueur_max ?? Number.MAX_SAFE_INTEGER, `${champ.nom} is at most ${champ.longueur_max} characters`),
      );
  const decrit = v.pipe(base, v.description(champ.description));
  if (champ.requis) return decrit;
  return champ.defaut === undefined ? v.optional(decrit) : v.optional(decrit, champ.defaut);
};

/**
 * Settings of one tool: unknown names refused, defaults applied, every value a string. valibot gives
 * this one message to the object's three issues, told apart by what was expected: `never` (a name
 * the tool does not have), `Object` (not an object at all), or a setting's name (a required one missing).
 */
export const schemaValeurs = (outil: IdOutil) =>
  v.strictObject(
    Object.fromEntries(CATALOGUE[outil].champs.map((champ) => [champ.nom, schemaChamp(champ)])),
    (issue) => {
      if (issue.expected === 'never') return `unknown setting ${issue.received} for ${outil}`;
      if (issue.expected === 'Object') return `valeurs must be an object of settings for ${outil}`;
      return `the setting ${issue.expected} is required for ${outil}`;
    },
  );

const schemaRequete = (outil: IdOutil) => {
  const { images, champs } = CATALOGUE[outil];
  const valeurs = schemaValeurs(outil);
  // The count is checked before the elements: a million entries get one issue, not a million.
  const listeImages = v.pipe(
    v.array(v.unknown(), 'images must be an array'),
    v.minLength(images.min, `${outil} needs at least ${images.min} image(s)`),
    v.maxLength(images.max, `${outil} takes at most ${images.max} images`),
    v.array(Image, 'images must be an array'),
  );
  const valeursRequises = champs.some((champ) => champ.requis);
  return v.strictObject(
    {
      outil: v.literal(outil),
      valeurs: valeursRequises ? valeurs : v.optional(valeurs, {}),
      images: images.min === 0 ? v.optional(listeImages, []) : listeImages,
    },
    (issue) => {
      if (issue.expected === 'never') return `unknown member ${issue.received}: the body has outil, valeurs and images`;
      if (issue.expected === 'Object') return 'the body must be an object';
      return `${issue.expected} is required for ${outil}`;
    },
  );
};

export const SCHEMAS_REQUETE = Object.fromEntries(OUTILS.map((outil) => [outil, schemaRequete(outil)])) as {
  [K in IdOutil]: ReturnType<typeof schemaRequete>;
};

/** The body of `POST /travaux`, all tools: the member `outil` selects the shape. */
export const RequeteTravaux = v.variant(
  'outil',
  OUTILS.map((outil) => SCHEMAS_REQUETE[outil]),
  `outil must be one of: ${OUTILS.join(', ')}`,
);

/** `POST /televersements` (our extension): the files the client is about to upload. */
export const TYPES_TELEVERSEMENT = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const MAX_FICHIERS_TELEVERSEMENT = 50;

export const FichierAnnonce = v.strictObject({
  nom: v.optional(v.pipe(v.string('nom must be a string'), v.maxLength(255, 'nom is at most 255 characters'), v.description('Name of the file, kept as the image name.'))),
  type: v.pipe(
    v.picklist(TYPES_TELEVERSEMENT, `type must be one of: ${TYPES_TELEVERSEMENT.join(', ')}`),
    v.description('Content-Type the upload will be sent with (signed into the URL).'),
  ),
  taille: v.pipe(
    v.number('taille must be a number of bytes'),
    v.integer('taille must be a whole number of bytes'),
    v.minValue(1, 'taille must be at least 1 byte'),
    v.description('Exact size of the file in bytes (signed into the URL); at most 15 MB (15 × 2^20 bytes).'),
  ),
});

export const RequeteTeleversements = v.strictObject(
  {
    fichiers: v.pipe(
      v.array(v.unknown(), 'fichiers must be an array'),
      v.minLength(1, 'fichiers needs at least 1 file'),
      v.maxLength(MAX_FICHIERS_TELEVERSEMENT, `fichiers takes at most ${MAX_FICHIERS_TELEVERSEMENT} files`),
      v.array(FichierAnnonce, 'fichiers must be an array'),
    ),
  },
  (issue) => (issue.expected === 'never' ? `unknown member ${issue.received}: the body has fichiers` : 'the body must be an object with fichiers'),
);

export interface RequeteValidee {
  outil: IdOutil;
  valeurs: Record<string, string>;
  images: ImageEntree[];
}

const codePourChemin = (cle: unknown): CodeApi => {
  switch (cle) {
    case 'outil':
      return 'invalid_tool';
    case 'valeurs':
      return 'invalid_settings';
    case 'images':
      return 'invalid_image';
    default:
      return 'invalid_settings';
  }
};

/**
 * Validates a body already known to name a valid tool (the caller checks `outil` first so that a
 * wrong tool gets `invalid_tool`, not a list of every tool's shape). Throws a 422 `ErreurApi` that
 * lists every problem with its path.
 */
export const validerRequete = (outil: IdOutil, corps: unknown): RequeteValidee => {
  const resultat = v.safeParse(SCHEMAS_REQUETE[outil], corps);
  if (resultat.success) {
    const sortie = resultat.output as RequeteValidee;
    return { outil, valeurs: { ...sortie.valeurs }, images: [...sortie.images] };
  }
  const problemes = resultat.issues.map((issue) => ({
    chemin: v.getDotPath(issue) ?? '',
    message: issue.message,
  }));
  const premier = resultat.issues[0];
  const code = codePourChemin(premier?.path?.[0]?.key);
  throw new ErreurApi(code, problemes.map((p) => (p.chemin ? `${p.chemin}: ${p.message}` : p.message)).join('; '), {
    details: problemes,
  });
};
