/**
 * The template's state machine in its local run (local/pile-template.ts): its definition asset (or
 * string) with the template's DefinitionSubstitutions applied, run by the local Step Functions, each
 * Task's function ARN run by that function's worker.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'aws-lambda';
import type { FonctionWorker } from './fonction-worker';
import { demarrerStepFunctions, type StepFunctionsLocal } from './stepfunctions';
import type { Ressources } from './template-ressources';
import { cheminAsset, resoudre, type Resolveur, type Synthese, type Template } from './template-synthese';

/** The definition as deployed: the asset CDK wrote (or the template's string), its substitutions made. */
const definitionDeployee = (synthese: Synthese, machine: Record<string, any>, resolveur: Resolveur) => {
  let texte = machine.DefinitionS3Location
    ? readFileSync(cheminAsset(synthese, String(resoudre(machine.DefinitionS3Location.Key, resolveur))), 'utf8')
    : String(resoudre(machine.DefinitionString, resolveur));
  for (const [nom, valeur] of Object.entries((resoudre(machine.DefinitionSubstitutions ?? {}, resolveur) ?? {}) as Record<string, string>))
    texte = texte.split(`\${${nom}}`).join(valeur);
  return JSON.parse(texte) as { States: Record<string, { Type: string; Resource?: string }> };
};

/** `workers` is read when a task runs: the functions may load after the machine starts. */
export const demarrerMachine = async (
  t: Template,
  o: { synthese: Synthese; resolveur: Resolveur; temporaire: string; pauseReessaiMs?: number },
  r: Ressources,
  workers: Record<string, FonctionWorker>,
): Promise<StepFunctionsLocal> => {
  const definition = definitionDeployee(o.synthese, r.machine.Properties!, o.resolveur);
  // Each Task's function ARN → that function's worker (stepfunctions.ts maps `${<Nom>FunctionArn}` to handler <Nom>).
  const taches: Record<string, string> = {};
  for (const [nomEtat, etatMachine] of Object.entries(definition.States)) {
    if (etatMachine.Type !== 'Task') continue;
    const id = Object.keys(t.Resources).find((x) => t.Resources[x]!.Type === 'AWS::Lambda::Function' && r.arnFonction(x) === etatMachine.Resource);
    if (!id) throw new Error(`state ${nomEtat}: ${etatMachine.Resource} is no function of the template`);
    etatMachine.Resource = `\${${id}FunctionArn}`;
    taches[id] = id;
  }
  const fichierDefinition = path.join(o.temporaire, 'definition.asl.json');
  writeFileSync(fichierDefinition, JSON.stringify(definition));
  const handlersTaches: Record<string, (e: unknown, c: Context) => Promise<unknown>> = {};
  for (const id of Object.keys(taches)) handlersTaches[id] = (e, c) => workers[id]!.invoquer(e, c);
  return demarrerStepFunctions({
    definition: fichierDefinition,
    nomMachine: r.idMachine,
    handlers: handlersTaches,
    pauseReessaiMs: o.pauseReessaiMs,
  });
};
