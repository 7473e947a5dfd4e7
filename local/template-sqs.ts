/**
 * The template's queues in its local run (local/pile-template.ts): each created on the local SQS with
 * its RedrivePolicy's dead-letter queue and maxReceiveCount, and each AWS::Lambda::EventSourceMapping
 * of a queue giving its messages to its function's worker as Lambda polls for it (BatchSize,
 * ScalingConfig.MaximumConcurrency, ReportBatchItemFailures).
 */
import type { FonctionWorker } from './fonction-worker';
import type { Ressources } from './template-ressources';
import { parType, resoudre, type Resolveur, type Template } from './template-synthese';

/**
 * Each queue after its dead-letter queue (creerFile wants it there), with the redrive policy's count.
 * The template's VisibilityTimeout (minutes, sized for Lambda's timeout) is not kept: a failed
 * delivery comes back after the local SQS's short default.
 */
export const creerFiles = (t: Template, resolveur: Resolveur, r: Ressources) => {
  const creees = new Set<string>();
  const creerFile = (id: string) => {
    if (creees.has(id)) return;
    creees.add(id);
    const p = t.Resources[id]!.Properties ?? {};
    const brute: unknown = p.RedrivePolicy === undefined ? undefined : resoudre(p.RedrivePolicy, resolveur);
    const redrive = (typeof brute === 'string' ? JSON.parse(brute) : brute) as { deadLetterTargetArn?: string; maxReceiveCount?: number | string } | undefined;
    let fileEchec: string | undefined;
    if (redrive) {
      fileEchec = r.idsFiles.find((autre) => r.arnFile(autre) === redrive.deadLetterTargetArn);
      if (!fileEchec) throw new Error(`queue ${id}: its dead-letter queue ${redrive.deadLetterTargetArn} is no queue of the template`);
      creerFile(fileEchec);
    }
    const creee = r.sqs.creerFile(id, redrive ? { fileEchec, maxReceptions: Number(redrive.maxReceiveCount) } : undefined);
    if (creee.url !== r.urlFile(id) || creee.arn !== r.arnFile(id)) throw new Error(`queue ${id}: URL or ARN`);
  };
  for (const id of r.idsFiles) creerFile(id);
};

/** Event source mappings: each queue's messages to its function's worker, as Lambda polls for it. */
export const brancherFiles = (t: Template, resolveur: Resolveur, r: Ressources, workers: Record<string, FonctionWorker>) => {
  for (const [idLien, lien] of parType(t, 'AWS::Lambda::EventSourceMapping')) {
    const p = lien.Properties!;
    if (p.Enabled === false) continue;
    const source = String(resoudre(p.EventSourceArn, resolveur));
    const file = r.idsFiles.find((id) => r.arnFile(id) === source);
    if (!file) throw new Error(`event source mapping ${idLien}: no local stand-in for its source ${source}`);
    const nomFonction = String(resoudre(p.FunctionName, resolveur));
    const fonction = Object.keys(workers).find((id) => id === nomFonction || r.arnFonction(id) === nomFonction);
    if (!fonction) throw new Error(`event source mapping ${idLien}: ${nomFonction} is no function of the template`);
    // Without ReportBatchItemFailures Lambda ignores the answer: the batch succeeded unless the function threw.
    const partiels = ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures');
    // Without it, Lambda scales the batches up to the function's concurrency: no bound here.
    const concurrence: unknown = p.ScalingConfig?.MaximumConcurrency;
    r.sqs.consommer(
      file,
      async (evenement) => {
        const reponse = await workers[fonction]!.invoquer(evenement);
        return partiels ? reponse : undefined;
      },
      // 10: Lambda's default batch size for a queue.
      { tailleLot: Number(p.BatchSize ?? 10), ...(concurrence !== undefined ? { concurrenceMax: Number(concurrence) } : {}) },
    );
  }
};
