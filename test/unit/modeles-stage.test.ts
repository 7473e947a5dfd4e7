/**
 * The operator's check before a Bedrock stage's first job (exploitation/modeles-stage.ts, `admin -- check-models`),
 * with recorded answers: each model is called once with the smallest request its service takes, its
 * lifecycle read, and a refusal or a Legacy model said in the words an operator acts on (issue 28, points 2
 * and 3).
 */
import { BedrockClient, GetFoundationModelCommand } from '@aws-sdk/client-bedrock';
import { AccessDeniedException, BedrockRuntimeClient, ConverseCommand, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { modelesBedrock } from '../../lambdas/moteurs/bedrock/configuration';
import { verifierModeles, type ModelesStage } from '../../exploitation/modeles-stage';

const bedrock = mockClient(BedrockClient);
const runtime = mockClient(BedrockRuntimeClient);
const clients = () => ({ bedrock: new BedrockClient({ region: 'us-east-1' }), runtime: new BedrockRuntimeClient({ region: 'us-east-1' }) });

const defauts = modelesBedrock({});
const STAGE: ModelesStage = {
  region: defauts.region,
  modeles: {
    modeleInpaint: defauts.images.vider,
    modeleStructure: defauts.images.renovation,
    modeleRemplacement: defauts.images.saison,
    modeleTexte: defauts.texte,
  },
};
const cycle = (status: 'ACTIVE' | 'LEGACY', fin?: string) => ({
  modelDetails: { modelArn: 'arn', modelId: 'm', modelLifecycle: { status, ...(fin ? { endOfLifeTime: new Date(fin) } : {}) } },
});

beforeEach(() => {
  bedrock.reset();
  runtime.reset();
  bedrock.on(GetFoundationModelCommand).resolves(cycle('ACTIVE'));
  runtime.on(InvokeModelCommand).resolves({ body: new TextEncoder().encode('{"images":["x"],"seeds":[1],"finish_reasons":[null]}') as never });
  runtime.on(ConverseCommand).resolves({ output: { message: { role: 'assistant', content: [{ text: 'OK' }] } }, stopReason: 'end_turn' } as never);
});

describe('check-models', () => {
  it('calls each model once, with the smallest valid request of its service, and reads its lifecycle without the geographic prefix', async () => {
    const etats = await verifierModeles(STAGE, clients());
    expect(etats.map((e) => [e.setting, e.ready, e.lifecycle])).toEqual([
      ['modeleInpaint', true, 'ACTIVE'],
      ['modeleStructure', true, 'ACTIVE'],
      ['modeleRemplacement', true, 'ACTIVE'],
      ['modeleTexte', true, 'ACTIVE'],
    ]);
    expect(bedrock.commandCalls(GetFoundationModelCommand).map((c) => c.args[0].input.modelIdentifier)).toEqual([
      'stability.stable-image-inpaint-v1:0',
      'stability.stable-image-control-structure-v1:0',
      'stability.stable-image-search-replace-v1:0',
      'anthropic.claude-haiku-4-5-20251001-v1:0',
    ]);
    const corps = runtime.commandCalls(InvokeModelCommand).map((c) => ({ modele: c.args[0].input.modelId, corps: JSON.parse(String(c.args[0].input.body)) }));
    expect(corps.map((c) => c.modele)).toEqual([STAGE.modeles.modeleInpaint, STAGE.modeles.modeleStructure, STAGE.modeles.modeleRemplacement]);
    for (const { corps: c } of corps) {
      expect(await sharp(Buffer.from(c.image, 'base64')).metadata()).toMatchObject({ width: 64, height: 64 });
      expect(c).toMatchObject({ seed: 1, output_format: 'jpeg', prompt: expect.any(String) });
    }
    expect(corps[0]!.corps.mask).toEqual(expect.any(String));
    expect(corps[1]!.corps.control_strength).toBe(0.7);
    expect(corps[2]!.corps.search_prompt).toBe('sky');
    expect(runtime.commandCalls(ConverseCommand)[0]!.args[0].input).toMatchObject({ modelId: STAGE.modeles.modeleTexte, inferenceConfig: { maxTokens: 5 } });
  });

  it('a model not enabled for the account says how to enable it: the Marketplace rights, and for Anthropic the first-time-use form', async () => {
    const refus = new AccessDeniedException({
      $metadata: {},
      message: 'Model access is denied due to IAM user or service role is not authorized to perform the required AWS Marketplace actions',
    });
    runtime.on(InvokeModelCommand).rejects(refus).on(ConverseCommand).rejects(refus);
    const etats = await verifierModeles(STAGE, clients());
    expect(etats.every((e) => !e.ready && !e.invoked)).toBe(true);
    for (const e of etats) expect(e.detail).toMatch(/aws-marketplace:Subscribe, aws-marketplace:Unsubscribe and aws-marketplace:ViewSubscriptions/);
    expect(etats.find((e) => e.setting === 'modeleTexte')!.detail).toMatch(/first-time-use form/);
    expect(etats.find((e) => e.setting === 'modeleInpaint')!.detail).not.toMatch(/first-time-use/);
  });

  it('a Legacy model is not ready, whatever its answer, and the operator is told which setting to change', async () => {
    bedrock.on(GetFoundationModelCommand, { modelIdentifier: 'anthropic.claude-haiku-4-5-20251001-v1:0' }).resolves(cycle('LEGACY', '2027-04-01T00:00:00Z'));
    const etats = await verifierModeles(STAGE, clients());
    const texte = etats.find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({ ready: false, invoked: true, lifecycle: 'LEGACY', end_of_life: '2027-04-01' });
    expect(texte.detail).toMatch(/-c modeleTexte=/);
    expect(etats.filter((e) => e.ready).map((e) => e.setting)).toEqual(['modeleInpaint', 'modeleStructure', 'modeleRemplacement']);
  });

  it('--lifecycle-only reads the lifecycles and calls no model', async () => {
    const etats = await verifierModeles(STAGE, clients(), { appeler: false });
    expect(etats.every((e) => e.ready && !e.invoked)).toBe(true);
    expect(runtime.calls()).toHaveLength(0);
  });
});
