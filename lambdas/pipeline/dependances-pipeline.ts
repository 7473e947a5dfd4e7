/**
 * The pipeline's steps need two more things than the HTTP handlers: the engine and the SSRF-safe
 * downloader. They live apart so that the HTTP functions never bundle sharp or an engine.
 *
 *   RETOUCHE_MOTEUR=local|bedrock    engine (default local); RETOUCHE_LOCAL_DELAY_MS for the local one
 */
import { dependancesDepuisEnv, type Dependances } from '../core/dependances';
import { creerTelechargeur } from '../core/telechargement';
import { moteurDepuisEnv } from '../moteurs/choix';
import type { Moteur } from '../moteurs/moteur';

export interface DependancesPipeline extends Dependances {
  /** The engine the tool step calls (local preview or Bedrock). */
  moteur: Moteur;
  /** Fetches an image URL without SSRF, size-capped (core/telechargement.ts). */
  telecharger: (url: string) => Promise<Buffer>;
}

let cache: Promise<DependancesPipeline> | undefined;

export const dependancesPipelineDepuisEnv = (env: NodeJS.ProcessEnv = process.env): Promise<DependancesPipeline> => {
  cache ??= dependancesDepuisEnv(env).then((d) => ({ ...d, moteur: moteurDepuisEnv(env), telecharger: creerTelechargeur() }));
  return cache;
};
