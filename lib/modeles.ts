/**
 * The Bedrock models of a stage: the tool function's environment and the IAM grant come from the
 * same object (lambdas/moteurs/bedrock/configuration.ts), so the engine can only call what it is
 * allowed to. Overrides come from the CDK context, e.g. `-c bedrockRegion=us-west-2`. An EU stage
 * (`-c residence=eu`) takes its defaults, its check and its grants from lib/residence.ts.
 */
import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { modelesBedrock, ressourcesIamBedrock } from '../lambdas/moteurs/bedrock/configuration';
import type { ConfigurationStage } from './configuration';
import { OUTILS, type IdOutil } from '../lambdas/core/modele/outils';
import { DEFAUTS_UE, detectionRequise, modelesRequis, REGIONS_UE, ressourcesIamUe, verifierResidenceUe } from './residence';

export interface ModelesBedrock {
  /** Environment of the tool function (RETOUCHE_BEDROCK_*). */
  environnement: Record<string, string>;
  /** Resources of its `bedrock:InvokeModel` statement. */
  arns: string[];
  /** The same, as cdk-nag names them in its findings (tokens written `<AWS::…>`). */
  arnsLisibles: string[];
  /** An EU stage's Regions: the tool step is denied its model calls anywhere else (lib/flux.ts). */
  regionsPermises?: string[];
}

/** Context key → environment variable of the engine. */
const CONTEXTE = {
  bedrockRegion: 'RETOUCHE_BEDROCK_REGION',
  modeleInpaint: 'RETOUCHE_BEDROCK_MODELE_INPAINT',
  modeleStructure: 'RETOUCHE_BEDROCK_MODELE_STRUCTURE',
  modeleRemplacement: 'RETOUCHE_BEDROCK_MODELE_REMPLACEMENT',
  modeleTexte: 'RETOUCHE_BEDROCK_MODELE_TEXTE',
  rekognitionRegion: 'RETOUCHE_REKOGNITION_REGION',
} as const;

/** Stack.account and Stack.partition as cdk-nag writes them when they are tokens. */
const lisibles = (stack: Stack) => ({
  compte: Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account,
  partition: Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition,
});

export const modelesDuStage = (scope: Construct, config?: Pick<ConfigurationStage, 'moteur' | 'residence' | 'outils'>): ModelesBedrock => {
  const overrides: Record<string, string> = {};
  const donnes = new Set<string>();
  for (const [cle, variable] of Object.entries(CONTEXTE)) {
    const valeur = scope.node.tryGetContext(cle) as unknown;
    if (typeof valeur === 'string' && valeur) {
      overrides[variable] = valeur;
      donnes.add(cle);
    }
  }
  const stack = Stack.of(scope);
  if (config?.residence === 'eu') return modelesUe(stack, config.moteur, overrides, donnes, config.outils ?? OUTILS);
  const modeles = modelesBedrock(overrides);
  return {
    environnement: {
      RETOUCHE_BEDROCK_REGION: modeles.region,
      RETOUCHE_BEDROCK_MODELE_INPAINT: modeles.images.vider,
      RETOUCHE_BEDROCK_MODELE_STRUCTURE: modeles.images.renovation,
      RETOUCHE_BEDROCK_MODELE_REMPLACEMENT: modeles.images.ciel,
      RETOUCHE_BEDROCK_MODELE_TEXTE: modeles.texte,
      ...(overrides.RETOUCHE_REKOGNITION_REGION ? { RETOUCHE_REKOGNITION_REGION: overrides.RETOUCHE_REKOGNITION_REGION } : {}),
    },
    arns: ressourcesIamBedrock(modeles, stack.account, stack.partition),
    arnsLisibles: ressourcesIamBedrock(modeles, lisibles(stack).compte, lisibles(stack).partition),
  };
};

/**
 * An EU stage: Bedrock in the stage's Region unless `-c bedrockRegion` says otherwise, the EU profile of each
 * model that has one, Rekognition in the Bedrock Region unless `-c rekognitionRegion`; checked against
 * lib/residence.ts (the synth stops on anything outside the EU), granted on the Regions listed there. With the
 * local engine nothing is called, and the function gets no Bedrock setting at all.
 */
const modelesUe = (
  stack: Stack,
  moteur: ConfigurationStage['moteur'],
  overrides: Record<string, string>,
  donnes: Set<string>,
  outils: readonly IdOutil[],
): ModelesBedrock => {
  if (moteur !== 'bedrock') return { environnement: {}, arns: [], arnsLisibles: [] };
  if (Token.isUnresolved(stack.region)) throw new Error('context residence=eu: the stack needs a literal Region (lib/application.ts sets it)');
  const modeles = modelesBedrock({
    RETOUCHE_BEDROCK_REGION: stack.region,
    ...(DEFAUTS_UE.modeleTexte ? { RETOUCHE_BEDROCK_MODELE_TEXTE: DEFAUTS_UE.modeleTexte } : {}),
    ...overrides,
  });
  const regionDetection = overrides.RETOUCHE_REKOGNITION_REGION ?? modeles.region;
  verifierResidenceUe({ modeles, regionDetection, donnes, outils });
  // Only the settings of the tools the stage offers: a withdrawn tool's model (a `us.` profile) never
  // appears in the function's environment nor in its grants.
  const requis = modelesRequis(modeles, outils);
  return {
    environnement: {
      RETOUCHE_BEDROCK_REGION: modeles.region,
      ...Object.fromEntries(Object.entries(requis).map(([cle, id]) => [CONTEXTE[cle as keyof typeof requis], id])),
      // Always written for image tools: the engine's fallback (the Bedrock Region) must not decide where images go.
      ...(detectionRequise(outils) ? { RETOUCHE_REKOGNITION_REGION: regionDetection } : {}),
    },
    arns: ressourcesIamUe(modeles, stack.account, stack.partition, outils),
    arnsLisibles: ressourcesIamUe(modeles, lisibles(stack).compte, lisibles(stack).partition, outils),
    regionsPermises: Object.keys(REGIONS_UE),
  };
};
