/** The words of a refused `POST /travaux` (JSON or form): tool, settings, images (formulation.ts says how). */
import { ErreurApi, type CodeApi } from '../../modele/erreurs';
import { CATALOGUE, OUTILS, type Champ, type IdOutil } from '../../modele/outils';
import { verifierRequete, type RequeteValidee } from '../schemas';
import { suggerer } from '../suggestions';
import {
  type Issue,
  type Probleme,
  type Segment,
  capitale,
  cheminJson,
  citer,
  estObjet,
  et,
  feuille,
  genre,
  guillemets,
  horsListe,
  nature,
  ou,
  premiersParChemin,
  refuser,
  sansDoublons,
  segments,
} from './formulation';

/** Members of the objects the schemas declare (a unit test holds them equal to schemas.ts). */
export const MEMBRES_CORPS = ['outil', 'valeurs', 'images'] as const;

export const SOURCES_IMAGE = ['url', 'base64', 'televersement'] as const;

export const MEMBRES_IMAGE = ['url', 'base64', 'televersement', 'nom'] as const;

/** Form fields of `POST /travaux` that are not settings (files come under any name). */
const CHAMPS_FORMULAIRE = ['outil', 'image_url', 'televersement'] as const;

const FORMES_IMAGE = '{"url":"https://…"}, {"base64":"…"} or {"televersement":"<id from POST /televersements>"}, with an optional "nom"';

const EXEMPLE_IMAGES = '"images":[{"url":"https://example.com/photo.jpg"}]';

// ——— Settings (the catalogue) ———

const champsDe = (outil: IdOutil): readonly Champ[] => CATALOGUE[outil].champs;

const nomsChamps = (outil: IdOutil): string[] => champsDe(outil).map((c) => c.nom);

const champ = (outil: IdOutil, nom: string): Champ | undefined => champsDe(outil).find((c) => c.nom === nom);

/** Tools other than `outil` that have a setting of that name. */
const autresOutils = (outil: IdOutil, nom: string): IdOutil[] => OUTILS.filter((o) => o !== outil && champ(o, nom) !== undefined);

/** "the place of the property", from the catalogue's "Place of the property." */
const sens = (c: Champ): string => `${c.description.charAt(0).toLowerCase()}${c.description.slice(1)}`.replace(/\.$/, '');

const permis = (c: Champ): string => (c.valeurs ? `one of ${ou(guillemets(c.valeurs))}` : `text, at most ${c.longueur_max} characters`);

const valeurExemple = (c: Champ): string => c.defaut ?? c.valeurs?.[0] ?? `<${sens(c)}>`;

const listeReglages = (outil: IdOutil, forme: Forme): string => {
  const noms = nomsChamps(outil);
  if (noms.length === 0) return forme === 'json' ? `${outil} has no settings: leave valeurs out` : `${outil} has no settings: remove that field`;
  return noms.length === 1 ? `${outil}'s only setting is ${noms[0]}` : `${outil}'s settings are ${et(noms)}`;
};

/** `{"outil":"staging","valeurs":{"style":"modern"}}`: where settings go, with the client's value when it fits. */
const exempleValeurs = (outil: IdOutil, reglages: Record<string, string>): string => JSON.stringify({ outil, valeurs: reglages });

/** The settings an `annonce`-like tool cannot go without, with placeholders from the catalogue. */
const requis = (outil: IdOutil): Record<string, string> =>
  Object.fromEntries(
    champsDe(outil)
      .filter((c) => c.requis)
      .map((c) => [c.nom, valeurExemple(c)]),
  );

const exempleMinimal = (outil: IdOutil): Record<string, string> => {
  const obligatoires = requis(outil);
  if (Object.keys(obligatoires).length > 0) return obligatoires;
  const premier = champsDe(outil)[0];
  return premier ? { [premier.nom]: valeurExemple(premier) } : {};
};

// ——— POST /travaux ———

type Forme = 'json' | 'formulaire';

export interface ContexteTravaux {
  outil: IdOutil;
  /** A form: the field each image came from, in order (a file's own field name, `image_url`, `televersement`). */
  champsImages?: readonly string[];
}

/** The code of a refused `POST /travaux` body, from the member its first problem is in. */
const codeTravaux = (issues: readonly Issue[]): CodeApi => {
  switch (issues[0]?.path?.[0]?.key) {
    case 'outil':
      return 'invalid_tool';
    case 'images':
      return 'invalid_image';
    default:
      // valeurs, and members the body does not have (mostly settings put beside outil).
      return 'invalid_settings';
  }
};

/** The 422 for a `POST /travaux` body that schemas.ts refused. */
export const refusTravaux = (issues: readonly Issue[], contexte: ContexteTravaux): ErreurApi =>
  refuser(codeTravaux(issues), problemesTravaux(issues, contexte));

/** Problems of a `POST /travaux` body, one or more per valibot issue, in order, without repeats. */
export const problemesTravaux = (issues: readonly Issue[], contexte: ContexteTravaux): Probleme[] => {
  const forme: Forme = contexte.champsImages ? 'formulaire' : 'json';
  const nommer = (chemin: readonly Segment[]): string => {
    if (forme === 'json') return cheminJson(chemin);
    const [tete, index] = chemin;
    if (tete === 'valeurs') return chemin.length > 1 ? String(chemin[1]) : '';
    if (tete === 'images') return typeof index === 'number' ? (contexte.champsImages?.[index] ?? `image ${index}`) : '';
    return cheminJson(chemin);
  };
  const ctx: Ctx = { ...contexte, forme, nommer };
  return sansDoublons(premiersParChemin(issues).flatMap((issue) => decrireTravaux(issue, ctx)));
};

interface Ctx extends ContexteTravaux {
  forme: Forme;
  nommer: (chemin: readonly Segment[]) => string;
}

const decrireTravaux = (issue: Issue, ctx: Ctx): Probleme[] => {
  const chemin = segments(issue);
  const [tete] = chemin;
  if (tete === 'valeurs') return [reglage(issue, chemin, ctx)];
  if (tete === 'images') return images(issue, chemin, ctx);
  if (chemin.length === 1) return [racine(issue, String(tete), ctx)];
  if (chemin.length === 0) {
    return [{ chemin: '', message: `The body must be a JSON object, not ${nature(issue.input)}, e.g. {"outil":"${ctx.outil}",${EXEMPLE_IMAGES}}` }];
  }
  return [{ chemin: ctx.nommer(chemin), message: feuille(issue, ctx.nommer(chemin)) }];
};

/** A member of the body itself: unknown (often a setting put beside outil), missing, or outil. */
const racine = (issue: Issue, cle: string, ctx: Ctx): Probleme => {
  const { outil } = ctx;
  const p = (message: string): Probleme => ({ chemin: cheminJson([cle]), message });
  const sorte = genre(issue);
  if (sorte === 'manquant') return p(`${cle} is required for ${outil}`);
  if (sorte !== 'inconnu') return p(cle === 'outil' ? `outil must be ${JSON.stringify(outil)} here, not ${nature(issue.input)}` : feuille(issue, cle));
  const nom = cheminJson([cle]);
  // For an unknown member valibot puts the key in `input` and its value on the path.
  const valeur: unknown = issue.path?.at(-1)?.value;
  const reglage = champ(outil, cle);
  if (reglage) return p(`${nom} is a setting of ${outil}: put it inside valeurs, e.g. ${deplace(reglage, valeur, outil)}`);
  if ((SOURCES_IMAGE as readonly string[]).includes(cle)) {
    const texte = typeof valeur === 'string' && valeur.length <= 60 ? JSON.stringify(valeur) : '…';
    return p(`${nom} is not a member of the body: an image goes inside images, e.g. "images":[{"${cle}":${texte}}]`);
  }
  const membres = `the body has ${et(MEMBRES_CORPS)}`;
  const proche = suggerer(cle, [...MEMBRES_CORPS, ...nomsChamps(outil)]);
  if (proche && (MEMBRES_CORPS as readonly string[]).includes(proche))
    return p(`${nom} is not a member of the body: did you mean ${proche}? ${capitale(membres)}`);
  if (proche)
    return p(
      `${nom} is not a member of the body: did you mean ${proche}? It is a setting of ${outil}: put it inside valeurs, e.g. ${deplace(champ(outil, proche)!, valeur, outil)}`,
    );
  const ailleurs = autresOutils(outil, cle);
  if (ailleurs.length > 0) return p(`${nom} is not a member of the body: it is a setting of ${et(ailleurs)}, not of ${outil}; ${listeReglages(outil, 'json')}`);
  const reglages = nomsChamps(outil).length > 0 ? `; ${outil}'s settings go inside valeurs: ${et(nomsChamps(outil))}` : '';
  return p(`${nom} is not a member of the body: ${membres}${reglages}`);
};

/** The example for a setting sent beside outil: the client's own value, and a word on it if it is not allowed. */
const deplace = (c: Champ, valeur: unknown, outil: IdOutil): string => {
  const texte = typeof valeur === 'string' && valeur.length > 0 && valeur.length <= 60 ? valeur : valeurExemple(c);
  const exemple = exempleValeurs(outil, { [c.nom]: texte });
  if (c.valeurs && typeof valeur === 'string' && !c.valeurs.includes(valeur)) {
    const proche = suggerer(valeur, c.valeurs);
    return `${exemple}; ${citer(valeur)} is not one of its values either (${permis(c)})${proche ? `: did you mean ${JSON.stringify(proche)}?` : ''}`;
  }
  return exemple;
};

/** `valeurs` itself, or one of its settings. */
const reglage = (issue: Issue, chemin: readonly Segment[], ctx: Ctx): Probleme => {
  const { outil, forme } = ctx;
  const nom = ctx.nommer(chemin);
  const p = (message: string): Probleme => ({ chemin: nom, message });
  const sorte = genre(issue);
  if (chemin.length === 1) {
    const obligatoires = champsDe(outil)
      .filter((c) => c.requis)
      .map((c) => c.nom);
    const facultatifs = champsDe(outil)
      .filter((c) => !c.requis)
      .map((c) => c.nom);
    const contenu = `${obligatoires.length ? `${et(obligatoires)} required` : ''}${obligatoires.length && facultatifs.length ? '; ' : ''}${facultatifs.length ? `${et(facultatifs)} optional` : ''}`;
    const exemple = exempleValeurs(outil, exempleMinimal(outil));
    if (sorte === 'manquant') return p(`valeurs is required for ${outil}: an object of its settings (${contenu}), e.g. ${exemple}`);
    if (nomsChamps(outil).length === 0) return p(`valeurs must be an object, not ${nature(issue.input)}; ${listeReglages(outil, forme)}`);
    return p(`valeurs must be an object of settings, not ${nature(issue.input)}: ${contenu}, e.g. ${exemple}`);
  }
  const cle = String(chemin[1]);
  if (sorte === 'inconnu') return p(reglageInconnu(cle, nom, ctx));
  const c = champ(outil, cle);
  if (!c || chemin.length > 2) return p(feuille(issue, nom));
  if (sorte === 'manquant') {
    const comment = forme === 'json' ? `, e.g. ${exempleValeurs(outil, { [c.nom]: valeurExemple(c) })}` : `; send it as the form field ${c.nom}`;
    return p(`${nom} is required for ${outil}: the ${sens(c)} (${permis(c)})${comment}`);
  }
  if (issue.type === 'picklist' || (c.valeurs && issue.type === 'string')) return p(horsListe(nom, c.valeurs ?? [], issue.input));
  return p(feuille(issue, nom, `the ${sens(c)}`));
};

const reglageInconnu = (cle: string, nom: string, ctx: Ctx): string => {
  const { outil, forme } = ctx;
  const liste = listeReglages(outil, forme);
  if (forme === 'json' && (MEMBRES_CORPS as readonly string[]).includes(cle)) {
    return `${nom} is not a setting: ${cle} goes at the top level of the body, beside valeurs`;
  }
  if (forme === 'formulaire') {
    if (cle === 'valeurs')
      return `valeurs is not a form field: in a form each setting is its own field${nomsChamps(outil).length ? `, e.g. ${nomsChamps(outil)[0]}=${valeurExemple(champsDe(outil)[0]!)}` : `, and ${outil} has none`}`;
    if (cle === 'images') return 'images is not a form field: send images as files (under any field name), image_url fields or televersement fields';
    // valeurs[style]=modern, valeurs.style=modern: the JSON shape written as a form field.
    const interieur = /^valeurs(?:\[([^\]]*)\]|\.(.*))$/.exec(cle);
    const reglage = interieur && (interieur[1] ?? interieur[2]);
    if (reglage && champ(outil, reglage))
      return `${nom} is not a form field: in a form each setting is its own field, e.g. ${reglage}=${valeurExemple(champ(outil, reglage)!)}`;
  }
  const ailleurs = autresOutils(outil, cle);
  if (ailleurs.length > 0) return `${nom} is not a setting of ${outil} but of ${et(ailleurs)}; ${liste}`;
  const candidats = forme === 'json' ? nomsChamps(outil) : [...nomsChamps(outil), ...CHAMPS_FORMULAIRE];
  const proche = suggerer(cle, candidats);
  if (proche && forme === 'formulaire' && (CHAMPS_FORMULAIRE as readonly string[]).includes(proche)) {
    return `${nom} is not a field of this form: did you mean ${proche}? A form has outil, the tool's settings, files (under any field name), image_url and televersement fields`;
  }
  return `${nom} is not a setting of ${outil}${proche ? `: did you mean ${proche}? ` : '; '}${liste}`;
};

/** `images`, or one image. */
export const images = (issue: Issue, chemin: readonly Segment[], ctx: Ctx): Probleme[] => {
  const { outil, forme } = ctx;
  const { min, max } = CATALOGUE[outil].images;
  if (chemin.length === 1) {
    const p = (message: string): Probleme[] => [{ chemin: ctx.nommer(chemin), message }];
    const sorte = genre(issue);
    const nombre = Array.isArray(issue.input) ? issue.input.length : 0;
    if (forme === 'formulaire') {
      if (issue.type === 'min_length')
        return p(
          `${outil} needs at least ${min} image${min > 1 ? 's' : ''}: send ${min > 1 ? 'files' : 'a file'} (under any field name), an image_url field or a televersement field`,
        );
      return p(`${outil} takes at most ${max} images; this form has ${nombre} (files, image_url and televersement fields together)`);
    }
    if (sorte === 'manquant')
      return p(`images is required for ${outil}: a list of ${min} to ${max} images, each ${FORMES_IMAGE}, e.g. {"outil":"${outil}",${EXEMPLE_IMAGES}}`);
    if (issue.type === 'array') {
      const une = estObjet(issue.input) ? ': put the image inside [ ], e.g.' : typeof issue.input === 'string' ? ': write' : ', e.g.';
      return p(`images must be an array of images, not ${nature(issue.input)}${une} ${EXEMPLE_IMAGES}`);
    }
    if (issue.type === 'min_length')
      return nombre === 0
        ? p(`images is empty: ${outil} needs at least ${min} image${min > 1 ? 's' : ''}, e.g. ${EXEMPLE_IMAGES}`)
        : // fusion: one photo is no bracket.
          p(`images holds ${nombre} image${nombre > 1 ? 's' : ''}: ${outil} needs at least ${min} (photos of one view at different exposures)`);
    if (issue.type === 'max_length') return p(`images holds ${nombre} images: ${outil} takes at most ${max}`);
    return p(feuille(issue, 'images'));
  }
  const index = chemin[1] as number;
  if (chemin.length === 2 && issue.type === 'union') return imageSansForme(issue, index, ctx);
  return [imageMembre(issue, chemin, ctx)];
};

/** What each member of an image is for, said when its type is wrong. */
const ROLE_IMAGE: Readonly<Record<string, string>> = {
  url: 'the https URL of the image',
  base64: 'the image in base64, or a data URL',
  televersement: 'the id of an upload made with POST /televersements',
  nom: 'the name of the image',
};

/** A problem inside an image whose form is known: `images[0].url` not https, `images[1].name` unknown… */
const imageMembre = (issue: Issue, chemin: readonly Segment[], ctx: Ctx): Probleme => {
  const nom = ctx.nommer(chemin);
  const membre = String(chemin[2] ?? '');
  if (genre(issue) === 'inconnu') {
    const proche = suggerer(membre, MEMBRES_IMAGE);
    return { chemin: nom, message: `${nom} is not a member of an image${proche ? `: did you mean ${proche}?` : '.'} An image is ${FORMES_IMAGE}` };
  }
  if (ctx.forme === 'formulaire' && membre === 'nom') {
    // A file's name stands for nom: the field is the file's, the problem its name.
    return { chemin: nom, message: feuille(issue, `the file name of ${nom}`) };
  }
  return { chemin: nom, message: feuille(issue, nom, Object.hasOwn(ROLE_IMAGE, membre) ? ROLE_IMAGE[membre] : undefined) };
};

/**
 * An image that fits none of the three forms. valibot gives one issue with the issues of every
 * form; when the image names exactly one source, only that form's issues are the client's mistakes.
 */
const imageSansForme = (issue: Issue, index: number, ctx: Ctx): Probleme[] => {
  const chemin = ['images', index];
  const nom = ctx.nommer(chemin);
  const p = (message: string): Probleme[] => [{ chemin: nom, message }];
  const image = issue.input;
  if (!estObjet(image)) {
    if (typeof image === 'string' && /^https?:\/\//i.test(image)) return p(`${nom} must be an object, not a string: write {"url":${citer(image)}}`);
    return p(`${nom} must be an object, not ${nature(image)}: an image is ${FORMES_IMAGE}`);
  }
  const sources = SOURCES_IMAGE.filter((s) => Object.hasOwn(image, s));
  if (sources.length > 1) return p(`${nom} has both ${et(sources)}: an image is exactly one of ${FORMES_IMAGE}; send each as its own image`);
  if (sources.length === 0) {
    const propositions = Object.keys(image)
      .map((cle) => [cle, suggerer(cle, SOURCES_IMAGE)] as const)
      .filter(([, proche]) => proche !== undefined)
      .map(([cle, proche]) => `${proche} instead of ${cle}`);
    const indice = propositions.length ? `: did you mean ${ou(propositions)}?` : '.';
    return p(`${nom} has no url, base64 or televersement${indice} An image is ${FORMES_IMAGE}`);
  }
  const source = sources[0]!;
  const siennes = (issue.issues ?? []).filter((sous) => {
    const cle = sous.path?.[0]?.key;
    const surCle = sous.path?.[0]?.origin === 'key';
    // The other forms miss their own source and refuse this one: not the client's mistakes.
    if (surCle && genre(sous) === 'manquant' && cle !== source) return false;
    if (surCle && genre(sous) === 'inconnu' && (SOURCES_IMAGE as readonly unknown[]).includes(cle)) return false;
    return true;
  });
  if (siennes.length === 0) return p(`${nom} is not a valid image: an image is ${FORMES_IMAGE}`);
  return premiersParChemin(siennes).map((sous) => imageMembre(sous, [...chemin, ...segments(sous)], ctx));
};

/** The 422 `invalid_tool` for an `outil` that names no tool. */
export const refusOutil = (valeur: unknown, forme: Forme, cles: readonly string[] = []): ErreurApi =>
  refuser('invalid_tool', [problemeOutil(valeur, forme, cles)]);

/** `outil` missing, not a string, or no tool: with the closest tool, and the key the client may have meant. */
export const problemeOutil = (valeur: unknown, forme: Forme, cles: readonly string[] = []): Probleme => {
  const liste = OUTILS.join(', ');
  const p = (message: string): Probleme => ({ chemin: 'outil', message });
  if (valeur === undefined) {
    const voisine = cles.find((c) => c !== 'outil' && suggerer(c, ['outil']) === 'outil');
    const indice = voisine ? `; the ${forme === 'json' ? 'body' : 'form'} has ${cheminJson([voisine])}: did you mean outil?` : '';
    if (forme === 'formulaire') return p(`outil is required: add the form field outil, one of ${liste}${indice}`);
    return p(`outil is required: one of ${liste}, e.g. {"outil":"ciel",${EXEMPLE_IMAGES}}${indice}`);
  }
  if (typeof valeur !== 'string') return p(`outil must be a string, one of ${liste}, not ${nature(valeur)}`);
  if (valeur === '') return p(`outil is empty: it must be one of ${liste}`);
  const proche = suggerer(valeur, OUTILS);
  return p(
    `outil ${citer(valeur, 100)} is not a tool${proche ? `: did you mean ${JSON.stringify(proche)}?` : '.'} The tools are ${liste} (GET /outils describes them)`,
  );
};

/** A form field given several times where one is read: `outil` (invalid_tool) or a setting (invalid_settings). */
export const refusRepete = (nom: string, fois: number): ErreurApi =>
  refuser(nom === 'outil' ? 'invalid_tool' : 'invalid_settings', [
    {
      chemin: nom,
      message: `${nom} is given ${fois} times; give it once${nom === 'outil' ? '' : ' (only image_url and televersement fields, and files, repeat)'}`,
    },
  ]);

/**
 * The check of a body with its refusal worded: the request, or a 422 `ErreurApi` listing every
 * problem in `details` as `{ chemin, message }`. A form passes the field each image came from
 * (`champsImages`), so that problems name the form's fields, not a JSON path.
 */
export const validerRequete = (outil: IdOutil, corps: unknown, champsImages?: readonly string[]): RequeteValidee => {
  const { requete, issues } = verifierRequete(outil, corps);
  if (issues) throw refusTravaux(issues, { outil, ...(champsImages ? { champsImages } : {}) });
  return requete;
};
