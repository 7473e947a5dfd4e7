/**
 * Step "Preparer": marks the job `en_cours`, then makes sure every input is a checked image in S3.
 * Uploaded images are already there (checked by POST /travaux); an https URL is fetched here, with
 * the SSRF guard and the size cap of core/infra/telechargement.ts, and its bytes checked the same way
 * (format and, from the header, pixel count).
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { commencerTravail } from '../core/domaine/cycle';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { s3DepuisEnv } from '../core/infra/client-s3';
import { creerTelechargeur } from '../core/infra/telechargement';
import { dependancesAvec, unePourConteneur } from '../core/infra/dependances';
import type { DependancesPreparation } from './dependances-pipeline';
import { depasseLimite, lireDimensions, messageTropGrande } from '../core/modele/dimensions';
import { ErreurTravail } from '../core/modele/erreurs';
import { detecterFormat, messageIllisible, TYPES_MIME } from '../core/modele/images';
import { cleEntree } from '../core/modele/cles-s3';
import { etape } from './etape';

export const creer = (deps: () => Promise<DependancesPreparation>) =>
  etape(deps, 'preparer', async (etat, d) => {
    const travail = await commencerTravail(d, etat.travail);
    const entrees = await Promise.all(
      travail.entrees.map(async (entree, rang) => {
        if (entree.type === 's3') return entree.cle;
        const octets = await d.telecharger(entree.url);
        const format = detecterFormat(octets);
        if (!format) throw new ErreurTravail('image_illisible', messageIllisible(octets, 'The downloaded file'));
        // A small file can announce gigapixels: refused before any step decodes it.
        const dimensions = lireDimensions(octets);
        if (dimensions && depasseLimite(dimensions)) {
          throw new ErreurTravail('image_trop_grande', messageTropGrande(dimensions, 'The downloaded image'));
        }
        const cleObjet = cleEntree(travail.compte, travail.id, rang, format);
        await d.s3.send(new PutObjectCommand({ Bucket: d.bucket, Key: cleObjet, Body: octets, ContentType: TYPES_MIME[format] }));
        return cleObjet;
      }),
    );
    return { entrees };
  });
// DynamoDB, S3 (the fetched inputs) and the downloader.
const base = dependancesAvec({ ddb: documentDepuisEnv, s3: s3DepuisEnv });
export const handler = creer(unePourConteneur(async () => ({ ...(await base()), telecharger: creerTelechargeur() })));
