/**
 * What `cdk synth` wrote, read for the local run of the template (local/pile-template.ts): the
 * template and its assets manifest, the asset behind an S3 key, the intrinsic functions the template
 * uses, and its API's routes. Nothing here starts anything.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const RACINE = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The Region and account the stand-ins play. */
export const REGION = 'us-east-1';
export const COMPTE = '000000000000';

export interface Ressource {
  Type: string;
  Properties?: Record<string, any>;
}
export interface Template {
  Resources: Record<string, Ressource>;
}
interface ManifesteAssets {
  files: Record<string, { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }>;
}

export interface Synthese {
  dossier: string;
  template: Template;
  assets: ManifesteAssets;
  /** What `cdk synth` printed, when `synthetiser` ran it. */
  sortieCdk?: { stdout: string; stderr: string };
}

/** `cdk synth` as a deploy runs it (the CLI, cdk.json's app, real bundling), into `dossier`. */
export const synthetiser = async (dossier: string, contexte: Record<string, string>): Promise<Synthese> => {
  const cdk = path.join(RACINE, 'node_modules', '.bin', 'cdk');
  // The Region these stand-ins play (a synth needs one named: bin/retouche.ts), unless the caller names another.
  const args = ['synth', '-q', '-o', dossier, ...Object.entries({ region: REGION, ...contexte }).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const { stdout, stderr } = await promisify(execFile)(cdk, args, {
    cwd: RACINE,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
  });
  const fichier = readdirSync(dossier).find((f) => f.endsWith('.template.json'));
  if (!fichier) throw new Error(`cdk synth wrote no template in ${dossier}`);
  return { ...lireSynthese(dossier, fichier.replace(/\.template\.json$/, '')), sortieCdk: { stdout, stderr } };
};

export const lireSynthese = (dossier: string, pile: string): Synthese => ({
  dossier,
  template: JSON.parse(readFileSync(path.join(dossier, `${pile}.template.json`), 'utf8')) as Template,
  assets: JSON.parse(readFileSync(path.join(dossier, `${pile}.assets.json`), 'utf8')) as ManifesteAssets,
});

/** The file or directory CloudFormation would get for an S3 key of the assets bucket. */
export const cheminAsset = (s: Synthese, cle: string): string => {
  for (const asset of Object.values(s.assets.files)) {
    if (Object.values(asset.destinations).some((d) => d.objectKey === cle)) return path.join(s.dossier, asset.source.path);
  }
  throw new Error(`no asset of the manifest is uploaded as ${cle}`);
};

/** What each reference of the template becomes locally. */
export interface Resolveur {
  ref(id: string): string;
  getAtt(id: string, attribut: string): string;
}

/** Resolves the intrinsic functions the template uses; anything else stops, rather than guessing. */
export const resoudre = (valeur: unknown, r: Resolveur): any => {
  if (typeof valeur === 'string' || typeof valeur === 'number' || typeof valeur === 'boolean' || valeur === null) return valeur;
  if (Array.isArray(valeur)) return valeur.map((v) => resoudre(v, r));
  const objet = valeur as Record<string, unknown>;
  const cles = Object.keys(objet);
  if (cles.length === 1 && (cles[0] === 'Ref' || cles[0]!.startsWith('Fn::'))) {
    const [fn, arg] = [cles[0]!, objet[cles[0]!] as any];
    switch (fn) {
      case 'Ref':
        return r.ref(arg);
      case 'Fn::GetAtt': {
        const [id, attribut] = typeof arg === 'string' ? arg.split(/\.(.*)/) : arg;
        return r.getAtt(id, attribut);
      }
      case 'Fn::Join':
        return (resoudre(arg[1], r) as string[]).join(arg[0]);
      case 'Fn::Select':
        return resoudre(arg[1], r)[Number(resoudre(arg[0], r))];
      case 'Fn::Split':
        return String(resoudre(arg[1], r)).split(arg[0]);
      case 'Fn::Sub': {
        const [texte, variables] = typeof arg === 'string' ? [arg, {}] : [arg[0] as string, resoudre(arg[1], r) as Record<string, string>];
        return texte.replace(/\$\{([^}!]+)\}/g, (_, nom: string) => {
          if (nom in variables) return variables[nom]!;
          const [id, attribut] = nom.split(/\.(.*)/);
          return attribut ? r.getAtt(id!, attribut) : r.ref(id!);
        });
      }
      default:
        throw new Error(`no local resolution for ${fn}`);
    }
  }
  return Object.fromEntries(Object.entries(objet).map(([k, v]) => [k, resoudre(v, r)]));
};

/** The template's resources of that type, with their logical ids. */
export const parType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);

/** The template's API methods: `METHOD /path` → logical id of the integration's function. */
export const routesDuTemplate = (t: Template): Map<string, string> => {
  const chemin = (ressource: unknown): string => {
    const ref = (ressource as { Ref?: string }).Ref;
    if (!ref) return ''; // GetAtt RestApi.RootResourceId
    const r = t.Resources[ref]!.Properties!;
    return `${chemin(r.ParentId)}/${r.PathPart as string}`;
  };
  const routes = new Map<string, string>();
  for (const [, methode] of parType(t, 'AWS::ApiGateway::Method')) {
    const p = methode.Properties!;
    const fonction = JSON.stringify(p.Integration?.Uri ?? '').match(/"Fn::GetAtt":\["(\w+)","Arn"\]/)?.[1];
    if (fonction && t.Resources[fonction]?.Type === 'AWS::Lambda::Function') routes.set(`${p.HttpMethod as string} ${chemin(p.ResourceId) || '/'}`, fonction);
  }
  return routes;
};
