/**
 * Which engine a stage runs: `RETOUCHE_MOTEUR=local` (the deterministic preview engine, default) or
 * `bedrock` (production, configured by the `RETOUCHE_BEDROCK_*` variables: moteurs/bedrock/configuration.ts).
 * One switch, read once per container.
 */
import { creerMoteurBedrock } from './bedrock/index';
import { creerMoteurLocal } from './local/index';
import type { Moteur } from './commun/moteur';

export const moteurDepuisEnv = (env: NodeJS.ProcessEnv): Moteur => {
  const choix = env.RETOUCHE_MOTEUR ?? 'local';
  switch (choix) {
    case 'local':
      return creerMoteurLocal({ delaiMs: Number(env.RETOUCHE_LOCAL_DELAY_MS ?? 0) || 0 });
    case 'bedrock':
      return creerMoteurBedrock({ env });
    default:
      throw new Error(`RETOUCHE_MOTEUR=${choix} is not an engine of this build (local, bedrock)`);
  }
};
