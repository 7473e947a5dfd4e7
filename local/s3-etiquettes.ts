/**
 * The tags S3 sets from an `x-amz-tagging` header, which s3rver ignores (it keeps tags given by
 * PutObjectTagging): the front of the local S3 (local/s3-verifiant.ts) holds the header of each
 * multipart upload under way, and sets the tags on the object once s3rver has it.
 */
import http from 'node:http';
import { xmlEtiquettes } from './s3-reponses';
import { pairesQuery } from './s3-signature';

/** What a successful answer of s3rver to `req` needs done before it goes back, if anything. */
export type SuiteEtiquettes = (req: http.IncomingMessage) => ((corps: Buffer) => Promise<void>) | undefined;

/** `portAmont`: s3rver's port on 127.0.0.1. */
export const creerEtiquettes = (portAmont: number, agent: http.Agent): SuiteEtiquettes => {
  const etiquettesEnvois = new Map<string, string>();

  /** PutObjectTagging to s3rver (which checks no signature), for an object at `chemin` (/<bucket>/<key>). */
  const etiqueter = (chemin: string, entete: string): Promise<number> =>
    new Promise((resoudre, rejeter) => {
      const corps = xmlEtiquettes(entete);
      const requete = http.request(
        {
          host: '127.0.0.1',
          port: portAmont,
          method: 'PUT',
          path: `${chemin}?tagging`,
          headers: { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(corps) },
          agent,
        },
        (reponse) => {
          reponse.resume();
          reponse.on('end', () => resoudre(reponse.statusCode ?? 502));
        },
      );
      requete.on('error', rejeter);
      requete.end(corps);
    });

  /**
   * What a successful answer of s3rver needs before it goes back: the tags of the PutObject or of the
   * completed multipart upload it answers. The answer's body is held (a few hundred bytes of XML) when
   * it carries a new upload's id.
   */
  const suiteEtiquettes = (req: http.IncomingMessage): ((corps: Buffer) => Promise<void>) | undefined => {
    const url = req.url ?? '/';
    const point = url.indexOf('?');
    const chemin = point < 0 ? url : url.slice(0, point);
    const query = new Map(pairesQuery(point < 0 ? '' : url.slice(point + 1)));
    const entete = req.headers['x-amz-tagging'];
    const tags = typeof entete === 'string' && entete !== '' ? entete : undefined;
    if (req.method === 'PUT' && tags && query.size === 0 && req.headers['x-amz-copy-source'] === undefined) {
      return async () => void (await etiqueter(chemin, tags));
    }
    if (req.method === 'POST' && tags && query.has('uploads')) {
      return async (corps) => {
        const id = /<UploadId>([^<]+)<\/UploadId>/.exec(corps.toString('utf8'))?.[1];
        if (id) etiquettesEnvois.set(id, tags);
      };
    }
    const envoi = query.get('uploadId');
    if (req.method === 'POST' && envoi !== undefined && etiquettesEnvois.has(envoi)) {
      return async () => {
        const differees = etiquettesEnvois.get(envoi)!;
        etiquettesEnvois.delete(envoi);
        await etiqueter(chemin, differees);
      };
    }
    return undefined;
  };

  return suiteEtiquettes;
};
