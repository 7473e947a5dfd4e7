/**
 * Before a stage's first job: is every model its engine calls enabled for this AWS account, and still
 * Active? (`npm run --silent admin -- check-models --outputs cdk-outputs.json`, README "Before the first
 * job".)
 *
 * Bedrock enables a serverless third-party model (Stability AI's, Anthropic's) on its first call,
 * through an AWS Marketplace subscription made with the caller's rights: the tool function's role has
 * no `aws-marketplace:*` and must not, so that first call is made here, with the operator's
 * credentials. Until then every job of the stage would end `moteur_en_echec` on AccessDeniedException.
 * Anthropic's models also ask for a first-time-use form once per account (the Bedrock console). A
 * model's lifecycle comes from GetFoundationModel: a Legacy model cannot be used by new accounts and
 * may be lost by existing ones, so it is reported as not ready.
 *
 * Each model is called once with the smallest request its service accepts (a 64 × 64 image, a
 * five-token answer): a few cents per model.
 */
import { BedrockClient, GetFoundationModelCommand } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient, ConverseCommand, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import sharp from 'sharp';
import { LIMITES_STABILITY } from '../lambdas/moteurs/bedrock/image';
import { FORMAT_REPONSE } from '../lambdas/moteurs/bedrock/recette';

/** The model settings of a stage, as its `MoteurBedrock` output gives them (lib/retouche-stack.ts). */
export interface ModelesStage {
  region: string;
  modeles: Partial<Record<'modeleInpaint' | 'modeleStructure' | 'modeleRemplacement' | 'modeleTexte', string>>;
}

export interface EtatModele {
  setting: string;
  model: string;
  /** What GetFoundationModel says: ACTIVE, LEGACY, or unknown when it could not be read. */
  lifecycle: string;
  end_of_life?: string;
  /** Called once and answered. */
  invoked: boolean;
  ready: boolean;
  detail: string;
}

const GEOGRAPHIE = /^(us|eu|apac|us-gov|jp|au|ca|global)\./;

/** The smallest body each Stability service takes: a grey 64 × 64 image (Stability's least side), its own fields. */
const corpsEssai = async (setting: keyof ModelesStage['modeles']): Promise<Record<string, unknown>> => {
  const cote = LIMITES_STABILITY.coteMin;
  const image = (
    await sharp({ create: { width: cote, height: cote, channels: 3, background: '#808080' } })
      .png()
      .toBuffer()
  ).toString('base64');
  const commun = { image, seed: 1, output_format: FORMAT_REPONSE };
  switch (setting) {
    case 'modeleInpaint': {
      const masque = (
        await sharp({ create: { width: cote, height: cote, channels: 3, background: '#ffffff' } })
          .toColourspace('b-w')
          .png()
          .toBuffer()
      ).toString('base64');
      return { ...commun, prompt: 'an empty room', mask: masque };
    }
    case 'modeleStructure':
      return { ...commun, prompt: 'a house', control_strength: 0.7 };
    case 'modeleRemplacement':
      return { ...commun, prompt: 'a blue sky', search_prompt: 'sky' };
    default:
      throw new Error(`no image test for ${setting}`);
  }
};

/** What to do about a refusal, in the words an operator acts on. */
const conseil = (nom: string, setting: string, message: string): string => {
  if (nom === 'AccessDeniedException') {
    return (
      `not enabled for this account (${message}). The first call subscribes the account through AWS Marketplace: ` +
      'run this command with credentials allowed aws-marketplace:Subscribe, aws-marketplace:Unsubscribe and aws-marketplace:ViewSubscriptions' +
      (setting === 'modeleTexte' ? ", after submitting Anthropic's first-time-use form once in the Bedrock console (Model access)." : '.')
    );
  }
  if (nom === 'ResourceNotFoundException' || nom === 'ValidationException')
    return `not callable as configured (${nom}: ${message}): check the model id and the Bedrock Region.`;
  if (nom === 'ThrottlingException' || nom === 'ServiceQuotaExceededException') return `throttled (${nom}): run this command again in a minute.`;
  return `${nom}: ${message}`;
};

export const verifierModeles = async (
  stage: ModelesStage,
  clients: { bedrock?: BedrockClient; runtime?: BedrockRuntimeClient } = {},
  options: { appeler?: boolean } = {},
): Promise<EtatModele[]> => {
  const bedrock = clients.bedrock ?? new BedrockClient({ region: stage.region });
  const runtime = clients.runtime ?? new BedrockRuntimeClient({ region: stage.region, maxAttempts: 2 });
  const etats: EtatModele[] = [];
  for (const [setting, model] of Object.entries(stage.modeles) as [keyof ModelesStage['modeles'], string][]) {
    const etat: EtatModele = { setting, model, lifecycle: 'unknown', invoked: false, ready: false, detail: '' };
    try {
      const { modelDetails } = await bedrock.send(new GetFoundationModelCommand({ modelIdentifier: model.replace(GEOGRAPHIE, '') }));
      etat.lifecycle = modelDetails?.modelLifecycle?.status ?? 'unknown';
      const fin = modelDetails?.modelLifecycle?.endOfLifeTime;
      if (fin) etat.end_of_life = fin.toISOString().slice(0, 10);
    } catch (erreur) {
      etat.detail = `lifecycle not read (${(erreur as Error).name}: ${(erreur as Error).message}); `;
    }
    if (options.appeler !== false) {
      try {
        if (setting === 'modeleTexte') {
          await runtime.send(
            new ConverseCommand({
              modelId: model,
              messages: [{ role: 'user', content: [{ text: 'Reply with the word OK.' }] }],
              inferenceConfig: { maxTokens: 5 },
            }),
          );
        } else {
          await runtime.send(
            new InvokeModelCommand({
              modelId: model,
              contentType: 'application/json',
              accept: 'application/json',
              body: JSON.stringify(await corpsEssai(setting)),
            }),
          );
        }
        etat.invoked = true;
      } catch (erreur) {
        etat.detail += conseil((erreur as Error).name, setting, (erreur as Error).message);
      }
    }
    const legacy = etat.lifecycle === 'LEGACY';
    if (legacy) {
      etat.detail +=
        `${etat.detail ? ' ' : ''}Legacy${etat.end_of_life ? ` (end of life ${etat.end_of_life})` : ''}: new accounts cannot use it and existing ones may lose it; ` +
        `deploy with -c ${setting}=<an Active model of the same service>.`;
    }
    // A lifecycle that could not be read (the operator may not call GetFoundationModel) is said, not held against the model.
    etat.ready = (options.appeler === false || etat.invoked) && !legacy;
    if (etat.ready && !etat.detail) etat.detail = options.appeler === false ? 'Active (not called)' : 'Active, called once and answered';
    etats.push(etat);
  }
  return etats;
};
