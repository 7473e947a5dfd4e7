/**
 * GET /fichiers/{cleObjet+} — only where CloudFront is not deployed (`-c liens=api`, for LocalStack): the
 * same signed links are checked here exactly as CloudFront checks them (core/infra/liens.ts), then the
 * client is redirected to a one-minute S3 URL. That short URL is used at once, so the role's
 * temporary credentials cannot expire under it; the link the customer keeps is the 24-hour one. A
 * download link's signed Content-Disposition is asked of S3 again; a display link's S3 URL asks none,
 * as CloudFront forwards the link's `response-content-disposition` and nothing else.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ErreurApi } from '../core/modele/erreurs';
import { verifierLien } from '../core/infra/liens';
import { nomDeDisposition } from '../core/modele/disposition';
import { objetsDepuisEnv, type Objets } from '../core/infra/objets';
import { routePublique } from './adaptateur';

export interface ConfigFichier {
  /** The bucket's objects, presigned without the S3 client (core/infra/objets.ts). */
  objets: Objets;
  /** Base of the links as signed: `https://…/v1/api/v1/fichiers`. */
  base: string;
  clesPubliques: Readonly<Record<string, string>>;
  horloge: () => Date;
}

export const VALIDITE_REDIRECTION_SECONDES = 60;

const decoderSansErreur = (texte: string): string => {
  try {
    return decodeURIComponent(texte);
  } catch {
    return texte;
  }
};

/** RFC 3986, as core/infra/liens.ts writes a link's query: the gateway hands it decoded. */
const encoder = (texte: string): string => encodeURIComponent(texte).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The link as the client holds it: the base, the object path (re-encoded as signed), the query (likewise). */
const lienDe = (event: APIGatewayProxyEvent, base: string): string => {
  const cleObjet = event.pathParameters?.proxy ?? '';
  // Whether the gateway hands the path decoded or not, keys never hold '%' (see nomFichier), so
  // decoding then encoding gives the path exactly as it was signed.
  const chemin = cleObjet
    .split('/')
    .map((morceau) => encodeURIComponent(decoderSansErreur(morceau)))
    .join('/');
  const requete: string[] = [];
  for (const [nom, valeurs] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    for (const valeur of valeurs ?? []) requete.push(`${encoder(nom)}=${encoder(valeur)}`);
  }
  return `${base.replace(/\/$/, '')}/${chemin}?${requete.join('&')}`;
};

export const creer = (config: () => ConfigFichier) =>
  routePublique(async (event) => {
    const c = config();
    const verification = verifierLien(lienDe(event, c.base), c.clesPubliques, c.base, c.horloge());
    if (!verification.valide) {
      throw new ErreurApi('forbidden', `This link is not valid (${verification.raison}); fetch the job again for a fresh link.`);
    }
    // The name the signed disposition gives (written by core/modele/disposition.ts, so it reads back).
    const nom = verification.disposition === undefined ? null : (nomDeDisposition(verification.disposition) ?? verification.cle.split('/').pop() ?? 'fichier');
    const url = await c.objets.urlLecture(verification.cle, nom, VALIDITE_REDIRECTION_SECONDES);
    return { statusCode: 302, headers: { Location: url, 'Cache-Control': 'no-store' }, body: '' };
  });

let cache: ConfigFichier | undefined;
export const handler = creer(() => {
  const env = process.env;
  cache ??= {
    objets: objetsDepuisEnv(env),
    base: env.RETOUCHE_LIENS_BASE ?? '',
    clesPubliques: { [env.RETOUCHE_LIENS_CLE_ID ?? '']: env.RETOUCHE_LIENS_CLE_PUBLIQUE ?? '' },
    horloge: () => new Date(),
  };
  return cache;
});
