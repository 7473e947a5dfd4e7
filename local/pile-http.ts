/**
 * The local stack's HTTP side (local/pile.ts): the gateway with the API's handlers (the same modules
 * Lambda runs), the link-checking file server, the web site, and the link signers, one per host the
 * stack answers on, so a page opened at 127.0.0.1 gets its links on 127.0.0.1.
 */
import type { Dependances } from '../lambdas/core/infra/dependances';
import { creerSignataire } from '../lambdas/core/infra/liens';
import type { SignerLien } from '../lambdas/core/modele/enregistrements';
import type { HandlerHttp } from '../lambdas/http/adaptateur';
import { ROUTES } from '../lambdas/http/routes';
import type { DependancesPipeline } from '../lambdas/pipeline/dependances-pipeline';
import type { CognitoLocal } from './cognito';
import { CHEMIN_FICHIERS, servirFichiers } from './fichiers';
import { enteteHote, hoteAccepte, hoteCourant, hotesLocaux, pendant } from './hotes';
import { demarrerPasserelle } from './passerelle';
import { clientS3Local } from './s3';
import { servirSite } from './site';

const importerHttp = async (fonction: string, deps: () => Promise<Dependances>): Promise<HandlerHttp> => {
  // The MCP route's handler lives with the MCP server (lib/fonction.ts, SOURCES_HORS_LAMBDAS).
  const module = (await (fonction === 'mcp' ? import('../clients/mcp/src/lambda') : import(`../lambdas/http/${fonction}.ts`))) as {
    creer: (deps: () => Promise<Dependances>) => HandlerHttp;
  };
  return module.creer(deps);
};

/**
 * A handler run with its request's host known to the link signer (local/hotes.ts), when that host is
 * one of the stack's own: the studio opened at 127.0.0.1 gets its result links on 127.0.0.1.
 */
const avecHote =
  (handler: HandlerHttp, hotes: () => readonly string[]): HandlerHttp =>
  (event, contexte) =>
    pendant(hoteAccepte(enteteHote(event.headers), hotes()), () => handler(event, contexte));

/** Each route's handler; `hotes`: the stack's own hosts, known once the gateway has its port (no request comes before). */
const handlersHttp = async (
  enregistrement: boolean,
  fournirPour: (fonction: string) => () => Promise<DependancesPipeline>,
  hotes: () => readonly string[],
): Promise<Record<string, HandlerHttp>> => {
  const handlers: Record<string, HandlerHttp> = {};
  // The construct's name in lib/api.ts (only loaded when recording: it brings aws-cdk-lib).
  const nomConstruct = enregistrement ? (await import('../lib/api')).nomConstruct : (f: string) => f;
  for (const fonction of [...new Set([...ROUTES.map((r) => r.fonction), 'introuvable'])])
    handlers[fonction] = avecHote(await importerHttp(fonction, fournirPour(`Api/${nomConstruct(fonction)}`)), hotes);
  return handlers;
};

/** One signer per host the stack answers on; a request by another Host header (or none: the pipeline, webhook deliveries) gets links on the first, localhost. */
const signataire = (hotes: readonly string[], cles: { id: string; privee: string }, horloge: () => Date): SignerLien => {
  const signataires = new Map(
    hotes.map((hote) => [hote, creerSignataire({ base: `http://${hote}${CHEMIN_FICHIERS}`, idCle: cles.id, clePrivee: cles.privee }, horloge)]),
  );
  const signerParDefaut = signataires.get(hotes[0]!)!;
  return (cle, telechargement) => (signataires.get(hoteCourant() ?? '') ?? signerParDefaut)(cle, telechargement);
};

export interface OptionsHttp {
  /** 0: any free port. */
  port: number;
  site?: { dossier?: string };
  /** Every AWS call recorded (ConfigPile.enregistreur): the handlers are named by their construct. */
  enregistrement: boolean;
  fournirPour: (fonction: string) => () => Promise<DependancesPipeline>;
  s3Endpoint: string;
  bucket: string;
  cognito?: CognitoLocal;
  cles: { id: string; privee: string; publique: string };
  horloge: () => Date;
}

/** The gateway listening (its stop pushed on `arrets`), and what the dependencies need of it. */
export const demarrerHttp = async (o: OptionsHttp, arrets: (() => Promise<void>)[]) => {
  let hotes: readonly string[] = [];
  const handlers = await handlersHttp(o.enregistrement, o.fournirPour, () => hotes);
  let fichiers: ReturnType<typeof servirFichiers> | undefined;
  const cognito = o.cognito;
  if (o.site && !cognito) throw new Error('the web site needs the user pool: ask for sessions too');
  const site =
    o.site && cognito
      ? servirSite({
          ...o.site,
          configuration: { api: '/api/v1', cognito: { region: 'us-east-1', client: cognito.client, endpoint: cognito.endpoint } },
          // The upload URLs are presigned on the front of the local S3 (objetsLocaux): the studio PUTs there.
          televersements: o.s3Endpoint,
        })
      : undefined;
  const passerelle = await demarrerPasserelle({
    port: o.port,
    handlers,
    autres: async (requete, reponse) => (fichiers ? await fichiers(requete, reponse) : false) || (site ? await site(requete, reponse) : false),
  });
  arrets.push(passerelle.arreter);
  hotes = hotesLocaux(passerelle.port);
  const signer = signataire(hotes, o.cles, o.horloge);
  const clientS3 = clientS3Local(o.s3Endpoint);
  fichiers = servirFichiers({ s3: clientS3, bucket: o.bucket, hotes, clesPubliques: { [o.cles.id]: o.cles.publique }, horloge: o.horloge });
  return { port: passerelle.port, signer, clientS3 };
};
