/**
 * The engine interface: what a tool asks of a model. The pipeline's tool step reads the inputs from S3
 * (pipeline/outil.ts), calls the engine and writes what it returns (pipeline/service-outil.ts). Two
 * engines implement it: the local preview engine (sharp, deterministic) and the production engine
 * (Amazon Bedrock).
 *
 * Errors: an engine throws `ErreurTravail` (core/modele/erreurs.ts). `moteur_indisponible` is transient and
 * retried by the state machine; `contenu_refuse` and `moteur_en_echec` end the job (refunded).
 */
import { createHash } from 'node:crypto';
import type { Langue, OutilImage } from '../../core/modele/outils';
import type { FormatImage } from '../../core/modele/images';
import type { ControleStructure, Floutage, Redaction } from '../../core/modele/sorties';

export interface DemandeRetouche {
  outil: OutilImage;
  /** Settings with defaults applied (see core/modele/outils.ts). */
  valeurs: Readonly<Record<string, string>>;
  /**
   * Which of `valeurs` the request itself gave (the job's `valeurs_nommees`); the others hold their
   * default. Absent: every value counts as given (`valeurNommee`).
   */
  nommees?: readonly string[];
  /** The input image bytes (JPEG, PNG or WebP; already checked). */
  image: Buffer;
  /** Job id: lets an engine derive a reproducible seed and label its logs. */
  travail: string;
  /** The request's language, when it named one: the preview writes its mark in it (commun/apercu.ts). */
  langue?: Langue;
}

export interface ImageRetouchee {
  image: Buffer;
  format: FormatImage;
  /** Seed used by the model, recorded on the job so the result can be reproduced. */
  graine: number | null;
  /** The structure check the result passed (controle.ts), recorded on the job. */
  structure: ControleStructure;
  /** What was blurred (floutage.ts), said in the result's C2PA manifest; null when nothing was asked. */
  floutage: Floutage | null;
}

export interface DemandeAnnonce {
  valeurs: Readonly<Record<string, string>>;
  /** 0 to 6 photos of the property. */
  images: readonly Buffer[];
  travail: string;
}

export interface TexteRedige {
  texte: string;
  redaction: Redaction;
}

export interface Moteur {
  /** Which engine: results say whether an AI model made them (moteurs/c2pa/marquage.ts). */
  readonly nom: 'local' | 'bedrock';
  retoucher(demande: DemandeRetouche): Promise<ImageRetouchee>;
  /** Writes the listing text, in Markdown, in `valeurs.langue`. */
  rediger(demande: DemandeAnnonce): Promise<TexteRedige>;
}

/**
 * A setting's value when the request gave it, undefined when it holds only its default: staging's room
 * weighs against the detectors' guesses only when an agent named it (commun/zones.ts). Without `nommees`
 * every value counts as given: a direct call (a test, a bench) means the values it passes. The tool step
 * always says (pipeline/service-outil.ts).
 */
export const valeurNommee = (demande: Pick<DemandeRetouche, 'valeurs' | 'nommees'>, nom: string): string | undefined =>
  !demande.nommees || demande.nommees.includes(nom) ? demande.valeurs[nom] : undefined;

/** A job's seed: stable for a job id, so a result can be reproduced from the job alone. */
export const graineDe = (travail: string): number => createHash('sha256').update(travail).digest().readUInt32BE(0);
