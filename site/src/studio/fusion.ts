/**
 * A fusion's brackets in the studio's form: the photos grouped as they are added (crochets.ts, by the EXIF exif.ts
 * reads), then arranged by hand (a photo moved, a bracket cut, two joined, one removed); a launch starts one job per
 * bracket. `fusion` is the one tool named in the studio, here: the only one whose photos are several exposures of
 * one view, which only the photographer's EXIF tells apart. Every photo dropped is grouped, whatever the tool
 * chosen: choosing fusion afterwards shows them in brackets at once.
 */
import { computed, ref, watch, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import type { IdOutil } from '../../../clients/sdk/src/types';
import type { Outil } from './appels';
import { classer, grouper, MAX_PHOTOS_CROCHET, MIN_PHOTOS_CROCHET, reference, type Regroupement } from './crochets';
import type { DemandeLancement, PhotoChoisie } from './demande';
import { lireExposition } from './exif';
import type { Probleme } from './verification';

const OUTIL_FUSION: IdOutil = 'fusion';
export const estFusion = (outil: Outil | undefined): boolean => outil?.id === OUTIL_FUSION;

export interface Crochet {
  /** This page's own id for the bracket (list keys, element ids). */
  id: string;
  /** In capture order (drop order without EXIF). */
  photos: PhotoChoisie[];
}

/** What the last grouping has to say (crochets.ts, rules 1 and 3): photos without a capture time, series cut. */
export type AvisGroupement = Omit<Regroupement, 'crochets'>;

/** Where a photo goes: another bracket (its id), a new one of its own, or a new one with the photos after it (a cut). */
export type Destination = string | 'seule' | 'suivantes';

interface Etat {
  photos: Ref<PhotoChoisie[]>;
  crochets: Ref<Crochet[]>;
  avis: Ref<AvisGroupement | null>;
  /** The API's bounds of a fusion job (GET /outils). */
  bornes: () => { min: number; max: number };
}

const nouveau = (photos: PhotoChoisie[]): Crochet => ({ id: crypto.randomUUID(), photos });
const exposee = (p: PhotoChoisie) => ({ id: p.id, exposition: p.exposition ?? {}, photo: p });
/** Capture order, those without a capture time after, each kept where it was among its kind (∞ − ∞ is NaN: 0). */
const parPrise = (photos: PhotoChoisie[]) =>
  [...photos].sort((a, b) => (a.exposition?.prise ?? Number.POSITIVE_INFINITY) - (b.exposition?.prise ?? Number.POSITIVE_INFINITY) || 0);

/** `photos`, their EXIF read, grouped by the rule and added after the brackets already there (arranged by hand, kept). */
const ranger = async (etat: Etat, photos: PhotoChoisie[]) => {
  await Promise.all(photos.map(async (p) => (p.exposition ??= await lireExposition(p.fichier))));
  // Removed while their EXIF was read: not grouped.
  const encore = photos.filter((p) => etat.photos.value.includes(p));
  if (encore.length === 0) return;
  const { crochets, ...avis } = grouper(encore.map(exposee), etat.bornes().max);
  const parId = new Map(encore.map((p) => [p.id, p]));
  etat.crochets.value.push(...crochets.map((ids) => nouveau(ids.map((id) => parId.get(id)!))));
  etat.avis.value = avis;
};

/** The brackets after the form's photos changed: those removed taken out, those added grouped. */
const synchroniser = async (etat: Etat) => {
  const presentes = new Set(etat.photos.value.map((p) => p.id));
  etat.crochets.value = etat.crochets.value.map((c) => ({ ...c, photos: c.photos.filter((p) => presentes.has(p.id)) })).filter((c) => c.photos.length > 0);
  const rangees = new Set(etat.crochets.value.flatMap((c) => c.photos.map((p) => p.id)));
  const nouvelles = etat.photos.value.filter((p) => !rangees.has(p.id));
  if (nouvelles.length > 0) await ranger(etat, nouvelles);
};

/** A photo moved by hand; the bracket it leaves is dropped when empty. */
const deplacer = (etat: Etat, photo: PhotoChoisie, vers: Destination) => {
  const liste = etat.crochets.value;
  const i = liste.findIndex((c) => c.photos.includes(photo));
  const source = liste[i];
  if (!source) return;
  const j = source.photos.indexOf(photo);
  if (vers === 'suivantes' || vers === 'seule') {
    const partantes = vers === 'suivantes' ? source.photos.slice(j) : [photo];
    source.photos = source.photos.filter((p) => !partantes.includes(p));
    liste.splice(i + 1, 0, nouveau(partantes));
  } else {
    const cible = liste.find((c) => c.id === vers);
    if (!cible || cible === source) return;
    source.photos.splice(j, 1);
    cible.photos = parPrise([...cible.photos, photo]);
  }
  etat.crochets.value = liste.filter((c) => c.photos.length > 0);
};

/** A bracket and the next one made one (the rule cut one series in two). */
const reunir = (etat: Etat, crochet: Crochet) => {
  const liste = etat.crochets.value;
  const suivant = liste[liste.indexOf(crochet) + 1];
  if (!suivant) return;
  crochet.photos = parPrise([...crochet.photos, ...suivant.photos]);
  etat.crochets.value = liste.filter((c) => c !== suivant);
};

/** The brackets made again from every photo of the form, by the rule: what was arranged by hand is undone. */
const regrouper = async (etat: Etat) => {
  etat.crochets.value = [];
  await ranger(etat, [...etat.photos.value]);
};

/** One launch per bracket that can start, each the job of its photos, compared with its middle exposure. */
export const demandesFusion = (outil: Outil, crochets: Crochet[]): DemandeLancement[] =>
  classer(
    crochets.map((c) => c.photos),
    outil.images.min,
    outil.images.max,
  ).lancables.map((photos, i) => ({
    cle: crypto.randomUUID(),
    outil,
    valeurs: {},
    // A copy: the form's bracket may change after the launch took it.
    photos: [...photos],
    cout: outil.cout,
    avant: reference(photos.map(exposee))?.photo,
    ...(i > 0 ? { suite: true as const } : {}),
  }));

/** `outils`: GET /outils, for fusion's bounds (a stage could set others than the API's 2 and 9). */
export const useCrochets = (photos: Ref<PhotoChoisie[]>, outils: Ref<Outil[] | null>) => {
  const fusion = computed(() => outils.value?.find(estFusion));
  const etat: Etat = {
    photos,
    crochets: ref<Crochet[]>([]),
    avis: ref<AvisGroupement | null>(null),
    bornes: () => ({ min: fusion.value?.images.min ?? MIN_PHOTOS_CROCHET, max: fusion.value?.images.max ?? MAX_PHOTOS_CROCHET }),
  };
  // One change after the other: photos dropped twice in a row are grouped once each.
  let file = Promise.resolve();
  const enFile = (faire: () => Promise<void>) => (file = file.then(faire, faire));
  watch(
    () => photos.value.map((p) => p.id).join(),
    () => void enFile(() => synchroniser(etat)),
  );
  const classes = computed(() =>
    classer(
      etat.crochets.value.map((c) => c.photos),
      etat.bornes().min,
      etat.bornes().max,
    ),
  );
  return {
    crochets: etat.crochets,
    avisGroupement: etat.avis,
    /** Photos whose EXIF is still being read: not in a bracket yet. */
    enLecture: computed(() => photos.value.length - etat.crochets.value.reduce((n, c) => n + c.photos.length, 0)),
    lancables: computed(() => classes.value.lancables),
    seules: computed(() => classes.value.seules),
    deplacer: (photo: PhotoChoisie, vers: Destination) => deplacer(etat, photo, vers),
    reunir: (crochet: Crochet) => reunir(etat, crochet),
    regrouper: () => enFile(() => regrouper(etat)),
  };
};

/**
 * The launch's checks of a fusion's photos, instead of the tool's bounds over all of them (verification.ts): a bracket
 * over the maximum stops it, and so does having no bracket to start; photos left alone do not (they stay in the form).
 * Undefined for another tool.
 */
export const useVerificationCrochets = (photos: Ref<PhotoChoisie[]>, crochets: Ref<Crochet[]>, lancables: Ref<unknown[]>) => {
  const { t } = useI18n();
  return (o: Outil): Probleme | null | undefined => {
    if (!estFusion(o)) return undefined;
    const trop = crochets.value.findIndex((c) => c.photos.length > o.images.max);
    const grand = crochets.value[trop];
    if (grand) {
      return {
        texte: t('studio.fusion.erreurs.trop', { serie: trop + 1, n: grand.photos.length, max: o.images.max }),
        champ: `tuile-${grand.photos[0]!.id}`,
      };
    }
    if (lancables.value.length > 0) return null;
    const premiere = crochets.value[0]?.photos[0];
    if (!premiere || photos.value.length < o.images.min) return { texte: t('studio.erreurs.photosMin', { n: o.images.min }, o.images.min), champ: 'photos' };
    return { texte: t('studio.fusion.erreurs.seules', { n: o.images.min }), champ: `tuile-${premiere.id}` };
  };
};
