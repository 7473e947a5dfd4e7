/**
 * What the C2PA manifest of a result says, as the JSON c2pa-rs builds it from: the actions (how the
 * image was made, by which tool and engine, and any blur), the input as an ingredient known by its
 * SHA-256 only, and the builder's settings.
 */
import { TYPES_MIME, type FormatImage } from '../../core/modele/images';
import type { Floutage } from '../../core/modele/sorties';
import { LOGICIEL as NOM_LOGICIEL, TYPES_SOURCE, type NatureResultat } from '../commun/provenance';

export interface OptionsC2pa {
  /** Retouching tool, e.g. 'ciel'. */
  outil: string;
  /** Engine that ran it: 'bedrock' or 'local'. */
  moteur: string;
  /** How the result was made (commun/provenance.ts): the action and the IPTC digital source type. */
  nature: NatureResultat;
  /** The input photo, known by its SHA-256 only: none of its pixels go into the result. */
  entree: { hash: Buffer; format: string; titre?: string };
  /**
   * The other photos merged into the result (fusion: the exposures beside the reference `entree`), each a
   * componentOf ingredient known by its SHA-256 only, named by the edit that used them.
   */
  composants?: readonly { hash: Buffer; format: string; titre?: string }[];
  /** Faces and plates blurred after the edit (moteurs/commun/floutage.ts): one more action, c2pa.filtered. */
  floutage?: Floutage | null;
  /** ES256 (P-256) private key of the leaf certificate, PEM (PKCS#8 or SEC1). */
  clePrivee: string;
  /** PEM certificates: the leaf first, then the CA(s) that issued it. */
  chaine: string[];
}

export type OptionsSansCle = Omit<OptionsC2pa, 'clePrivee'>;

const LOGICIEL = { name: 'Retouche', version: '1.0.0' } as const;
const ID_ENTREE = 'entree';

/** "2 faces and 1 number plate": only the kinds found. */
const decompte = (visages: number, plaques: number): string =>
  [visages > 0 ? `${visages} face${visages > 1 ? 's' : ''}` : '', plaques > 0 ? `${plaques} number plate${plaques > 1 ? 's' : ''}` : '']
    .filter(Boolean)
    .join(' and ');

/**
 * The manifest definition given to c2pa-rs. C2PA 2.x validation requires the first action to be
 * c2pa.opened or c2pa.created, and an opened action to point at a parentOf ingredient. So an edit is
 * opened(the input) then edited(with the IPTC digital source type); an image rendered whole is
 * created(with its digital source type), the input being what it was made from (inputTo).
 */
export function definitionManifeste(format: FormatImage, o: OptionsSansCle, quand: string): object {
  const parametres = { 'fr.retouche': { outil: o.outil, moteur: o.moteur } };
  // Captured photos merged (fusion) are the same work on every engine: no preview, no model to name.
  const captures = o.nature.source === 'compositeCapture';
  const description = captures
    ? `Merged by ${NOM_LOGICIEL}, tool ${o.outil}, from ${1 + (o.composants?.length ?? 0)} captured exposures (no AI model)`
    : `${o.nature.action === 'c2pa.created' ? 'Rendered' : 'Edited'} by ${NOM_LOGICIEL}, tool ${o.outil}, engine ${o.moteur}${
        o.moteur === 'local' ? ' (local preview, no AI model)' : ''
      }`;
  // The agent of the edit names the tool and the engine that made the image.
  const qui = captures ? 'exposure fusion' : o.moteur === 'local' ? 'local preview' : `engine ${o.moteur}`;
  const agent = { name: `${LOGICIEL.name} ${o.outil} (${qui})`, version: LOGICIEL.version };
  const ia = { digitalSourceType: TYPES_SOURCE[o.nature.source], softwareAgent: agent, description, when: quand };
  const actions: object[] =
    o.nature.action === 'c2pa.created'
      ? [{ action: 'c2pa.created', ...ia, parameters: { ...parametres, ingredientIds: [ID_ENTREE] } }]
      : [
          { action: 'c2pa.opened', when: quand, softwareAgent: LOGICIEL, parameters: { ingredientIds: [ID_ENTREE] } },
          {
            action: 'c2pa.edited',
            ...ia,
            parameters: { ...parametres, ...(o.composants?.length ? { ingredientIds: o.composants.map((_, i) => idComposant(i)) } : {}) },
          },
        ];
  // The blur is ours, not the model's: an ordinary filter, said with what it hid, and only when it hid
  // something: a blur asked for that found nothing is no action on the image (the job says 0 found).
  if (o.floutage && o.floutage.visages + o.floutage.plaques > 0) {
    const { reglage, visages, plaques } = o.floutage;
    actions.push({
      action: 'c2pa.filtered',
      when: quand,
      softwareAgent: LOGICIEL,
      description: `${decompte(visages, plaques)} found in the image blurred beyond recognition by ${NOM_LOGICIEL}`,
      parameters: { 'fr.retouche': { floutage: reglage, visages, plaques } },
    });
  }
  return {
    claim_version: 2,
    claim_generator_info: [LOGICIEL],
    title: `retouche.${format === 'jpeg' ? 'jpg' : format}`,
    format: TYPES_MIME[format],
    assertions: [
      {
        label: 'c2pa.actions.v2',
        // Our software performed these actions: a "created" assertion in C2PA 2.x terms (default: gathered).
        created: true,
        data: { actions },
      },
    ],
  };
}

/**
 * The input photo as a parentOf ingredient known only by its SHA-256: no `data`, no `thumbnail`,
 * no manifest_data, so none of its pixels travel in the output. `label` is only the id the action's
 * ingredientIds refers to; c2pa-rs names the assertion itself (c2pa.ingredient.v3).
 */
export function definitionIngredient(e: OptionsC2pa['entree'], relation: 'parentOf' | 'inputTo' | 'componentOf', label: string = ID_ENTREE): string {
  const hex = e.hash.toString('hex');
  if (e.hash.length !== 32) throw new Error('entree.hash must be a SHA-256 (32 bytes)');
  return JSON.stringify({
    title: e.titre ?? label,
    format: e.format.includes('/') ? e.format : `image/${e.format === 'jpg' ? 'jpeg' : e.format}`,
    relationship: relation,
    instance_id: `sha256:${hex}`,
    label,
  });
}

/** The label of the i-th merged photo beside the reference (fusion). */
export const idComposant = (i: number): string => `composant-${i + 1}`;

// Builder settings (c2pa-rs Settings, JSON).
//  - thumbnail off: this build cannot make one anyway, but the output must never carry pixels.
//  - verify_after_sign(_hash): c2pa-rs re-validates the signed file before returning it, including the
//    data hash. Without the hash part, a COSE of the wrong size is accepted at signing time and only
//    shows up later as "assertion.dataHash.mismatch" in readers (checked). Trust is not required here:
//    an untrusted chain (our own CA) does not fail this check.
export const CONTEXTE_BUILDER = JSON.stringify({
  builder: { thumbnail: { enabled: false } },
  verify: { verify_after_sign: true, verify_after_sign_hash: true },
});
