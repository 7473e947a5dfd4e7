/** What the studio's form hands to a launch (the photos chosen, the tool, its settings, the cost seen), and what the launch follows of each photo. */
import type { Outil, Televersement, TypeImage, Travail } from './appels';
import type { Exposition } from './crochets';

export interface PhotoChoisie {
  /** This page's own id for the photo (list keys, element ids). */
  id: string;
  fichier: File;
  /** Read from its first bytes (appels.ts). */
  type: TypeImage;
  /** The local file as a blob: URL, the "before" of every comparison; revoked by whoever holds it last. */
  apercu: string;
  /** Width × height once its preview has loaded: a photo over 50 MP is refused before any upload. */
  pixels?: number;
  /** What its EXIF says of its capture, once read (exif.ts): a fusion's brackets are made of it (crochets.ts). */
  exposition?: Exposition;
}

export interface DemandeLancement {
  /** The launch's Idempotency-Key, made at the click: every retry of this launch sends it again. */
  cle: string;
  outil: Outil;
  /** The settings as sent: empty free text left out (the API takes 1 to 1000 characters or nothing). */
  valeurs: Record<string, string>;
  photos: PhotoChoisie[];
  cout: number;
  /** The photo its one result is compared with, when it has several (a bracket's middle exposure); the first otherwise. */
  avant?: PhotoChoisie;
  /** Started by the same click as the launch above it (a fusion's brackets): the focus stays on the first one's title. */
  suite?: true;
  /**
   * A launch started before the page was loaded again (lancements.ts): its jobs are followed by their ids,
   * nothing is sent; its photos are no longer in the page, so results show without their "before".
   */
  reprise?: LancementEnregistre;
}

/** What the page keeps of a launch once POST /travaux answered: enough to follow it again after a reload. */
export interface LancementEnregistre {
  cle: string;
  outil: string;
  lot: string | null;
  travaux: { id: string; nom: string | null }[];
  cout_total: number;
}

/** One photo of a launch, from its upload to its job's end. */
export interface Suivi {
  photo: PhotoChoisie;
  /** Upload progress, 0 to 1. */
  envoi: number;
  televersement?: Televersement;
  envoiRate?: boolean;
  /** Not started (POST /travaux's `echecs`): never charged. */
  refus?: { code: string; message: string };
  travail?: Travail;
  /** A launch followed again after a reload: its job's id, before the first answer about it. */
  idTravail?: string;
}
