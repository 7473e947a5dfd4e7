/**
 * The operator's check before a Bedrock stage's first job (exploitation/modeles-stage.ts, `admin -- check-models`),
 * with recorded answers: each model is called once with the smallest request its service takes, its
 * lifecycle read, and a refusal or a Legacy model said in the words an operator acts on (issue 28, points 2
 * and 3). Ready only when the control plane says the Marketplace agreement is in place: one answered call is
 * no proof, AWS documenting that calls may succeed for up to 15 minutes before a failed subscription refuses
 * them (issue 40, point 2).
 */
import {
  AccessDeniedException as RefusControle,
  BedrockClient,
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  type GetFoundationModelAvailabilityCommandOutput,
} from '@aws-sdk/client-bedrock';
import { AccessDeniedException, BedrockRuntimeClient, ConverseCommand, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { modelesBedrock } from '../../lambdas/moteurs/bedrock/configuration';
import { bilanModeles, SORTIES_VERIFICATION, verifierModeles, type ModelesStage } from '../../exploitation/modeles-stage';

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

/** GetFoundationModelAvailability's answer: by default, everything in place. */
const dispo = (
  agreement: 'AVAILABLE' | 'PENDING' | 'NOT_AVAILABLE' | 'ERROR',
  autres: {
    errorMessage?: string;
    authorization?: 'AUTHORIZED' | 'NOT_AUTHORIZED';
    entitlement?: 'AVAILABLE' | 'NOT_AVAILABLE';
    region?: 'AVAILABLE' | 'NOT_AVAILABLE';
  } = {},
): Partial<GetFoundationModelAvailabilityCommandOutput> => ({
  modelId: 'm',
  agreementAvailability: { status: agreement, ...(autres.errorMessage ? { errorMessage: autres.errorMessage } : {}) },
  authorizationStatus: autres.authorization ?? 'AUTHORIZED',
  entitlementAvailability: autres.entitlement ?? (agreement === 'AVAILABLE' ? 'AVAILABLE' : 'NOT_AVAILABLE'),
  regionAvailability: autres.region ?? 'AVAILABLE',
});
const HAIKU = 'anthropic.claude-haiku-4-5-20251001-v1:0';

beforeEach(() => {
  bedrock.reset();
  runtime.reset();
  bedrock.on(GetFoundationModelCommand).resolves(cycle('ACTIVE'));
  bedrock.on(GetFoundationModelAvailabilityCommand).resolves(dispo('AVAILABLE'));
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
    // What Bedrock reports for an account whose subscription never started.
    bedrock.on(GetFoundationModelAvailabilityCommand).resolves(dispo('NOT_AVAILABLE'));
    const etats = await verifierModeles(STAGE, clients());
    expect(etats.every((e) => !e.ready && !e.invoked && e.status === 'action_needed')).toBe(true);
    for (const e of etats) expect(e.detail).toContain(refus.message);
    for (const e of etats) expect(e.detail).toMatch(/aws-marketplace:Subscribe, aws-marketplace:Unsubscribe and aws-marketplace:ViewSubscriptions/);
    expect(etats.find((e) => e.setting === 'modeleTexte')!.detail).toMatch(/first-time-use form/);
    expect(etats.find((e) => e.setting === 'modeleInpaint')!.detail).not.toMatch(/first-time-use/);
  });

  it('a Legacy model is not ready, whatever its answer, and the operator is told which setting to change', async () => {
    bedrock.on(GetFoundationModelCommand, { modelIdentifier: 'anthropic.claude-haiku-4-5-20251001-v1:0' }).resolves(cycle('LEGACY', '2027-04-01T00:00:00Z'));
    const etats = await verifierModeles(STAGE, clients());
    const texte = etats.find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({ ready: false, status: 'action_needed', invoked: true, lifecycle: 'LEGACY', end_of_life: '2027-04-01' });
    expect(texte.detail).toMatch(/-c modeleTexte=/);
    expect(etats.filter((e) => e.ready).map((e) => e.setting)).toEqual(['modeleInpaint', 'modeleStructure', 'modeleRemplacement']);
  });

  it('--lifecycle-only reads the lifecycles and the availability and calls no model', async () => {
    const etats = await verifierModeles(STAGE, clients(), { appeler: false });
    expect(etats.every((e) => e.ready && !e.invoked)).toBe(true);
    expect(runtime.calls()).toHaveLength(0);
    expect(bedrock.commandCalls(GetFoundationModelAvailabilityCommand)).toHaveLength(4);
  });

  it('--lifecycle-only on an account never subscribed: not ready, and the call that subscribes is what to run', async () => {
    bedrock.on(GetFoundationModelAvailabilityCommand).resolves(dispo('NOT_AVAILABLE'));
    const etats = await verifierModeles(STAGE, clients(), { appeler: false });
    expect(etats.map((e) => e.status)).toEqual(['action_needed', 'action_needed', 'action_needed', 'action_needed']);
    expect(etats[0]!.detail).toMatch(/without --lifecycle-only/);
  });
});

describe('check-models: ready means the subscription is in place, not one answered call (issue 40, point 2)', () => {
  it('one answered call while the Marketplace agreement is PENDING is pending, with when to run again; exit status 3', async () => {
    bedrock.on(GetFoundationModelAvailabilityCommand, { modelId: HAIKU }).resolves(dispo('PENDING'));
    const etats = await verifierModeles(STAGE, clients());
    const texte = etats.find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({
      invoked: true,
      ready: false,
      status: 'pending',
      availability: { agreement: 'PENDING', authorization: 'AUTHORIZED', entitlement: 'NOT_AVAILABLE', region: 'AVAILABLE' },
    });
    expect(texte.detail).toMatch(/run this command again in 15 minutes/);
    // Read after the call, which is what starts the subscription, and with the foundation model's id.
    expect(bedrock.commandCalls(GetFoundationModelAvailabilityCommand).map((c) => c.args[0].input.modelId)).toContain(HAIKU);
    const bilan = bilanModeles(etats, new Date('2026-05-01T10:00:00Z'));
    expect(bilan).toMatchObject({ status: 'pending', ready: false, run_again_after: '2026-05-01T10:15:00.000Z' });
    expect(SORTIES_VERIFICATION[bilan.status]).toBe(3);
  });

  it('agreement AVAILABLE, entitled, authorized and an answered call: ready; exit status 0', async () => {
    const etats = await verifierModeles(STAGE, clients());
    expect(etats.every((e) => e.status === 'ready' && e.ready && e.invoked && e.availability?.agreement === 'AVAILABLE')).toBe(true);
    expect(etats[0]!.detail).toBe('Active, agreement AVAILABLE, called once and answered');
    const bilan = bilanModeles(etats);
    expect(bilan).toEqual({ status: 'ready', ready: true, models: etats });
    expect(SORTIES_VERIFICATION[bilan.status]).toBe(0);
  });

  it('a call that answered before Bedrock reports any agreement is pending, not ready', async () => {
    bedrock.on(GetFoundationModelAvailabilityCommand).resolves(dispo('NOT_AVAILABLE'));
    const etats = await verifierModeles(STAGE, clients());
    expect(etats.every((e) => e.invoked && e.status === 'pending')).toBe(true);
    expect(etats[0]!.detail).toMatch(/run this command again in 15 minutes.*aws-marketplace:Subscribe/);
  });

  it('agreement NOT_AVAILABLE after a refused call: what the operator must do (rights, payment method, Anthropic form); exit status 1', async () => {
    const refus = new AccessDeniedException({ $metadata: {}, message: 'Model access is denied due to a missing AWS Marketplace subscription' });
    runtime.on(ConverseCommand).rejects(refus);
    bedrock.on(GetFoundationModelAvailabilityCommand, { modelId: HAIKU }).resolves(dispo('NOT_AVAILABLE'));
    const etats = await verifierModeles(STAGE, clients());
    const texte = etats.find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({ invoked: false, ready: false, status: 'action_needed' });
    expect(texte.detail).toContain('called and refused (AccessDeniedException: Model access is denied due to a missing AWS Marketplace subscription)');
    expect(texte.detail).toMatch(/aws-marketplace:Subscribe, aws-marketplace:Unsubscribe and aws-marketplace:ViewSubscriptions/);
    expect(texte.detail).toMatch(/valid payment method/);
    expect(texte.detail).toMatch(/first-time-use form/);
    const bilan = bilanModeles(etats);
    expect(bilan).toMatchObject({ status: 'not_ready', ready: false });
    expect(bilan.run_again_after).toBeUndefined();
    expect(SORTIES_VERIFICATION[bilan.status]).toBe(1);
  });

  it('AccessDenied on the call while the agreement is AVAILABLE: not ready, with the refusal and the missing grant', async () => {
    runtime
      .on(InvokeModelCommand)
      .rejects(new AccessDeniedException({ $metadata: {}, message: 'User: arn:aws:iam::1:user/op is not authorized to perform: bedrock:InvokeModel' }));
    const etats = await verifierModeles(STAGE, clients());
    const image = etats.find((e) => e.setting === 'modeleInpaint')!;
    expect(image).toMatchObject({ invoked: false, ready: false, status: 'action_needed' });
    expect(image.detail).toMatch(/is not authorized to perform: bedrock:InvokeModel.*bedrock:InvokeModel on the inference profile/);
    expect(etats.find((e) => e.setting === 'modeleTexte')!.status).toBe('ready');
  });

  it('AccessDenied on the call while the agreement is PENDING: pending, the refusal said', async () => {
    runtime
      .on(ConverseCommand)
      .rejects(new AccessDeniedException({ $metadata: {}, message: 'Your AWS Marketplace subscription for this model is still being processed' }));
    bedrock.on(GetFoundationModelAvailabilityCommand, { modelId: HAIKU }).resolves(dispo('PENDING'));
    const texte = (await verifierModeles(STAGE, clients())).find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({ ready: false, status: 'pending' });
    expect(texte.detail).toMatch(/still being processed.*run this command again in 15 minutes/);
  });

  it("a failed subscription (ERROR) is an error, with Bedrock's message and what usually causes it", async () => {
    bedrock.on(GetFoundationModelAvailabilityCommand, { modelId: HAIKU }).resolves(dispo('ERROR', { errorMessage: 'INVALID_PAYMENT_INSTRUMENT' }));
    const texte = (await verifierModeles(STAGE, clients())).find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({
      invoked: true,
      ready: false,
      status: 'error',
      availability: { agreement: 'ERROR', agreement_error: 'INVALID_PAYMENT_INSTRUMENT' },
    });
    expect(texte.detail).toMatch(/subscription failed \(INVALID_PAYMENT_INSTRUMENT\).*payment method/);
  });

  it("NOT_AUTHORIZED (Anthropic's form not submitted) and no entitlement despite an agreement are actions, even after an answered call", async () => {
    bedrock
      .on(GetFoundationModelAvailabilityCommand, { modelId: HAIKU })
      .resolves(dispo('AVAILABLE', { authorization: 'NOT_AUTHORIZED' }))
      .on(GetFoundationModelAvailabilityCommand, { modelId: 'stability.stable-image-inpaint-v1:0' })
      .resolves(dispo('AVAILABLE', { entitlement: 'NOT_AVAILABLE' }));
    const etats = await verifierModeles(STAGE, clients());
    const texte = etats.find((e) => e.setting === 'modeleTexte')!;
    expect(texte).toMatchObject({ invoked: true, status: 'action_needed' });
    expect(texte.detail).toMatch(/not authorized.*first-time-use form/);
    const image = etats.find((e) => e.setting === 'modeleInpaint')!;
    expect(image).toMatchObject({ invoked: true, status: 'action_needed' });
    expect(image.detail).toMatch(/no entitlement.*Manage subscriptions/);
  });

  it("availability not readable (the operator's policy lacks it): never ready on the call alone, the permission named", async () => {
    bedrock
      .on(GetFoundationModelAvailabilityCommand)
      .rejects(new RefusControle({ $metadata: {}, message: 'not authorized to perform: bedrock:GetFoundationModelAvailability' }));
    const etats = await verifierModeles(STAGE, clients());
    expect(etats.every((e) => e.invoked && !e.ready && e.status === 'action_needed' && e.availability === undefined)).toBe(true);
    expect(etats[0]!.detail).toMatch(/allow these credentials bedrock:GetFoundationModelAvailability/);
  });

  it("Amazon's own models, not sold through AWS Marketplace: no agreement needed, authorization and entitlement decide", async () => {
    const nova: ModelesStage = { region: 'us-east-1', modeles: { modeleTexte: 'us.amazon.nova-lite-v1:0' } };
    bedrock.on(GetFoundationModelAvailabilityCommand).resolves(dispo('NOT_AVAILABLE', { entitlement: 'AVAILABLE' }));
    const [etat] = await verifierModeles(nova, clients());
    expect(etat).toMatchObject({ status: 'ready', ready: true });
    expect(etat!.detail).toMatch(/no Marketplace agreement needed/);
    bedrock.on(GetFoundationModelAvailabilityCommand).resolves(dispo('NOT_AVAILABLE', { entitlement: 'NOT_AVAILABLE' }));
    expect((await verifierModeles(nova, clients()))[0]).toMatchObject({ status: 'action_needed', ready: false });
  });

  it('a stage pending on one model and needing an action on another is not ready (exit 1): the action comes first', () => {
    const etat = (status: 'ready' | 'pending' | 'action_needed' | 'error') => ({
      setting: 's',
      model: 'm',
      lifecycle: 'ACTIVE',
      invoked: true,
      status,
      ready: status === 'ready',
      detail: '',
    });
    expect(bilanModeles([etat('pending'), etat('action_needed')]).status).toBe('not_ready');
    expect(bilanModeles([etat('pending'), etat('error')]).status).toBe('not_ready');
    expect(bilanModeles([etat('ready'), etat('pending')]).status).toBe('pending');
  });
});
