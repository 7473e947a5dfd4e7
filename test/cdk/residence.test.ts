/**
 * The EU-resident stage (`-c residence=eu`, lib/residence.ts): what it synthesizes, what it refuses, and the
 * table of docs/deployment.md, which is rendered from the same table the check and the grants read. Synthesized like
 * test/cdk/pile.test.ts (the app module, cdk.json's context, no bundling); nothing here talks to AWS.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { construireApplication } from '../../lib/application';
import { RACINE } from '../../lib/fonction';
import { MODELES_RESIDENCE, REGIONS_UE, tableauResidence, type ModeleResidence } from '../../lib/residence';

const contexteCdk = (JSON.parse(readFileSync(path.join(RACINE, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

type Ressource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> };
interface Synthese {
  region: string;
  json: Record<string, any>;
  ressources: Record<string, Ressource>;
  nag: { conclusion: string; violations: unknown[] } | undefined;
}

const COMPTE = '123456789012';

/** `regionCli`: what the CDK CLI passes as CDK_DEFAULT_REGION (us-east-1 when nothing is configured). */
const synthetiser = (contexte: Record<string, unknown>, regionCli?: string): Synthese => {
  const app = new App({ context: { ...contexteCdk, ...contexte, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true } });
  const avant = { compte: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const fixer = (nom: string, valeur: string | undefined) => (valeur === undefined ? delete process.env[nom] : (process.env[nom] = valeur));
  fixer('CDK_DEFAULT_ACCOUNT', COMPTE);
  fixer('CDK_DEFAULT_REGION', regionCli);
  let stack: Stack;
  try {
    stack = construireApplication(app);
  } finally {
    fixer('CDK_DEFAULT_ACCOUNT', avant.compte);
    fixer('CDK_DEFAULT_REGION', avant.region);
  }
  const json = Template.fromStack(stack).toJSON();
  const assemblage = app.synth();
  const rapport = JSON.parse(readFileSync(path.join(assemblage.directory, 'validation-report.json'), 'utf8')) as {
    pluginReports: { pluginName: string; conclusion: string; violations: unknown[] }[];
  };
  return { region: stack.region, json, ressources: json.Resources, nag: rapport.pluginReports.find((r) => r.pluginName === 'AwsSolutions') };
};

const outil = (s: Synthese): Ressource => {
  const trouve = Object.values(s.ressources).find((r) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.['aws:cdk:path']?.endsWith('/Flux/Outil/Resource'));
  if (!trouve) throw new Error('no tool function');
  return trouve;
};

const declarationsOutil = (s: Synthese) => {
  const role = outil(s).Properties.Role['Fn::GetAtt'][0];
  return Object.values(s.ressources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
    .flatMap((r) => r.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
};

/**
 * Every string of the template naming a place outside the EU: a Region code outside it (London and Zurich
 * included), a wildcard Region in a Bedrock ARN, or a non-EU inference profile.
 */
const horsUe = (json: unknown): string[] => {
  const region = /\b(?:us|us-gov|ca|sa|mx|me|af|il|ap|cn)-[a-z]+-\d\b|\beu-(?:west-2|central-2)\b/;
  const profil = /\b(?:us|us-gov|apac|jp|au|ca|global)\.(?:anthropic|stability|amazon|meta|mistral|cohere|twelvelabs|openai)\./;
  const chaines: string[] = [];
  const parcourir = (v: unknown): void => {
    if (typeof v === 'string') chaines.push(v);
    else if (Array.isArray(v)) v.forEach(parcourir);
    else if (v && typeof v === 'object') Object.entries(v).forEach(([k, x]) => (chaines.push(k), parcourir(x)));
  };
  parcourir(json);
  return chaines.filter((c) => region.test(c) || profil.test(c) || /:bedrock:\*:/.test(c));
};

const SIX_UE = ['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'];

describe('the table of docs/deployment.md', () => {
  it('is the one in lib/residence.ts, rendered (the synth check and the grants read that same table)', () => {
    const doc = readFileSync(path.join(RACINE, 'docs/deployment.md'), 'utf8');
    const m = /<!-- residence:debut -->\n([\s\S]*?)\n<!-- residence:fin -->/.exec(doc);
    expect(m, 'docs/deployment.md has no <!-- residence:debut --> … <!-- residence:fin --> block').not.toBeNull();
    expect(m![1]).toBe(tableauResidence());
  });

  it('lists as EU Regions the six in EU member states only, and every EU profile routes only to them', () => {
    expect(Object.keys(REGIONS_UE).sort()).toEqual(SIX_UE);
    for (const m of MODELES_RESIDENCE) {
      for (const [source, destinations] of Object.entries(m.ue?.profil?.destinations ?? {})) {
        expect(SIX_UE, m.modele).toContain(source);
        for (const d of destinations) expect(SIX_UE, `${m.modele} from ${source}`).toContain(d);
      }
      for (const r of m.ue?.enRegion ?? []) expect(SIX_UE, m.modele).toContain(r);
    }
  });
});

describe('an EU stage on the local engine (-c residence=eu -c moteur=local)', () => {
  let s: Synthese;
  beforeAll(() => {
    s = synthetiser({ stage: 'eu', residence: 'eu', moteur: 'local' });
  });

  it('lives in eu-west-1 when neither -c region nor the CLI names a Region, and its template names no place outside the EU', () => {
    expect(s.region).toBe('eu-west-1');
    expect(horsUe(s.json)).toEqual([]);
    expect(JSON.stringify(s.json)).toContain(':states:eu-west-1:');
  });

  it('gives the tool step no Bedrock setting and no model or detector grant: nothing is called', () => {
    const env = outil(s).Properties.Environment.Variables as Record<string, unknown>;
    expect(env.RETOUCHE_MOTEUR).toBe('local');
    expect(Object.keys(env).filter((k) => k.startsWith('RETOUCHE_BEDROCK') || k.startsWith('RETOUCHE_REKOGNITION'))).toEqual([]);
    const actions = declarationsOutil(s).flatMap((d) => [d.Action].flat());
    expect(actions.filter((a) => a.startsWith('bedrock:') || a.startsWith('rekognition:'))).toEqual([]);
  });

  it('passes cdk-nag', () => {
    expect(s.nag?.violations).toEqual([]);
    expect(s.nag?.conclusion).toBe('success');
  });
});

describe('an EU stage on Bedrock, once AWS offers EU image models (a hypothetical table entry)', () => {
  // The three Stability services get a made-up EU profile for this synth only, and the operator names them:
  // this is the path an EU stage takes the day lib/residence.ts lists a real one.
  const stability = MODELES_RESIDENCE.filter((m) => m.modele.startsWith('stability.'));
  const avant = new Map<ModeleResidence, ModeleResidence['ue']>();
  let s: Synthese;
  beforeAll(() => {
    for (const m of stability) {
      avant.set(m, m.ue);
      m.ue = { profil: { id: `eu.${m.modele}`, destinations: { 'eu-central-1': ['eu-central-1', 'eu-west-3'] } } };
    }
    s = synthetiser(
      {
        stage: 'eu',
        residence: 'eu',
        modeleInpaint: 'eu.stability.stable-image-inpaint-v1:0',
        modeleStructure: 'eu.stability.stable-image-control-structure-v1:0',
        modeleRemplacement: 'eu.stability.stable-image-search-replace-v1:0',
      },
      'eu-central-1',
    );
  });
  afterAll(() => {
    for (const [m, ue] of avant) m.ue = ue;
  });

  it("lives in the CLI's EU Region and calls Bedrock and Rekognition there, with the EU profiles (Claude's by default)", () => {
    expect(s.region).toBe('eu-central-1');
    expect(outil(s).Properties.Environment.Variables).toMatchObject({
      RETOUCHE_MOTEUR: 'bedrock',
      RETOUCHE_BEDROCK_REGION: 'eu-central-1',
      RETOUCHE_BEDROCK_MODELE_INPAINT: 'eu.stability.stable-image-inpaint-v1:0',
      RETOUCHE_BEDROCK_MODELE_STRUCTURE: 'eu.stability.stable-image-control-structure-v1:0',
      RETOUCHE_BEDROCK_MODELE_REMPLACEMENT: 'eu.stability.stable-image-search-replace-v1:0',
      RETOUCHE_BEDROCK_MODELE_TEXTE: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      RETOUCHE_REKOGNITION_REGION: 'eu-central-1',
    });
  });

  it('grants each EU profile in the stage Region and its model in exactly the Regions the table says it routes to', () => {
    const bedrock = declarationsOutil(s).filter((d) => d.Effect === 'Allow' && [d.Action].flat().includes('bedrock:InvokeModel'));
    expect(bedrock).toHaveLength(1);
    const profil = (id: string) => `arn:aws:bedrock:eu-central-1:${COMPTE}:inference-profile/${id}`;
    const modele = (region: string, id: string) => `arn:aws:bedrock:${region}::foundation-model/${id}`;
    const haiku = 'anthropic.claude-haiku-4-5-20251001-v1:0';
    const attendu = [
      profil(`eu.${haiku}`),
      ...SIX_UE.map((r) => modele(r, haiku)),
      ...stability.flatMap((m) => [profil(`eu.${m.modele}`), modele('eu-central-1', m.modele), modele('eu-west-3', m.modele)]),
    ];
    expect([bedrock[0]!.Resource].flat().sort()).toEqual(attendu.sort());
  });

  it('denies the model and detector calls outside the EU Regions, and its template names no place outside the EU', () => {
    const refus = declarationsOutil(s).filter((d) => d.Effect === 'Deny');
    expect(refus).toEqual([
      {
        Effect: 'Deny',
        Action: ['bedrock:InvokeModel', 'rekognition:DetectFaces', 'rekognition:DetectLabels', 'rekognition:DetectText'],
        Resource: '*',
        Condition: { StringNotEquals: { 'aws:RequestedRegion': SIX_UE } },
      },
    ]);
    expect(horsUe(s.json)).toEqual([]);
  });

  it('passes cdk-nag', () => {
    expect(s.nag?.violations).toEqual([]);
    expect(s.nag?.conclusion).toBe('success');
  });
});

describe('an EU stage that offers only what runs in the EU (-c outils=annonce,fusion), at its own price (-c couts=fusion:3)', () => {
  let s: Synthese;
  beforeAll(() => {
    // fusion calls no model at all: an EU stage may offer it as it is.
    s = synthetiser({ stage: 'eu', residence: 'eu', outils: 'annonce,fusion', couts: 'fusion:3' }, 'eu-west-1');
  });
  const fonction = (fin: string): Ressource =>
    Object.values(s.ressources).find((r) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.['aws:cdk:path']?.endsWith(`${fin}/Resource`))!;

  it("runs annonce on Bedrock with Claude's EU profile, and gives the tool step no image model, no detector Region", () => {
    const env = outil(s).Properties.Environment.Variables as Record<string, unknown>;
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith('RETOUCHE_BEDROCK_') || k.startsWith('RETOUCHE_REKOGNITION_'))
        .sort(),
    ).toEqual(['RETOUCHE_BEDROCK_MODELE_TEXTE', 'RETOUCHE_BEDROCK_REGION']);
    expect(env.RETOUCHE_BEDROCK_MODELE_TEXTE).toBe('eu.anthropic.claude-haiku-4-5-20251001-v1:0');
    const invoke = declarationsOutil(s).find((d) => d.Effect === 'Allow' && [d.Action].flat().includes('bedrock:InvokeModel'))!;
    expect(JSON.stringify(invoke.Resource)).not.toContain('stability');
    expect(horsUe(s.json)).toEqual([]);
  });

  it('tells GET /outils and POST /travaux which tools it offers, at which prices; the other functions do not need to know', () => {
    for (const nom of ['/Api/Outils', '/Api/TravauxCreer']) {
      expect(fonction(nom).Properties.Environment.Variables).toMatchObject({ RETOUCHE_OUTILS: 'annonce,fusion', RETOUCHE_COUTS: 'fusion:3' });
    }
    expect(fonction('/Api/Travail').Properties.Environment.Variables.RETOUCHE_OUTILS).toBeUndefined();
    expect(fonction('/Api/Travail').Properties.Environment.Variables.RETOUCHE_COUTS).toBeUndefined();
  });

  it('passes cdk-nag', () => {
    expect(s.nag?.conclusion).toBe('success');
  });

  it('refuses a tool name that is not a tool', () => {
    expect(() => synthetiser({ stage: 'eu', residence: 'eu', outils: 'annonce,peinture' }, 'eu-west-1')).toThrow(
      /context outils must list tools separated by commas/,
    );
  });
});

describe('what an EU stage refuses to synthesize, and why', () => {
  const refus = (contexte: Record<string, unknown>, regionCli?: string) => () => synthetiser({ stage: 'eu', residence: 'eu', ...contexte }, regionCli);

  it('a Region outside the EU, from the CLI or from -c region (London and Zurich are in Europe, not in the EU)', () => {
    expect(refus({ moteur: 'local' }, 'us-east-1')).toThrow(
      /the stage's Region us-east-1, from CDK_DEFAULT_REGION, is not in the EU\. Deploy with -c region=eu-west-1/,
    );
    expect(refus({ moteur: 'local', region: 'eu-west-2' }, 'eu-west-1')).toThrow(
      /the stage's Region eu-west-2 \(London, United Kingdom: in Europe, not in the EU\), from -c region, is not in the EU/,
    );
    expect(refus({ moteur: 'local', region: 'eu-central-2' })).toThrow(/eu-central-2 \(Zurich, Switzerland: in Europe, not in the EU\)/);
  });

  it("the Bedrock engine with today's image models: Stability AI Image Services have no EU offer, each tool is named", () => {
    const attendu = (cle: string, id: string, outils: string) =>
      new RegExp(
        `- ${cle}=${id.replace(/\./g, '\\.')} \\(the default\\), for ${outils}, would leave the EU: .* has no EU offer in Amazon Bedrock, ` +
          `only its \`us\\.\` profile \\(us-east-1, us-east-2, us-west-2\\); an EU stage cannot run ${outils} on Bedrock today: ` +
          `withdraw (it|them) from the stage \\(-c outils=annonce,fusion\\), deploy it with -c moteur=local`,
      );
    const synthese = refus({});
    expect(synthese).toThrow(/^context residence=eu: this stage's Bedrock engine would call outside the EU\./);
    expect(synthese).toThrow(attendu('modeleInpaint', 'us.stability.stable-image-inpaint-v1:0', 'vider, staging'));
    expect(synthese).toThrow(attendu('modeleStructure', 'us.stability.stable-image-control-structure-v1:0', 'renovation'));
    expect(synthese).toThrow(attendu('modeleRemplacement', 'us.stability.stable-image-search-replace-v1:0', 'saison, ciel'));
    // Claude Haiku 4.5 has its EU profile: the default of an EU stage, not refused.
    expect(synthese).not.toThrow(/modeleTexte/);
  });

  it('a Bedrock Region, a text model or a Rekognition Region that would leave the EU', () => {
    expect(refus({ bedrockRegion: 'us-east-1' })).toThrow(/- bedrockRegion=us-east-1 is not an EU Region\./);
    expect(refus({ modeleTexte: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' })).toThrow(
      /- modeleTexte=us\.anthropic\.claude-haiku-4-5-20251001-v1:0, for annonce, is a us\. profile, which routes outside the EU; use -c modeleTexte=eu\.anthropic\.claude-haiku-4-5-20251001-v1:0\./,
    );
    expect(refus({ modeleTexte: 'global.anthropic.claude-haiku-4-5-20251001-v1:0' })).toThrow(/is a global profile, which routes to any commercial Region/);
    expect(refus({ rekognitionRegion: 'us-east-1' })).toThrow(
      /- rekognitionRegion=us-east-1 is not an EU Region; use -c rekognitionRegion=eu-central-1\|eu-south-2\|eu-west-1\./,
    );
  });

  it('a model the table does not know, a model id of another setting, or a model not documented in-Region', () => {
    expect(refus({ modeleTexte: 'eu.anthropic.claude-opus-4-5-20251101-v1:0' })).toThrow(
      /- modeleTexte=eu\.anthropic\.claude-opus-4-5-20251101-v1:0, for annonce, is not in lib\/residence\.ts, so where it would run is unknown; use -c modeleTexte=eu\.anthropic\.claude-haiku/,
    );
    expect(refus({ modeleInpaint: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' })).toThrow(
      /- modeleInpaint=eu\.anthropic\.claude-haiku-4-5-20251001-v1:0, for vider, staging, is Anthropic Claude Haiku 4\.5, a model of modeleTexte, not of modeleInpaint\./,
    );
    expect(refus({ modeleTexte: 'anthropic.claude-haiku-4-5-20251001-v1:0' })).toThrow(
      /modeleTexte=anthropic\.claude-haiku-4-5-20251001-v1:0, for annonce, is not documented as invocable in-Region in eu-west-1; use its EU profile/,
    );
  });

  it('Rekognition in a Region that has none: an EU stage in Paris must name another EU Region for it', () => {
    expect(refus({ region: 'eu-west-3' })).toThrow(
      /- rekognitionRegion=eu-west-3 \(the Bedrock Region\) has no Amazon Rekognition; use -c rekognitionRegion=eu-central-1\|eu-south-2\|eu-west-1\./,
    );
  });

  it('an unknown residence or a malformed Region', () => {
    expect(refus({ residence: 'us' })).toThrow('context residence must be one of eu (got us)');
    expect(refus({ residence: 'eu', region: 'europe' })).toThrow('context region must be an AWS Region code such as eu-west-1 (got europe)');
  });
});

describe('a stage without residence', () => {
  it('is unchanged: us-east-1 and us. profiles by default, grants on the US Regions a profile routes to, no Region deny', () => {
    const s = synthetiser({ stage: 'dev' });
    expect(s.region).not.toMatch(/^eu-/);
    const env = outil(s).Properties.Environment.Variables as Record<string, unknown>;
    expect(env).toMatchObject({ RETOUCHE_BEDROCK_REGION: 'us-east-1', RETOUCHE_BEDROCK_MODELE_TEXTE: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' });
    expect(env.RETOUCHE_REKOGNITION_REGION).toBeUndefined();
    expect(JSON.stringify(declarationsOutil(s))).toContain(':bedrock:us-west-2::foundation-model/stability.stable-image-inpaint-v1:0');
    expect(JSON.stringify(declarationsOutil(s))).not.toContain(':bedrock:*:');
    expect(declarationsOutil(s).filter((d) => d.Effect === 'Deny')).toEqual([]);
    // The scan the EU stages pass does find what is outside the EU.
    expect(horsUe(s.json)).toEqual(expect.arrayContaining(['us-east-1', 'us.anthropic.claude-haiku-4-5-20251001-v1:0']));
  });
});
