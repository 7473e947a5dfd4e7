/**
 * The batch ZIP, streamed from S3 to S3: each result is read as a stream into archiver, whose output
 * goes to a multipart upload (lib-storage). Memory stays bounded by a few upload parts whatever the
 * batch weighs (50 × 15 MB would not fit a small Lambda otherwise). Images are stored, not
 * deflated: JPEG, PNG and WebP are compressed already, so deflate would spend CPU for nothing.
 */
import { PassThrough, Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ZipArchive } from 'archiver';

export interface FichierZip {
  /** S3 key of the file to put in the archive. */
  cle: string;
  /** Name inside the archive. */
  nom: string;
}

const DEJA_COMPRESSES = /\.(jpe?g|png|webp|zip)$/i;

/** Names inside the archive: no paths, no control characters, each unique ("a.jpg", "a (2).jpg"). */
export const nomsUniques = (noms: readonly string[]): string[] => {
  const vus = new Set<string>();
  return noms.map((nom) => {
    const propre = nom.replace(/[\\/\u0000-\u001f\u007f]+/g, '_').replace(/^\.+/, '_') || 'fichier';
    const point = propre.lastIndexOf('.');
    const [base, extension] = point > 0 ? [propre.slice(0, point), propre.slice(point)] : [propre, ''];
    let candidat = propre;
    for (let n = 2; vus.has(candidat.toLowerCase()); n++) candidat = `${base} (${n})${extension}`;
    vus.add(candidat.toLowerCase());
    return candidat;
  });
};

/** `etiquettes`: the object's tags, as a query string (`k=v&k2=v2`), set by the very request that creates it. */
export const ecrireZip = async (opts: {
  s3: S3Client;
  bucket: string;
  cle: string;
  fichiers: readonly FichierZip[];
  etiquettes?: string;
}): Promise<{ octets: number }> => {
  const archive = new ZipArchive({ zlib: { level: 6 } });
  // archiver's streams are not node:stream instances, which lib-storage checks for: bridge them.
  const sortie = new PassThrough();
  archive.pipe(sortie);
  const envoi = new Upload({
    client: opts.s3,
    // Tagging goes with the PutObject or CreateMultipartUpload itself: the object never exists untagged.
    params: { Bucket: opts.bucket, Key: opts.cle, Body: sortie, ContentType: 'application/zip', ...(opts.etiquettes ? { Tagging: opts.etiquettes } : {}) },
    partSize: 8 * 1024 * 1024,
    queueSize: 2,
    leavePartsOnError: false,
  });
  let echec: unknown;
  const arreter = (erreur: unknown) => {
    echec ??= erreur;
    archive.abort();
    void envoi.abort().catch(() => undefined);
  };
  archive.on('error', arreter);
  archive.on('warning', arreter);
  const termine = envoi.done();

  const noms = nomsUniques(opts.fichiers.map((f) => f.nom));
  try {
    for (const [i, fichier] of opts.fichiers.entries()) {
      const { Body } = await opts.s3.send(new GetObjectCommand({ Bucket: opts.bucket, Key: fichier.cle }));
      if (!(Body instanceof Readable)) throw new Error(`no stream for result ${i + 1} of the ZIP`);
      // One entry at a time: archiver reads the next source only after this one ended.
      const lu = new Promise<void>((resoudre, rejeter) => {
        Body.once('end', resoudre);
        Body.once('error', rejeter);
      });
      archive.append(Body, { name: noms[i]!, store: DEJA_COMPRESSES.test(noms[i]!) });
      await lu;
      if (echec) throw echec;
    }
    await archive.finalize();
    await termine;
  } catch (erreur) {
    arreter(erreur);
    await termine.catch(() => undefined);
    throw echec ?? erreur;
  }
  if (echec) throw echec;
  return { octets: archive.pointer() };
};
