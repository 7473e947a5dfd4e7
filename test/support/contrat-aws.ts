/**
 * What AWS documents for the calls of the production engine, in one place (issue 28, point 6): the
 * request bodies the engine builds and the answers its parsers read, field by field, with their types,
 * ranges and sizes. test/unit/contrat-bedrock.test.ts runs the engine against recorded answers and
 * checks every request it sends against these schemas, so that a change to a recipe cannot drift from
 * the documentation unseen. Each schema names its source; change it with the source in hand, never to
 * make a test pass.
 *
 * Sources (as documented in November 2026):
 * - Stability AI Image Services on Bedrock: the Bedrock User Guide's Stability AI pages, which give the
 *   request and response of each service (the same fields as Stability's own v2beta API): Inpaint,
 *   Search and Replace, Control Structure. Images: every side at least 64 px, 4 096 to 9 437 184 pixels,
 *   aspect ratio between 1:2.5 and 2.5:1; `prompt` and `negative_prompt` at most 10 000 characters;
 *   `seed` 0 to 4 294 967 294 (0: random); `output_format` jpeg, png or webp; `grow_mask` 0–100 (inpaint)
 *   or 0–20 (search and replace); `control_strength` 0–1. Answer: `{images: [base64], seeds: [int],
 *   finish_reasons: [null | string]}`.
 * - InvokeModel (Bedrock API reference): the answer body is at most 25 000 000 bytes.
 * - Converse (Bedrock API reference, ContentBlock and ImageBlock): an image block is png, jpeg, gif or
 *   webp, at most 3.75 MB and 8 000 px a side, at most 20 images a request; `inferenceConfig.maxTokens`
 *   at least 1; `temperature` and `topP` 0–1. Answer: `output.message.content[].text`, `stopReason` one of
 *   end_turn, tool_use, max_tokens, stop_sequence, guardrail_intervened, content_filtered.
 * - Rekognition DetectLabels, DetectFaces, DetectText (API reference, Image): `Bytes` of a JPEG or PNG, at
 *   most 5 MB; DetectLabels `MaxLabels` at least 0, `MinConfidence` 0–100, `Features` GENERAL_LABELS and/or
 *   IMAGE_PROPERTIES; boxes (`BoundingBox`) as ratios of the image's width and height.
 */
import * as v from 'valibot';

export const STABILITY = {
  coteMin: 64,
  pixelsMin: 4_096,
  pixelsMax: 9_437_184,
  rapportMax: 2.5,
  texteMax: 10_000,
  graineMax: 4_294_967_294,
  formats: ['jpeg', 'png', 'webp'] as const,
};
export const REPONSE_INVOKE_MAX = 25_000_000;
export const CONVERSE = { imageOctetsMax: 3.75 * 1024 * 1024, imageCoteMax: 8_000, imagesMax: 20, formats: ['png', 'jpeg', 'gif', 'webp'] as const };
export const REKOGNITION = { octetsMax: 5 * 1024 * 1024 };

const base64 = v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64'), v.minLength(4));
const texte = v.pipe(v.string(), v.minLength(1), v.maxLength(STABILITY.texteMax));
const commun = {
  image: base64,
  prompt: texte,
  negative_prompt: v.optional(v.pipe(v.string(), v.maxLength(STABILITY.texteMax))),
  seed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(STABILITY.graineMax)),
  output_format: v.optional(v.picklist(STABILITY.formats)),
  style_preset: v.optional(v.string()),
};

/** Body of each Stability service, strict: an unknown field is a drift too. */
export const CORPS_STABILITY = {
  inpaint: v.strictObject({ ...commun, mask: v.optional(base64), grow_mask: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))) }),
  'search-replace': v.strictObject({
    ...commun,
    search_prompt: texte,
    grow_mask: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(20))),
  }),
  'control-structure': v.strictObject({ ...commun, control_strength: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))) }),
} as const;

/** Which service a model id is (its id without the geographic prefix names it). */
export const serviceStability = (modele: string): keyof typeof CORPS_STABILITY => {
  if (modele.includes('stable-image-inpaint')) return 'inpaint';
  if (modele.includes('search-replace')) return 'search-replace';
  if (modele.includes('control-structure')) return 'control-structure';
  throw new Error(`not a Stability service this contract knows: ${modele}`);
};

/** An image a Stability service accepts, by its dimensions. */
export const imageStabilityValide = (largeur: number, hauteur: number): string | null => {
  if (largeur < STABILITY.coteMin || hauteur < STABILITY.coteMin) return `a side under ${STABILITY.coteMin} px (${largeur}×${hauteur})`;
  const pixels = largeur * hauteur;
  if (pixels < STABILITY.pixelsMin || pixels > STABILITY.pixelsMax) return `${pixels} pixels, outside ${STABILITY.pixelsMin}–${STABILITY.pixelsMax}`;
  if (Math.max(largeur / hauteur, hauteur / largeur) > STABILITY.rapportMax) return `aspect ratio over ${STABILITY.rapportMax}:1 (${largeur}×${hauteur})`;
  return null;
};

export const REPONSE_STABILITY = v.object({
  images: v.array(base64),
  seeds: v.array(v.pipe(v.number(), v.integer())),
  finish_reasons: v.array(v.nullable(v.string())),
});

const blocTexte = v.strictObject({ text: v.pipe(v.string(), v.minLength(1)) });
const blocImage = v.strictObject({
  image: v.strictObject({ format: v.picklist(CONVERSE.formats), source: v.strictObject({ bytes: v.instance(Uint8Array) }) }),
});

/** The Converse request annonce sends (the fields it uses; others are allowed by the API but not sent). */
export const REQUETE_CONVERSE = v.object({
  modelId: v.pipe(v.string(), v.minLength(1)),
  system: v.optional(v.array(blocTexte)),
  messages: v.pipe(
    v.array(v.strictObject({ role: v.picklist(['user', 'assistant']), content: v.pipe(v.array(v.union([blocTexte, blocImage])), v.minLength(1)) })),
    v.minLength(1),
  ),
  inferenceConfig: v.object({
    maxTokens: v.pipe(v.number(), v.integer(), v.minValue(1)),
    temperature: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
    topP: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  }),
});

export const STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'guardrail_intervened', 'content_filtered'] as const;

const imageRekognition = v.strictObject({
  Bytes: v.pipe(
    v.instance(Uint8Array),
    v.check((o) => o.length > 0 && o.length <= REKOGNITION.octetsMax, 'Image.Bytes: 1 byte to 5 MB'),
  ),
});
export const REQUETE_DETECT_LABELS = v.strictObject({
  Image: imageRekognition,
  MaxLabels: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  MinConfidence: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
  Features: v.optional(v.array(v.picklist(['GENERAL_LABELS', 'IMAGE_PROPERTIES']))),
  Settings: v.optional(v.object({})),
});
export const REQUETE_DETECT_FACES = v.strictObject({
  Image: imageRekognition,
  Attributes: v.optional(
    v.array(
      v.picklist([
        'DEFAULT',
        'ALL',
        'AGE_RANGE',
        'BEARD',
        'EMOTIONS',
        'EYE_DIRECTION',
        'EYEGLASSES',
        'EYES_OPEN',
        'GENDER',
        'MOUTH_OPEN',
        'MUSTACHE',
        'FACE_OCCLUDED',
        'SMILE',
        'SUNGLASSES',
      ]),
    ),
  ),
});
export const REQUETE_DETECT_TEXT = v.strictObject({ Image: imageRekognition, Filters: v.optional(v.object({})) });

/** Rekognition accepts JPEG and PNG only (not WebP). */
export const formatRekognition = (octets: Uint8Array): 'jpeg' | 'png' | null =>
  octets[0] === 0xff && octets[1] === 0xd8 ? 'jpeg' : octets[0] === 0x89 && octets[1] === 0x50 ? 'png' : null;
