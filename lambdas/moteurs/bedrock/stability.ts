/**
 * One call to a Stability AI Image Service on Bedrock (InvokeModel, JSON body). The answer is
 * `{images: [base64], seeds: [n], finish_reasons: [null | reason]}`; a filtered or failed
 * generation is still a 200, told apart by its finish reason.
 */
import { InvokeModelCommand, type BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ErreurTravail } from '../../core/modele/erreurs';
import { erreurDeBedrock, erreurDeFinStability } from './erreurs';

/** Stability reads 0 as "pick a random seed": a reproducible job needs 1 to 4 294 967 294. */
export const GRAINE_MAX = 4_294_967_294;
export const graineStability = (graine: number): number => Math.min(Math.max(graine, 1), GRAINE_MAX);

export interface ReponseStability {
  image: Buffer;
  /** The seed the model reports (the one sent, unless the model chose another). */
  graine: number;
}

interface CorpsReponse {
  images?: unknown;
  seeds?: unknown;
  finish_reasons?: unknown;
}

const lireCorps = (octets: Uint8Array | undefined): CorpsReponse => {
  try {
    const corps: unknown = JSON.parse(new TextDecoder().decode(octets));
    if (typeof corps !== 'object' || corps === null) throw new Error('not an object');
    return corps as CorpsReponse;
  } catch (erreur) {
    throw Object.assign(new ErreurTravail('moteur_en_echec'), { cause: erreur });
  }
};

export const invoquerStability = async (
  client: BedrockRuntimeClient,
  modele: string,
  corps: Record<string, unknown> & { seed: number },
): Promise<ReponseStability> => {
  let octets: Uint8Array | undefined;
  try {
    const reponse = await client.send(
      new InvokeModelCommand({ modelId: modele, contentType: 'application/json', accept: 'application/json', body: JSON.stringify(corps) }),
    );
    octets = reponse.body;
  } catch (erreur) {
    throw erreurDeBedrock(erreur);
  }
  const { images, seeds, finish_reasons } = lireCorps(octets);
  const fin = Array.isArray(finish_reasons) ? erreurDeFinStability(finish_reasons[0]) : null;
  if (fin) throw fin;
  const [image] = Array.isArray(images) ? images : [];
  if (typeof image !== 'string' || image.length === 0) {
    throw Object.assign(new ErreurTravail('moteur_en_echec'), { cause: 'no image in the answer' });
  }
  const [graine] = Array.isArray(seeds) ? seeds : [];
  return {
    image: Buffer.from(image, 'base64'),
    graine: typeof graine === 'number' && Number.isInteger(graine) && graine > 0 ? graine : corps.seed,
  };
};
