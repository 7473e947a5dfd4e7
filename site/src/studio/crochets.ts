/**
 * How the studio groups the photos dropped for `fusion` into brackets (a camera's exposure bracketing: one view
 * shot at several exposures, one frame after another), from what each photo's EXIF says. Pure: the EXIF is read
 * elsewhere (exif.ts), the page edits the result by hand (fusion.ts), test/unit/site-crochets.test.ts holds it.
 *
 * The rule:
 * 1. The photos that carry a capture time (DateTimeOriginal, to the fraction with SubSecTimeOriginal) are taken in
 *    that order, drop order between equal times (the file names a camera gives follow it). Those without one go
 *    together, in drop order, into a bracket of their own after the others, and the page says so: nothing tells
 *    where their series start or end.
 * 2. A photo starts a new bracket when
 *    a. more than ECART_MAX_MS (5 s) passed between the end of the previous frame (its time plus twice its
 *       exposure time: a long exposure's noise reduction takes a dark frame as long) and its own start. A camera's
 *       bracket follows within a second, one shot by hand within a few; moving the tripod to the next view takes
 *       longer;
 *    b. or its exposure repeats one already in the bracket (to a sixth of a stop): a new series, of the same view
 *       or not. Automatic bracketing starts every series at the same offset, and a bracket has no two frames alike.
 * 3. A bracket over MAX_PHOTOS_CROCHET (9, the API's maximum) that these rules left whole (no exposure in the EXIF,
 *    or a camera set to more frames) is cut into as few brackets as fit, of equal sizes (10: 5 + 5, as two series
 *    of five shot back to back would be), and the page says so.
 * 4. A bracket of one photo stays one: nothing can be merged with it. The page says so and does not launch it.
 *
 * The exposure compared is the exposure compensation (ExposureBiasValue) when the photos dropped carry different
 * ones (automatic bracketing writes its offsets there); else the exposure itself, from the exposure time, aperture
 * and ISO (bracketing by hand in manual mode, where the compensation stays 0).
 */

/** What a photo's EXIF says of its capture, as far as the grouping needs it; any field may be missing. */
export interface Exposition {
  /** Capture time in milliseconds: DateTimeOriginal read as if UTC (only differences count), plus SubSecTimeOriginal. */
  prise?: number;
  /** Exposure compensation (ExposureBiasValue), in EV. */
  correction?: number;
  /** Exposure time (ExposureTime), in seconds. */
  duree?: number;
  /** Aperture (FNumber). */
  ouverture?: number;
  /** ISO (PhotographicSensitivity, formerly ISOSpeedRatings). */
  iso?: number;
}

export interface PhotoExposee {
  id: string;
  exposition: Exposition;
}

/** The EXIF tags read, by number (the EXIF IFD's): exifr's smallest build has no names for them. */
export const TAGS_EXIF = {
  DateTimeOriginal: 0x9003,
  SubSecTimeOriginal: 0x9291,
  ExposureBiasValue: 0x9204,
  ExposureTime: 0x829a,
  FNumber: 0x829d,
  ISO: 0x8827,
} as const;

/** The API's bounds of one fusion job (GET /outils says the same: images.min and images.max). */
export const MIN_PHOTOS_CROCHET = 2;
export const MAX_PHOTOS_CROCHET = 9;
export const ECART_MAX_MS = 5000;
/** Two exposures closer than a sixth of a stop are the same (cameras step by a third at the finest). */
const TOLERANCE_EV = 1 / 6;

const nombre = (valeur: unknown): number | undefined => {
  const v = Array.isArray(valeur) || ArrayBuffer.isView(valeur) ? (valeur as ArrayLike<unknown>)[0] : valeur;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};
const positif = (valeur: unknown): number | undefined => {
  const v = nombre(valeur);
  return v !== undefined && v > 0 ? v : undefined;
};

/** "2024:05:01 10:00:03" (and "25" of SubSecTimeOriginal: 0.25 s) as milliseconds; undefined for a blank or odd date. */
export const lirePrise = (date: unknown, sousSecondes?: unknown): number | undefined => {
  const m = typeof date === 'string' ? /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(date.trim()) : null;
  if (!m) return undefined;
  const [an, mois, jour, heure, minute, seconde] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  // Cameras without a clock set write "0000:00:00 00:00:00".
  if (an < 1900 || mois < 1 || mois > 12 || jour < 1 || jour > 31 || heure > 23 || minute > 59 || seconde > 60) return undefined;
  const fraction = String(sousSecondes ?? '').trim();
  return Date.UTC(an, mois - 1, jour, heure, minute, seconde) + (/^\d{1,9}$/.test(fraction) ? Number(`0.${fraction}`) * 1000 : 0);
};

/** The tags exif.ts read (by number), as an Exposition: what is missing or not a number is left out. */
export const depuisExif = (tags: Readonly<Record<number, unknown>> | undefined): Exposition => {
  if (!tags) return {};
  const e: Exposition = {
    prise: lirePrise(tags[TAGS_EXIF.DateTimeOriginal], tags[TAGS_EXIF.SubSecTimeOriginal]),
    correction: nombre(tags[TAGS_EXIF.ExposureBiasValue]),
    duree: positif(tags[TAGS_EXIF.ExposureTime]),
    ouverture: positif(tags[TAGS_EXIF.FNumber]),
    iso: positif(tags[TAGS_EXIF.ISO]),
  };
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as Exposition;
};

export type Mesure = 'correction' | 'exposition';

/** The compensation when the photos carry different ones, else the exposure itself (the rule, at the top). */
export const mesureDe = (photos: readonly PhotoExposee[]): Mesure => {
  const corrections = new Set(photos.flatMap((p) => (p.exposition.correction === undefined ? [] : [Math.round(p.exposition.correction * 6)])));
  return corrections.size > 1 ? 'correction' : 'exposition';
};

/**
 * The photo's exposure in EV by that measure, brighter higher; undefined when its EXIF does not say. The exposure
 * itself: log2(t) − 2·log2(N) + log2(ISO/100), an aperture or ISO not said taken as the same for every frame.
 */
export const valeurExposition = (e: Exposition, mesure: Mesure): number | undefined => {
  if (mesure === 'correction') return e.correction;
  if (e.duree === undefined) return undefined;
  return Math.log2(e.duree) - 2 * Math.log2(e.ouverture ?? 1) + Math.log2((e.iso ?? 100) / 100);
};

const pareilles = (a: number | undefined, b: number | undefined): boolean => a !== undefined && b !== undefined && Math.abs(a - b) < TOLERANCE_EV;

/** Where the previous frame ended, by its EXIF: its start, plus twice its exposure time (rule 2a). */
const finDe = (e: Exposition): number => (e.prise ?? 0) + 2 * (e.duree ?? 0) * 1000;

/** Rule 2: `photo` does not belong to `crochet`, the bracket being built, which it follows in time. */
const commenceUneSerie = (crochet: readonly PhotoExposee[], photo: PhotoExposee, mesure: Mesure): boolean => {
  const precedente = crochet[crochet.length - 1];
  if (!precedente) return true;
  if ((photo.exposition.prise ?? 0) - finDe(precedente.exposition) > ECART_MAX_MS) return true;
  const valeur = valeurExposition(photo.exposition, mesure);
  return crochet.some((p) => pareilles(valeurExposition(p.exposition, mesure), valeur));
};

/** `serie` in order, into as few parts of at most `max` as fit, their sizes differing by one at most (rule 3). */
export const couper = <T>(serie: readonly T[], max = MAX_PHOTOS_CROCHET): T[][] => {
  const parts = Math.max(1, Math.ceil(serie.length / max));
  const taille = Math.floor(serie.length / parts);
  const reste = serie.length % parts;
  const resultat: T[][] = [];
  for (let i = 0, debut = 0; i < parts; i++) {
    const fin = debut + taille + (i < reste ? 1 : 0);
    resultat.push(serie.slice(debut, fin));
    debut = fin;
  }
  return resultat;
};

export interface Regroupement {
  /** The brackets, each its photos' ids in capture order (drop order without a capture time). */
  crochets: string[][];
  /** How many photos had no capture time: they make the last bracket(s), in drop order (rule 1). */
  sansDate: number;
  /** The series over the maximum that were cut (rule 3): their size, and into how many brackets. */
  coupees: { photos: number; crochets: number }[];
}

/** The photos, in drop order, grouped into brackets by the rule at the top of this file. */
export const grouper = (photos: readonly PhotoExposee[], max = MAX_PHOTOS_CROCHET): Regroupement => {
  const mesure = mesureDe(photos);
  // Array.prototype.sort is stable: drop order between equal times.
  const datees = photos.filter((p) => p.exposition.prise !== undefined).sort((a, b) => a.exposition.prise! - b.exposition.prise!);
  const sansDate = photos.filter((p) => p.exposition.prise === undefined);
  const series: PhotoExposee[][] = [];
  for (const photo of datees) {
    const courante = series[series.length - 1];
    if (courante && !commenceUneSerie(courante, photo, mesure)) courante.push(photo);
    else series.push([photo]);
  }
  if (sansDate.length > 0) series.push(sansDate);
  const coupees: Regroupement['coupees'] = [];
  const crochets = series.flatMap((serie) => {
    if (serie.length <= max) return [serie];
    const parts = couper(serie, max);
    coupees.push({ photos: serie.length, crochets: parts.length });
    return parts;
  });
  return { crochets: crochets.map((c) => c.map((p) => p.id)), sansDate: sansDate.length, coupees };
};

/**
 * The brackets as a launch takes them: those it starts (one job each, MIN to MAX photos), those it leaves in the form
 * (one photo: rule 4), and those over the maximum (made so by hand), which stop the launch until they are fixed.
 */
export const classer = <T>(crochets: readonly (readonly T[])[], min = MIN_PHOTOS_CROCHET, max = MAX_PHOTOS_CROCHET) => ({
  lancables: crochets.filter((c) => c.length >= min && c.length <= max),
  seules: crochets.filter((c) => c.length > 0 && c.length < min),
  tropGrands: crochets.filter((c) => c.length > max),
});

/**
 * The photo of a bracket its result is compared with (the "before"): the metered one (compensation nearest 0)
 * or the middle exposure, which a photographer calls the normal one; the first when the EXIF does not tell.
 */
export const reference = <T extends PhotoExposee>(crochet: readonly T[]): T | undefined => {
  const mesure = mesureDe(crochet);
  const valeurs = crochet.map((p) => valeurExposition(p.exposition, mesure));
  if (valeurs.some((v) => v === undefined)) return crochet[0];
  if (mesure === 'correction') {
    const distances = valeurs.map((v) => Math.abs(v!));
    return crochet[distances.indexOf(Math.min(...distances))];
  }
  const rangs = crochet.map((_, i) => i).sort((a, b) => valeurs[a]! - valeurs[b]!);
  return crochet[rangs[Math.floor((rangs.length - 1) / 2)]!];
};

/**
 * How many brackets the rule would make of a bracket's dated photos: more than one when a photo was moved into a
 * series it does not seem to belong to (or the photographer paused mid-bracket): said, never undone.
 */
export const seriesDans = (crochet: readonly PhotoExposee[]): number =>
  grouper(
    crochet.filter((p) => p.exposition.prise !== undefined),
    Number.POSITIVE_INFINITY,
  ).crochets.length;

/** True when the EXIF says every photo of the bracket has one exposure: fusion would end in expositions_identiques. */
export const expositionsIdentiques = (crochet: readonly PhotoExposee[]): boolean => {
  if (crochet.length < 2) return false;
  const mesure = mesureDe(crochet);
  const [premiere, ...autres] = crochet.map((p) => valeurExposition(p.exposition, mesure));
  return autres.every((v) => pareilles(premiere, v));
};

/** "−2 EV", "+0,7 EV", "0 EV": a true minus sign, and a space that does not break. */
export const libelleCorrection = (correction: number, langue: string): string =>
  `${new Intl.NumberFormat(langue, { maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format(correction).replace('-', '\u2212')}\u00a0EV`;

/** "1/250 s" under 0.3 s, as cameras show it; "0,5 s", "2 s", "30 s" above. */
export const libelleDuree = (duree: number, langue: string): string =>
  duree < 0.3 ? `1/${Math.round(1 / duree)}\u00a0s` : `${new Intl.NumberFormat(langue, { maximumFractionDigits: 1 }).format(duree)}\u00a0s`;

/** What the page shows of a photo's exposure: its compensation and its exposure time, those its EXIF says. */
export const libellesExposition = (e: Exposition, langue: string): string[] => [
  ...(e.correction !== undefined ? [libelleCorrection(e.correction, langue)] : []),
  ...(e.duree !== undefined ? [libelleDuree(e.duree, langue)] : []),
];

/** A bracket's range, darkest to brightest, by its compensation or else its exposure time; null when its EXIF does not say. */
export const etendue = (crochet: readonly PhotoExposee[], langue: string): [string, string] | null => {
  const corrections = crochet.map((p) => p.exposition.correction);
  if (corrections.every((c) => c !== undefined) && new Set(corrections).size > 1) {
    return [libelleCorrection(Math.min(...corrections), langue), libelleCorrection(Math.max(...corrections), langue)];
  }
  const durees = crochet.map((p) => p.exposition.duree);
  if (durees.every((d) => d !== undefined) && new Set(durees).size > 1)
    return [libelleDuree(Math.min(...durees), langue), libelleDuree(Math.max(...durees), langue)];
  return null;
};
