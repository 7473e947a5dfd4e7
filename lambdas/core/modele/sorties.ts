/**
 * What a tool step produces, as every layer records and shows it: the structure check an image passed,
 * who wrote a listing text, and the step's output that travels through the execution's state. The
 * engines produce these, the pipeline carries them, the job's record and its API view keep them;
 * defined here so that none of those layers imports another's internals to name them.
 */
import type { FormatImage } from './images';

/** What the job records (our extension): the score, the threshold it was held to, and how many runs it took. */
export interface ControleStructure {
  score: number;
  seuil: number;
  essais: number;
}

/**
 * Who wrote a listing text, shown on the job (`Travail.redaction`, our extension) so a platform can
 * tell its readers the text was machine-written, and by which model.
 */
export interface Redaction {
  automatique: true;
  /** Written by a generative AI model (the production engine), or by a fixed template (the local preview). */
  intelligence_artificielle: boolean;
  modele: string;
}

/**
 * What the blur of faces and plates did (the `floutage` setting, our extension): recorded on the job
 * and said in the result's C2PA manifest, which claims a blur only when something was blurred.
 */
export interface Floutage {
  /** The setting's value, as the job recorded it. */
  reglage: string;
  /** Faces found, each blurred. */
  visages: number;
  /** Number plates found, each blurred. */
  plaques: number;
}

/**
 * What the tool step hands to Enregistrer, through the execution's state. Step Functions keeps every
 * state's input and output in the execution's history for 90 days, and nothing can erase it
 * (core/domaine/effacement/ cannot reach it): so no customer content travels here — the result files by
 * format only (Enregistrer makes their keys and names from the job record) and the listing text by
 * its S3 key. Ids, seeds and scores only.
 */
export interface SortieOutil {
  resultats: { format: FormatImage }[];
  /** S3 key of the listing text (cles-s3.ts, cleTexte), for annonce. */
  texte: string | null;
  graine: number | null;
  /** For a listing text: who wrote it (an engine's `rediger`). */
  redaction?: Redaction | null;
  /** For an image: the structure check it passed (moteurs/commun/controle.ts). */
  structure?: ControleStructure | null;
  /** For an image: what the blur found and blurred, when one was asked (moteurs/commun/floutage.ts). */
  floutage?: Floutage | null;
  /** Made by the preview engine (local), not the production one: recorded on the job as `apercu`. */
  apercu?: boolean;
}
