/**
 * The Bedrock models of a stage: the tool function's environment and the IAM grant come from the
 * same object (lambdas/moteurs/bedrock/configuration.ts), so the engine can only call what it is
 * allowed to. Overrides come from the CDK context, e.g. `-c bedrockRegion=us-west-2`.
 */
import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { modelesBedrock, ressourcesIamBedrock } from '../lambdas/moteurs/bedrock/configuration';

export interface ModelesBedrock {
  /** Environment of the tool function (RETOUCHE_BEDROCK_*). */
  environnement: Record<string, string>;
  /** Resources of its `bedrock:InvokeModel` statement. */
  arns: string[];
  /** The same, as cdk-nag names them in its findings (tokens written `<AWS::…>`). */
  arnsLisibles: string[];
}

/** Context key → environment variable of the engine. */
const CONTEXTE = {
  bedrockRegion: 'RETOUCHE_BEDROCK_REGION',
  modeleInpaint: 'RETOUCHE_BEDROCK_MODELE_INPAINT',
  modeleStructure: 'RETOUCHE_BEDROCK_MODELE_STRUCTURE',
  modeleRemplacement: 'RETOUCHE_BEDROCK_MODELE_REMPLACEMENT',
  modeleTexte: 'RETOUCHE_BEDROCK_MODELE_TEXTE',
} as const;

export const modelesDuStage = (scope: Construct): ModelesBedrock => {
  const overrides: Record<string, string> = {};
  for (const [cle, variable] of Object.entries(CONTEXTE)) {
    const valeur = scope.node.tryGetContext(cle) as unknown;
    if (typeof valeur === 'string' && valeur) overrides[variable] = valeur;
  }
  const modeles = modelesBedrock(overrides);
  const stack = Stack.of(scope);
  return {
    environnement: {
      RETOUCHE_BEDROCK_REGION: modeles.region,
      RETOUCHE_BEDROCK_MODELE_INPAINT: modeles.images.vider,
      RETOUCHE_BEDROCK_MODELE_STRUCTURE: modeles.images.renovation,
      RETOUCHE_BEDROCK_MODELE_REMPLACEMENT: modeles.images.ciel,
      RETOUCHE_BEDROCK_MODELE_TEXTE: modeles.texte,
    },
    arns: ressourcesIamBedrock(modeles, stack.account, stack.partition),
    arnsLisibles: ressourcesIamBedrock(
      modeles,
      Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account,
      Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition,
    ),
  };
};
