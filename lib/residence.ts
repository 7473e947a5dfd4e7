/**
 * The EU-resident stage (`-c residence=eu`, docs/deployment.md "EU residence"): what each model and service the tool step
 * calls offers inside the European Union, as one table of facts with their sources. The synth's checks
 * (`verifierResidenceUe`; the stage's Region, lib/region.ts), the IAM grants of an EU stage (`ressourcesIamUe`) and the table of
 * docs/deployment.md (`tableauResidence`, compared with it by test/cdk/residence.test.ts) all read it: a fact changes
 * here, with its source, or nowhere.
 *
 * Facts as AWS documented them in November 2026 (checked from here without an AWS account, so from the
 * documentation only):
 * - Bedrock cross-Region inference profiles and, per source Region, the Regions a profile routes to: AWS Bedrock
 *   User Guide, "Supported Regions and models for inference profiles". A profile tied to a geography never
 *   changes its destinations (same page); AWS adds new profiles instead, which then have to be added here.
 * - IAM for a geographic profile: the profile, and the foundation model in the source Region and in every
 *   destination Region (AWS Bedrock User Guide, "Geographic cross-Region inference").
 * - Rekognition Image's Regions: AWS General Reference, "Amazon Rekognition endpoints and quotas" (every
 *   non-streaming operation, DetectLabels, DetectFaces and DetectText included, in each Region listed), and the
 *   same list in botocore 1.43.11's endpoints.json.
 */
import { OUTILS, OUTILS_IMAGE, type IdOutil } from '../lambdas/core/modele/outils';
import { REGIONS_GEOGRAPHIE, type ModelesBedrock } from '../lambdas/moteurs/bedrock/configuration';
import { RefusDeConfiguration } from './configuration';

/** The AWS Regions inside the European Union, and where they are. An EU stage lives, and calls, only there. */
export const REGIONS_UE: Readonly<Record<string, string>> = {
  'eu-central-1': 'Frankfurt',
  'eu-north-1': 'Stockholm',
  'eu-south-1': 'Milan',
  'eu-south-2': 'Spain',
  'eu-west-1': 'Ireland',
  'eu-west-3': 'Paris',
};

/**
 * Regions in Europe outside the EU. Bedrock's `eu.` profiles accept them as source Regions and then route to
 * them too (London: eu-west-2; Zurich: eu-central-2), so they are refused as an EU stage's Region.
 */
export const REGIONS_EUROPE_HORS_UE: Readonly<Record<string, string>> = {
  'eu-central-2': 'Zurich, Switzerland',
  'eu-west-2': 'London, United Kingdom',
};

/**
 * The EU stage's Region when neither `-c region` nor the CLI's Region names one: Ireland, the EU Region with the
 * widest Bedrock offer (in AWS's list of inference profiles, the source Region of every `eu.` profile and the only
 * one of some: TwelveLabs Marengo) that also has Rekognition (Paris, Stockholm and Milan have none), so every
 * service the tool step calls answers in the stage's own Region.
 */
export const REGION_UE_DEFAUT = 'eu-west-1';

export const SOURCES = {
  profils: {
    titre: 'Bedrock: inference profiles',
    url: 'https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html',
  },
  rekognition: {
    titre: 'Rekognition endpoints',
    url: 'https://docs.aws.amazon.com/general/latest/gr/rekognition.html',
  },
} as const;

/** The context setting (`-c …`) that names a model of the engine (lib/modeles.ts). */
export type CleModele = 'modeleInpaint' | 'modeleStructure' | 'modeleRemplacement' | 'modeleTexte';

/** What a model offers in the EU. */
export interface OffreUe {
  /** An EU cross-Region (geographic) profile, and the Regions it routes to, per EU source Region. */
  profil?: { id: string; destinations: Readonly<Record<string, readonly string[]>> };
  /** EU Regions where the model itself (its foundation-model id) is invoked in-Region. */
  enRegion?: readonly string[];
}

export interface ModeleResidence {
  nom: string;
  /** Foundation-model id, without a geographic prefix. */
  modele: string;
  contexte: CleModele;
  outils: readonly IdOutil[];
  /** What the EU offers; `undefined`: nothing (the stage refuses to call it). */
  ue?: OffreUe;
  /** What exists outside the EU, for the operator who wonders. */
  ailleurs: string;
  source: keyof typeof SOURCES;
}

/** The six EU Regions, in the order AWS lists them: every EU-sourced `eu.` profile below routes to all of them. */
const SIX_UE = ['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'] as const;
const depuisChaque = (regions: readonly string[]): Record<string, readonly string[]> => Object.fromEntries(regions.map((r) => [r, regions]));

const US_STABILITY = 'only its `us.` profile (us-east-1, us-east-2, us-west-2)';

/** Per model family of the Bedrock engine (lambdas/moteurs/bedrock/configuration.ts). */
export const MODELES_RESIDENCE: readonly ModeleResidence[] = [
  {
    nom: 'Stability AI Stable Image Inpaint',
    modele: 'stability.stable-image-inpaint-v1:0',
    contexte: 'modeleInpaint',
    outils: ['vider', 'staging'],
    ailleurs: US_STABILITY,
    source: 'profils',
  },
  {
    nom: 'Stability AI Stable Image Control Structure',
    modele: 'stability.stable-image-control-structure-v1:0',
    contexte: 'modeleStructure',
    outils: ['renovation'],
    ailleurs: US_STABILITY,
    source: 'profils',
  },
  {
    nom: 'Stability AI Stable Image Search and Replace',
    modele: 'stability.stable-image-search-replace-v1:0',
    contexte: 'modeleRemplacement',
    outils: ['saison', 'ciel'],
    ailleurs: US_STABILITY,
    source: 'profils',
  },
  {
    nom: 'Anthropic Claude Haiku 4.5',
    modele: 'anthropic.claude-haiku-4-5-20251001-v1:0',
    contexte: 'modeleTexte',
    outils: ['annonce'],
    ue: { profil: { id: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0', destinations: depuisChaque(SIX_UE) } },
    ailleurs: '`us.`, `jp.`, `au.` and `global.` profiles (the last one routes to any commercial Region)',
    source: 'profils',
  },
];

/** Amazon Rekognition Image: the detector of every image tool (DetectLabels) and of blurring (DetectFaces, DetectText). */
export const REKOGNITION_RESIDENCE = {
  nom: 'Amazon Rekognition DetectLabels, DetectFaces, DetectText',
  outils: OUTILS_IMAGE as readonly IdOutil[],
  enRegion: ['eu-central-1', 'eu-south-2', 'eu-west-1'] as readonly string[],
  ailleurs: 'no endpoint in Paris, Stockholm or Milan; London (eu-west-2) is not in the EU',
  source: 'rekognition' as const,
};

/** The actions an EU stage's tool step is denied outside the EU, whatever its environment names. */
export const ACTIONS_MODELES = ['bedrock:InvokeModel', 'rekognition:DetectFaces', 'rekognition:DetectLabels', 'rekognition:DetectText'];

/** The default model per setting of an EU stage: its EU profile, where there is one. */
export const DEFAUTS_UE: Partial<Record<CleModele, string>> = Object.fromEntries(
  MODELES_RESIDENCE.flatMap((m) => (m.ue?.profil ? [[m.contexte, m.ue.profil.id]] : [])),
);

const liste = (regions: readonly string[]) => regions.join(', ');
const PREFIXE = /^([a-z-]+)\.(.+)$/;
const PREFIXES_GEO = new Set(['us', 'eu', 'apac', 'us-gov', 'jp', 'au', 'ca', 'global']);

/** The model's id without its geographic prefix, and that prefix (undefined for a foundation-model id). */
const decomposer = (id: string): { prefixe?: string; modele: string } => {
  const m = PREFIXE.exec(id);
  return m && PREFIXES_GEO.has(m[1]!) ? { prefixe: m[1]!, modele: m[2]! } : { modele: id };
};

const modeleConnu = (modele: string) => MODELES_RESIDENCE.find((m) => m.modele === modele);

/** The EU Regions, for a refusal to say where an EU stage may live. */
export const AIDE_REGIONS_UE = `EU Regions: ${Object.entries(REGIONS_UE)
  .map(([r, lieu]) => `${r} (${lieu})`)
  .join(', ')}`;

/**
 * Where a model id sends a request made from `regionBedrock`, from the facts above and in
 * lambdas/moteurs/bedrock/configuration.ts: an EU profile listed here, its exact destinations; another geographic
 * profile, the Regions of its geography (what the grant covers); a foundation-model id, that Region.
 */
export const routage = (id: string, regionBedrock: string): string => {
  const { prefixe, modele } = decomposer(id);
  if (prefixe === undefined) return `in-Region: ${regionBedrock} only`;
  if (prefixe === 'global') return 'to any commercial Region (a global. profile)';
  const profil = modeleConnu(modele)?.ue?.profil;
  const destinations = profil?.id === id ? profil.destinations[regionBedrock] : undefined;
  if (destinations) return `from ${regionBedrock} to ${liste(destinations)}`;
  return `within its geography (${prefixe}.; the grant allows ${liste(REGIONS_GEOGRAPHIE[prefixe] ?? [])})`;
};

/**
 * The model each setting names, for the settings whose tools the stage offers (`-c outils`): a tool
 * withdrawn from the stage calls nothing, so its model need not exist in the EU.
 */
export const modelesRequis = (modeles: ModelesBedrock, outils: readonly IdOutil[] = OUTILS): Partial<Record<CleModele, string>> => {
  const parCle: Record<CleModele, string> = {
    modeleInpaint: modeles.images.vider,
    modeleStructure: modeles.images.renovation,
    modeleRemplacement: modeles.images.saison,
    modeleTexte: modeles.texte,
  };
  return Object.fromEntries(MODELES_RESIDENCE.filter((m) => m.outils.some((o) => outils.includes(o))).map((m) => [m.contexte, parCle[m.contexte]]));
};

/** Whether the stage offers a tool that calls Rekognition. */
export const detectionRequise = (outils: readonly IdOutil[] = OUTILS): boolean => REKOGNITION_RESIDENCE.outils.some((o) => outils.includes(o));

export interface ChoixUe {
  /** The models the engine will call, and the Bedrock Region it calls them from. */
  modeles: ModelesBedrock;
  /** The tools the stage offers (`-c outils`); all when absent. */
  outils?: readonly IdOutil[];
  /** Where Rekognition is called. */
  regionDetection: string;
  /** The settings given with -c (the others are this stage's defaults), for the message. */
  donnes: ReadonlySet<string>;
}

/** Why one model setting would leave the EU, or nothing. */
const refusModele = (cle: CleModele, id: string, region: string, donne: boolean, outilsUe: readonly IdOutil[]): string | undefined => {
  const famille = MODELES_RESIDENCE.find((m) => m.contexte === cle)!;
  const outils = famille.outils.join(', ');
  const reglage = `${cle}=${id}${donne ? '' : ' (the default)'}, for ${outils},`;
  const { prefixe, modele } = decomposer(id);
  const connu = modeleConnu(modele);
  if (connu && connu.contexte !== cle) return `${reglage} is ${connu.nom}, a model of ${connu.contexte}, not of ${cle}.`;
  if (!connu?.ue) {
    const quoi = connu
      ? `would leave the EU: ${connu.nom} has no EU offer in Amazon Bedrock, ${connu.ailleurs}`
      : `is not in lib/residence.ts, so where it would run is unknown`;
    const faire = famille.ue?.profil
      ? `use -c ${cle}=${famille.ue.profil.id}`
      : `an EU stage cannot run ${outils} on Bedrock today: withdraw ${famille.outils.length > 1 ? 'them' : 'it'} from the stage ` +
        `(-c outils=${outilsUe.join(',') || '…'}), deploy it with -c moteur=local (previews, no model call), ` +
        `or name an EU model with -c ${cle}=… once AWS offers one and lib/residence.ts lists it with its source`;
    return `${reglage} ${quoi}; ${faire}.`;
  }
  if (prefixe === undefined) {
    if (connu.ue.enRegion?.includes(region)) return undefined;
    const profil = connu.ue.profil ? `; use its EU profile, -c ${cle}=${connu.ue.profil.id}` : '';
    return `${reglage} is not documented as invocable in-Region in ${region}${profil}.`;
  }
  if (prefixe !== 'eu' || connu.ue.profil?.id !== id) {
    const portee = prefixe === 'global' ? 'a global profile, which routes to any commercial Region' : `a ${prefixe}. profile, which routes outside the EU`;
    const profil = connu.ue.profil ? `; use -c ${cle}=${connu.ue.profil.id}` : '';
    return `${reglage} is ${portee}${profil}.`;
  }
  if (!connu.ue.profil.destinations[region]) {
    return `${reglage} cannot be called from ${region}: its EU source Regions are ${liste(Object.keys(connu.ue.profil.destinations))} (-c bedrockRegion=…).`;
  }
  return undefined;
};

/**
 * Stops the synth of an EU stage whose Bedrock engine would send anything outside the EU: a Bedrock or Rekognition
 * Region outside it, or a model that is neither an EU profile listed above (callable from that Region) nor a
 * model listed as in-Region there. Every problem is named in one message, each with what to do.
 */
export const verifierResidenceUe = ({ modeles, regionDetection, donnes, outils = OUTILS }: ChoixUe): void => {
  const problemes: string[] = [];
  const regionBedrock = modeles.region;
  const bedrockDonnee = donnes.has('bedrockRegion') ? '' : ' (the stage Region)';
  if (!(regionBedrock in REGIONS_UE)) {
    problemes.push(`bedrockRegion=${regionBedrock}${bedrockDonnee} is not an EU Region.`);
  }
  // What the stage could offer in the EU: the tools whose every model has an EU offer.
  const outilsUe = outils.filter((o) => MODELES_RESIDENCE.every((m) => !m.outils.includes(o) || m.ue !== undefined));
  for (const [cle, id] of Object.entries(modelesRequis(modeles, outils)) as [CleModele, string][]) {
    const refus = refusModele(cle, id, regionBedrock, donnes.has(cle), outilsUe);
    if (refus) problemes.push(refus);
  }
  const detectionDonnee = donnes.has('rekognitionRegion') ? '' : ' (the Bedrock Region)';
  // Rekognition is called by the image tools only.
  if (detectionRequise(outils)) {
    const choix = REKOGNITION_RESIDENCE.enRegion.join('|');
    if (!(regionDetection in REGIONS_UE)) {
      problemes.push(`rekognitionRegion=${regionDetection}${detectionDonnee} is not an EU Region; use -c rekognitionRegion=${choix}.`);
    } else if (!REKOGNITION_RESIDENCE.enRegion.includes(regionDetection)) {
      problemes.push(`rekognitionRegion=${regionDetection}${detectionDonnee} has no Amazon Rekognition; use -c rekognitionRegion=${choix}.`);
    }
  }
  if (problemes.length > 0) {
    throw new RefusDeConfiguration(
      `context residence=eu: this stage's Bedrock engine would call outside the EU.\n- ${problemes.join('\n- ')}\n${AIDE_REGIONS_UE}.`,
    );
  }
};

/**
 * The `bedrock:InvokeModel` resources of an EU stage, from the table only: an EU profile in the Bedrock Region
 * and its foundation model in each Region it routes to from there (the source Region is one of them); a model
 * invoked in-Region, in that Region. Never a `*` Region. Call verifierResidenceUe first.
 */
export const ressourcesIamUe = (modeles: ModelesBedrock, compte: string, partition = 'aws', outils: readonly IdOutil[] = OUTILS): string[] => {
  const region = modeles.region;
  const ids = [...new Set(Object.values(modelesRequis(modeles, outils)))].sort();
  return ids.flatMap((id) => {
    const { prefixe, modele } = decomposer(id);
    const offre = modeleConnu(modele)?.ue;
    if (prefixe === undefined && offre?.enRegion?.includes(region)) return [`arn:${partition}:bedrock:${region}::foundation-model/${modele}`];
    const destinations = prefixe === 'eu' && offre?.profil?.id === id ? offre.profil.destinations[region] : undefined;
    if (!destinations) throw new Error(`lib/residence.ts: ${id} has no EU offer callable from ${region} (verifierResidenceUe first)`);
    return [
      `arn:${partition}:bedrock:${region}:${compte}:inference-profile/${id}`,
      ...[...new Set([region, ...destinations])].sort().map((d) => `arn:${partition}:bedrock:${d}::foundation-model/${modele}`),
    ];
  });
};

const lien = (cle: keyof typeof SOURCES) => `[${SOURCES[cle].titre}](${SOURCES[cle].url})`;
const code = (s: string) => `\`${s}\``;

/** The table of docs/deployment.md (between `<!-- residence:debut -->` and `<!-- residence:fin -->`), rendered from the table above. */
export const tableauResidence = (): string => {
  const lignes = [
    '| Model or service | Tools | Setting (`-c`) | In an EU stage | Where it runs from an EU Region | Outside the EU | Source |',
    '|---|---|---|---|---|---|---|',
    ...MODELES_RESIDENCE.map((m) => {
      const profil = m.ue?.profil;
      const enRegion = m.ue?.enRegion;
      const dansUe = profil ? `${code(profil.id)} (the default)` : enRegion ? `${code(m.modele)}, in-Region` : '**nothing**: refused on Bedrock';
      const ou = profil
        ? `from ${liste(Object.keys(profil.destinations))}: routed to ${liste([...new Set(Object.values(profil.destinations).flat())].sort())}`
        : enRegion
          ? liste(enRegion)
          : '—';
      return `| ${m.nom} (${code(m.modele)}) | ${m.outils.join(', ')} | ${code(m.contexte)} | ${dansUe} | ${ou} | ${m.ailleurs} | ${lien(m.source)} |`;
    }),
    `| ${REKOGNITION_RESIDENCE.nom} | ${REKOGNITION_RESIDENCE.outils.join(', ')}; blurring | ${code('rekognitionRegion')} | in-Region | ${liste(REKOGNITION_RESIDENCE.enRegion)} | ${REKOGNITION_RESIDENCE.ailleurs} | ${lien(REKOGNITION_RESIDENCE.source)} |`,
  ];
  return lignes.join('\n');
};
