/**
 * "Did you mean …?": the closest allowed name or value to what a client wrote, for a typo (edit
 * distance) or a word of another vocabulary (English names, language codes, short image types).
 */
/**
 * Names and values a client may reasonably write for ours (English words, language codes, short
 * image types). Used only when the target is one of the names allowed where the mistake is.
 */
const ALIAS: Readonly<Record<string, readonly string[]>> = {
  tool: ['outil'],
  settings: ['valeurs'],
  values: ['valeurs'],
  options: ['valeurs'],
  params: ['valeurs'],
  parameters: ['valeurs'],
  image: ['images', 'image_url'],
  photo: ['images'],
  photos: ['images'],
  pictures: ['images'],
  fichiers: ['images'],
  files: ['fichiers', 'images'],
  file: ['fichiers'],
  url: ['image_url'],
  urls: ['image_url'],
  link: ['url'],
  href: ['url'],
  data: ['base64'],
  content: ['base64'],
  upload: ['televersement'],
  upload_id: ['televersement'],
  name: ['nom'],
  filename: ['nom'],
  size: ['taille'],
  bytes: ['taille'],
  length: ['taille'],
  mime: ['type'],
  mimetype: ['type'],
  content_type: ['type'],
  'content-type': ['type'],
  contenttype: ['type'],
  room: ['piece'],
  language: ['langue'],
  lang: ['langue'],
  place: ['lieu'],
  location: ['lieu'],
  city: ['lieu'],
  address: ['lieu'],
  info: ['infos'],
  facts: ['infos'],
  features: ['atouts'],
  highlights: ['atouts'],
  level: ['niveau'],
  area: ['zone'],
  notice: ['mention'],
  watermark: ['mention'],
  jpg: ['image/jpeg'],
  jpeg: ['image/jpeg'],
  png: ['image/png'],
  webp: ['image/webp'],
  fr: ['French'],
  francais: ['French'],
  français: ['French'],
  en: ['English'],
  anglais: ['English'],
  nl: ['Dutch'],
  nederlands: ['Dutch'],
  flemish: ['Dutch'],
  vlaams: ['Dutch'],
  néerlandais: ['Dutch'],
  de: ['German'],
  deutsch: ['German'],
  allemand: ['German'],
  es: ['Spanish'],
  español: ['Spanish'],
  espanol: ['Spanish'],
  espagnol: ['Spanish'],
  it: ['Italian'],
  italiano: ['Italian'],
  italien: ['Italian'],
};

/** Edit distance counting a swap of two neighbours as one edit (`stlye` → `style` is 1). */
const distance = (a: string, b: string): number => {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cout = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cout);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
};

/**
 * The allowed name or value the client most likely meant, if any: the same but for case, a known
 * alias, the only one it begins, or one within a few typing mistakes (one per four letters: more, and
 * `image/gif` would suggest `image/png`).
 */
export const suggerer = (mot: string, candidats: readonly string[]): string | undefined => {
  // Past this length it is no typo, and the distance would cost more than it is worth.
  if (mot.length === 0 || mot.length > 64) return undefined;
  const bas = mot.toLowerCase();
  const exact = candidats.find((c) => c.toLowerCase() === bas);
  if (exact !== undefined) return exact;
  const alias = Object.hasOwn(ALIAS, bas) ? ALIAS[bas]!.find((a) => candidats.includes(a)) : undefined;
  if (alias !== undefined) return alias;
  if (bas.length >= 3) {
    const debuts = candidats.filter((c) => c.toLowerCase().startsWith(bas));
    if (debuts.length === 1) return debuts[0];
  }
  let meilleur: string | undefined;
  let meilleure = Infinity;
  for (const c of candidats) {
    const d = distance(bas, c.toLowerCase());
    if (d < meilleure && d <= Math.max(1, Math.floor(Math.min(bas.length, c.length) / 4))) {
      meilleur = c;
      meilleure = d;
    }
  }
  return meilleur;
};
