/**
 * A request checked against the stage's catalogue (GET /outils) and the balance (GET /solde) before its
 * photos are uploaded: a tool misspelt, a setting the tool lacks or too few credits would otherwise be
 * refused by POST /travaux only after every photo went up (up to 50 of 15 MB). The API stays the judge:
 * this finds what the catalogue says plainly (the tool, the settings' names, closed values, required ones,
 * lengths, how many photos) with the codes the API would give, and leaves everything else to it.
 */
import { ErreurRetouche } from './erreurs.js';
import type { DetailErreur, Outil } from './types.js';

export interface DemandeVerifiee {
  outil: string;
  valeurs?: Record<string, unknown>;
  nombreImages: number;
}

export const verifierDemande = (outils: Outil[], demande: DemandeVerifiee): void => {
  const outil = outils.find((o) => o.id === demande.outil);
  if (!outil) {
    const proche = outils.map((o) => o.id).find((id) => distance(id, demande.outil.toLowerCase()) <= 2);
    const suggestion = proche ? ` did you mean "${proche}"?` : '';
    const message = `outil "${demande.outil}" is not a tool of this stage:${suggestion} The tools are ${outils.map((o) => o.id).join(', ')} (GET /outils). Nothing was uploaded.`;
    throw refus('invalid_tool', message, [{ chemin: 'outil', message }]);
  }
  const details: DetailErreur[] = [];
  const valeurs = demande.valeurs ?? {};
  for (const [nom, valeur] of Object.entries(valeurs)) {
    const champ = outil.champs.find((c) => c.nom === nom);
    const chemin = `valeurs.${nom}`;
    if (!champ)
      details.push({ chemin, message: `${chemin} is not a setting of ${outil.id}; its settings are ${outil.champs.map((c) => c.nom).join(', ') || 'none'}` });
    else if (typeof valeur !== 'string') details.push({ chemin, message: `${chemin} must be a string` });
    else if (champ.valeurs && !champ.valeurs.includes(valeur))
      details.push({ chemin, message: `${chemin} must be one of ${champ.valeurs.map((v) => `"${v}"`).join(', ')}, not "${valeur}"` });
    else if (champ.longueur_max !== undefined && valeur.length > champ.longueur_max)
      details.push({ chemin, message: `${chemin} is at most ${champ.longueur_max} characters` });
  }
  for (const champ of outil.champs) {
    if (champ.requis && !(champ.nom in valeurs))
      details.push({ chemin: `valeurs.${champ.nom}`, message: `valeurs.${champ.nom} is required for ${outil.id}: ${champ.description}` });
  }
  if (details.length) {
    throw refus('invalid_settings', `${details.map((d) => d.message).join('; ')}. Nothing was uploaded.`, details);
  }
  if (demande.nombreImages > outil.images.max) {
    throw refus('too_many_images', `${outil.id} takes at most ${outil.images.max} images, not ${demande.nombreImages}. Nothing was uploaded.`, []);
  }
};

/**
 * The balance checked against what the request costs, before its photos go up, as POST /travaux checks
 * it (core/domaine/facturation.ts): the tool's `cout` per job, a job per image for a batch tool and one
 * for `annonce`; a test key's jobs cost nothing, but a balance below zero starts none. The API stays the
 * judge: images it does not start (`echecs`) are not charged, so this counts every image, an upper bound.
 */
export interface CoutVerifie {
  nombreImages: number;
  /** The balance, GET /solde. */
  credits: number;
  /** A test key (`rtch_test_…`): free jobs. */
  test: boolean;
}

export const verifierCredits = (outil: Outil, demande: CoutVerifie): void => {
  const travaux = outil.images.par_lot ? demande.nombreImages : 1;
  const requis = demande.test ? 0 : travaux * outil.cout;
  const { credits } = demande;
  if (credits >= requis && credits >= 0) return;
  const prix = travaux > 1 ? ` (${travaux} images × ${outil.cout} for ${outil.id})` : '';
  const message =
    credits < 0
      ? `The balance is ${credits} credits: below zero, it starts no job, not even a free one. Nothing was uploaded.`
      : `This request costs ${requis} credits${prix}; the balance is ${credits}: ${requis - credits} more needed. Nothing was uploaded.`;
  throw new ErreurRetouche({
    statut: 0,
    code: 'insufficient_credits',
    message,
    erreur: { code: 'insufficient_credits', message, details: [], credits, requis },
  });
};

const refus = (code: 'invalid_tool' | 'invalid_settings' | 'too_many_images', message: string, details: DetailErreur[]) =>
  new ErreurRetouche({ statut: 0, code, message, erreur: { code, message, details } });

/** Edits between two short names (Levenshtein), for "did you mean": a tool id is a word of a few letters. */
const distance = (a: string, b: string): number => {
  let precedente = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const ligne = [i];
    for (let j = 1; j <= b.length; j++) ligne[j] = Math.min(precedente[j]! + 1, ligne[j - 1]! + 1, precedente[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    precedente = ligne;
  }
  return precedente[b.length]!;
};
