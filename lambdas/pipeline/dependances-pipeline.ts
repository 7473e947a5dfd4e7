/**
 * The pipeline's steps need more than the HTTP handlers: "Preparer" the SSRF-safe downloader,
 * "Outil" the engine. The types live here; each step's entry point builds only what it uses, so that
 * no function bundles sharp or an engine it never calls (see preparer.ts and outil.ts).
 */
import type { AvecS3, AvecTable, Dependances } from '../core/infra/dependances';
import type { Moteur } from '../moteurs/commun/moteur';
import type { MarqueurC2pa } from '../moteurs/c2pa/marquage';

export interface DependancesPreparation extends AvecTable, AvecS3 {
  /** Fetches an image URL without SSRF, size-capped (core/infra/telechargement.ts). */
  telecharger: (url: string) => Promise<Buffer>;
}

export interface DependancesOutil extends AvecTable, AvecS3 {
  /** The engine the tool step calls (local preview or Bedrock: moteurs/choix.ts). */
  moteur: Moteur;
  /** The engine of test jobs (a test key's): always the local preview; absent where `moteur` is that already. */
  moteurTest?: Moteur;
  /** Signs every result image with C2PA Content Credentials (moteurs/c2pa/marquage.ts). */
  c2pa: MarqueurC2pa;
}

/** What the local stack and the tests give every step: everything. */
export type DependancesPipeline = Dependances & DependancesPreparation & DependancesOutil;
