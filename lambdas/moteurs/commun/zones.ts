/**
 * The edited area of vider and staging, built from what the detector found in the photo (the same
 * code for Rekognition's boxes in production and the local detector's in previews), at the photo's
 * full resolution. A fixed rectangle repainted windows, radiators and doors and cut tall furniture;
 * these masks follow the room:
 * - vider: the furniture's boxes, grown so the model sees each outline and its shadow;
 * - staging: the free floor and the height furniture standing on it would rise to, never over the
 *   furniture already there;
 * - both: never the fixed elements' boxes (windows, doors, radiators…), whatever overlaps them. A sofa
 *   in front of a radiator keeps that part of itself: the price of a window that never moves.
 * Nothing to edit is said, not guessed: no furniture → `rien_a_retirer`, no free floor, an exterior
 * or a furnished room → `sol_introuvable`, rather than repainting half of the room.
 */
import sharp from 'sharp';
import { ErreurTravail } from '../../core/modele/erreurs';
import { mesurerCiel, PART_CIEL_DEHORS } from './ciel-masque';
import { adoucirInterieur, bornesRectangle, type Rectangle } from './masques';
import { preuveDExterieur, preuveDInterieur, type ObjetDetecte } from './detection';
import type { Pixels } from './pixels';
import { trouverSol } from './sol';

export interface ZoneOutil {
  /** 0/255, photo resolution: what the model may repaint. */
  masque: Buffer;
  /** Feathered version of masque (soft edge inside the mask), for compositing. */
  alpha: Uint8Array;
  /** 0/255, photo resolution: the fixed elements' boxes (grown slightly): what must never move. */
  fixes: Buffer;
  objets: ObjetDetecte[];
}

/** Furniture boxes grow by this share of the short side: the model needs the outline and the shadow. */
const MARGE_MEUBLE = 0.02;
/** Fixed elements' boxes grow by this share: their frame and reveal, which detectors' boxes cut close. */
const MARGE_FIXE = 0.01;
/** Under this share of the frame, the furniture mask is a speck: nothing worth a model's run. */
const PART_MIN_VIDER = 0.005;
/** Under this share of the frame, there is no floor to furnish. */
const PART_MIN_SOL = 0.03;
/** Furniture standing on the floor rises above it by this share of the floor's depth in that column. */
const HAUTEUR_MEUBLES = 0.5;

const aire = (r: Rectangle): number => (r.x1 - r.x0) * (r.y1 - r.y0);

const grandir = (r: Rectangle, mx: number, my: number): Rectangle => ({
  x0: Math.max(0, r.x0 - mx),
  y0: Math.max(0, r.y0 - my),
  x1: Math.min(1, r.x1 + mx),
  y1: Math.min(1, r.y1 + my),
});

/** The boxes of one nature, each grown by `marge` of the short side, filled with 255 on a photo-size mask. */
const remplirBoites = (largeur: number, hauteur: number, objets: readonly ObjetDetecte[], nature: ObjetDetecte['nature'], marge: number): Buffer => {
  const masque = Buffer.alloc(largeur * hauteur);
  const cote = marge * Math.min(largeur, hauteur);
  for (const o of objets) {
    if (o.nature !== nature) continue;
    const { x0, x1, y0, y1 } = bornesRectangle(largeur, hauteur, grandir(o.boite, cote / largeur, cote / hauteur));
    for (let y = y0; y < y1; y++) masque.fill(255, y * largeur + x0, y * largeur + x1);
  }
  return masque;
};

/** The fixed elements' boxes, grown slightly: 0/255 at the given size. The structure check compares there too. */
export const masqueFixes = (largeur: number, hauteur: number, objets: readonly ObjetDetecte[]): Buffer =>
  remplirBoites(largeur, hauteur, objets, 'fixe', MARGE_FIXE);

/** The share of a mask's pixels that are set (any non-zero value). */
export const part = (masque: Uint8Array | Buffer): number => {
  let n = 0;
  for (let i = 0; i < masque.length; i++) if (masque[i]) n++;
  return n / masque.length;
};

/** The fixed boxes taken out of a mask, in place: the fixed elements stay exactly the photo's. */
const sansFixes = (masque: Buffer, fixes: Buffer): Buffer => {
  for (let p = 0; p < masque.length; p++) if (fixes[p]) masque[p] = 0;
  return masque;
};

/** A mask already without the fixed boxes, feathered inside. */
const finir = async (photo: Pixels, masque: Buffer, fixes: Buffer, objets: readonly ObjetDetecte[]): Promise<ZoneOutil> => {
  const alpha = await adoucirInterieur(masque, photo.largeur, photo.hauteur);
  return { masque, alpha, fixes, objets: [...objets] };
};

export const zoneVider = async (photo: Pixels, objets: readonly ObjetDetecte[]): Promise<ZoneOutil> => {
  const { largeur, hauteur } = photo;
  const fixes = masqueFixes(largeur, hauteur, objets);
  const masque = sansFixes(remplirBoites(largeur, hauteur, objets, 'meuble', MARGE_MEUBLE), fixes);
  if (part(masque) < PART_MIN_VIDER) throw new ErreurTravail('rien_a_retirer');
  return finir(photo, masque, fixes, objets);
};

/**
 * The free floor on the analysis copy, and above it, per column, the space furniture standing on it
 * would fill: from the floor's top in that column up by HAUTEUR_MEUBLES of the floor's depth there.
 */
const solEtDessus = (sol: Uint8Array, l: number, h: number): Uint8Array => {
  const zone = Uint8Array.from(sol);
  for (let x = 0; x < l; x++) {
    let [haut, profondeur] = [-1, 0];
    for (let y = 0; y < h; y++) if (sol[y * l + x]) ((haut = haut < 0 ? y : haut), profondeur++);
    if (haut < 0) continue;
    for (let y = Math.max(0, Math.round(haut - HAUTEUR_MEUBLES * profondeur)); y < haut; y++) zone[y * l + x] = 1;
  }
  return zone;
};

/** Pieces that make a room furnished: one of them and staging has nothing to add (a bed on a bed). */
const PIECES_MAITRESSES = new Set(['Bed', 'Couch', 'Dining Table']);
/** A main piece this large (share of the frame) is in the room, not a toy or a picture of one. */
const PART_PIECE_MAITRESSE = 0.03;

/** What only a bathroom has; a sink with none of CUISINE beside it is a washbasin. */
const SANITAIRES = new Set(['Toilet', 'Bathtub', 'Shower']);
const CUISINE = new Set(['Oven', 'Stove', 'Refrigerator', 'Microwave']);

/**
 * When the request names the room (`piece`), what a detector found refuses it only from this score:
 * the agent who took the photo knows the room, a guess does not. Measured on test/photos (NanoDet): the
 * cars and trucks that tell a street score 0.48 to 0.62, no vehicle in an interior over 0.16.
 * Rekognition's labels come at 0.5 and more (bedrock/rekognition.ts).
 */
const PREUVE_FORTE = 0.4;
/**
 * …and the sky from this mean blue minus red (ciel-masque.ts mesurerCiel): the skies of test/photos,
 * overcast and sunset ones included, are 17 to 91; the white wall of a kitchen the sky rule still takes
 * for one is 7 (a bathroom's blue tiles are 47, but its washbasin tells an interior first).
 */
const BLEU_CIEL_FRANC = 15;

/** What the detectors' names are in an agent's words. */
const MOTS: Readonly<Record<string, string>> = {
  Couch: 'sofa',
  Sink: 'washbasin',
  Bathtub: 'bath',
};

/** "a car found, at the bottom left": what was seen and where, for a refusal an agent can check on the photo. */
const vu = ({ nom, boite: b }: ObjetDetecte): string => {
  const mot = MOTS[nom] ?? nom.toLowerCase();
  const [x, y] = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
  const [vertical, horizontal] = [y < 1 / 3 ? 'top' : y > 2 / 3 ? 'bottom' : '', x < 1 / 3 ? 'left' : x > 2 / 3 ? 'right' : ''];
  const ou =
    vertical && horizontal ? `at the ${vertical} ${horizontal}` : vertical ? `at the ${vertical}` : horizontal ? `on the ${horizontal}` : 'in the middle';
  return `${/^[aeiou]/.test(mot) ? 'an' : 'a'} ${mot} found, ${ou}`;
};

/**
 * Staging furnishes an empty room seen from inside: an exterior (sky in view, a lawn for a floor), a
 * bathroom or a room that already has its bed, sofa or table is refused, refunded, rather than charged
 * for furniture drawn on a lawn, over a toilet or over a bed. `indices`: the looser reading that tells
 * an interior and a bathroom (the local engine's; the objects themselves in production).
 * `piece`: the room the request names. Then the agent's word beats a guess: the photo is called
 * outside or a bathroom only on strong evidence (a vehicle or a toilet found at PREUVE_FORTE, a sky
 * with a daylight blue), never on a washbasin (many bedrooms have one, every kitchen its sink, which the
 * model calls one when it misses the cooker) nor on white walls the sky rule reads as an overcast sky
 * (an emptied living room, whose sofa no longer says "inside").
 */
const verifierPieceVide = (analyse: Pixels, objets: readonly ObjetDetecte[], indices: readonly ObjetDetecte[], piece?: string): void => {
  const fort = (o: ObjetDetecte) => !piece || o.confiance >= PREUVE_FORTE;
  // A bed, a sink or an oven in view: inside, even if a white wall reaches the top of the frame like a
  // sky. Otherwise a car or a traffic light says outside where no sky does (a street, a square at night).
  if (!preuveDInterieur(indices)) {
    const dehors = preuveDExterieur(indices.filter(fort));
    const ciel = dehors ? null : mesurerCiel(analyse);
    const cielVu = ciel !== null && ciel.part >= PART_CIEL_DEHORS && (!piece || ciel.bleu >= BLEU_CIEL_FRANC);
    if (dehors || cielVu)
      throw new ErreurTravail(
        'sol_introuvable',
        `This photo was taken outside (${dehors ? vu(dehors) : `the sky is in view at the top, ${Math.round(100 * ciel!.part)} % of the photo`}): staging furnishes an empty room photographed from inside.`,
      );
  }
  const sanitaire =
    indices.find((o) => SANITAIRES.has(o.nom) && fort(o)) ??
    (piece || indices.some((o) => CUISINE.has(o.nom)) ? undefined : indices.find((o) => o.nom === 'Sink'));
  if (sanitaire)
    throw new ErreurTravail(
      'sol_introuvable',
      `This looks like a bathroom (${vu(sanitaire)}): staging furnishes living rooms, bedrooms, kitchens, dining rooms and offices.`,
    );
  const meuble = objets.find((o) => o.nature === 'meuble' && PIECES_MAITRESSES.has(o.nom) && aire(o.boite) >= PART_PIECE_MAITRESSE);
  if (meuble)
    throw new ErreurTravail('sol_introuvable', `This room is already furnished (${vu(meuble)}): staging furnishes empty rooms; vider can empty it first.`);
};

/**
 * `piece`: the room the request names, if it does (staging's setting): what the detectors guess
 * otherwise then refuses the photo only on strong evidence (verifierPieceVide).
 */
export const zoneStaging = async (
  photo: Pixels,
  objets: readonly ObjetDetecte[],
  indices: readonly ObjetDetecte[] = objets,
  piece?: string,
): Promise<ZoneOutil> => {
  const { largeur, hauteur } = photo;
  const { analyse, sol } = await trouverSol(photo);
  const { largeur: l, hauteur: h } = analyse;
  verifierPieceVide(analyse, objets, indices, piece);
  // What stands on the floor or must not move is not free floor: out on the analysis copy first.
  const occupe = Buffer.concat([remplirBoites(l, h, objets, 'meuble', 0), remplirBoites(l, h, objets, 'fixe', MARGE_FIXE)]);
  const libre = Uint8Array.from(sol, (v, p) => (v && !occupe[p] && !occupe[p + l * h] ? 1 : 0));
  if (libre.reduce((a, v) => a + v, 0) < PART_MIN_SOL * l * h) throw new ErreurTravail('sol_introuvable');
  const zone = solEtDessus(libre, l, h);
  // To the photo's size, with the nearest analysis pixel: a hard mask, feathered once at full size.
  const octets = Buffer.from(zone.map((v) => (v ? 255 : 0)));
  const masque = await sharp(octets, { raw: { width: l, height: h, channels: 1 } })
    .resize(largeur, hauteur, { fit: 'fill', kernel: 'nearest' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  // Furniture already there stays: staging adds to a room, it does not repaint what it shows.
  const meubles = remplirBoites(largeur, hauteur, objets, 'meuble', 0);
  for (let p = 0; p < masque.length; p++) if (meubles[p]) masque[p] = 0;
  const fixes = masqueFixes(largeur, hauteur, objets);
  return finir(photo, sansFixes(masque, fixes), fixes, objets);
};
