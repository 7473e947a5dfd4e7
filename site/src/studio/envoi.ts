/**
 * A launch's photos, uploaded straight to storage before its jobs start: announced together (POST /televersements),
 * then each PUT to its signed URL with its own progress. A retry sends again only what has no usable upload.
 */
import { annoncer, deposer } from './appels';
import type { Suivi } from './demande';

/** Three PUTs at a time: the connection is shared, and the first photos finish (and show) sooner. */
const ENVOIS_SIMULTANES = 3;

/** An upload is good for a job until 30 minutes after its announcement; a minute is kept for the POST. */
const utilisable = (s: Suivi) => s.envoi >= 1 && s.televersement !== undefined && Date.parse(s.televersement.utilisable_jusqua) - Date.now() > 60_000;

const parPaquets = async <T>(elements: T[], n: number, faire: (e: T) => Promise<void>) => {
  const file = [...elements];
  await Promise.all(
    Array.from({ length: Math.min(n, file.length) }, async () => {
      for (let e = file.shift(); e !== undefined; e = file.shift()) await faire(e);
    }),
  );
};

export class EnvoiIncomplet extends Error {
  constructor(readonly rates: number) {
    super('upload');
  }
}

/**
 * Only the photos without a usable upload: a retry sends again what failed, nothing else. `actif` is false once the
 * page is left: an upload cut then is no failure to show.
 */
export const envoyerPhotos = async (suivis: Suivi[], signal: AbortSignal, actif: () => boolean): Promise<void> => {
  const aEnvoyer = suivis.filter((s) => !utilisable(s));
  if (aEnvoyer.length === 0) return;
  const televersements = await annoncer(aEnvoyer.map((s) => ({ nom: s.photo.fichier.name.slice(0, 255), type: s.photo.type, taille: s.photo.fichier.size })));
  aEnvoyer.forEach((s, i) => {
    s.televersement = televersements[i];
    s.envoi = 0;
    s.envoiRate = false;
  });
  await parPaquets(aEnvoyer, ENVOIS_SIMULTANES, async (s) => {
    try {
      await deposer(s.televersement!, s.photo.fichier, (part) => (s.envoi = part), signal);
    } catch (e) {
      if (!actif()) throw e;
      s.envoi = 0;
      s.envoiRate = true;
    }
  });
  const rates = aEnvoyer.filter((s) => s.envoiRate).length;
  if (rates > 0) throw new EnvoiIncomplet(rates);
};
