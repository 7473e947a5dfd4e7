/**
 * The studio form's checks at the click, before anything is uploaded: a launch the API would refuse anyway (too few
 * or too many photos, one over 50 MP, a required setting empty, more than the balance) would cost the agent its
 * uploads for nothing. The first problem only, with the field it is about, so that the page can put the focus there.
 */
import type { Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import { PIXELS_MAX, type Champ, type Outil } from './appels';
import type { PhotoChoisie } from './demande';
import { useMotsStudio } from './mots';

export interface Probleme {
  texte: string;
  /** The id of the field it is about; null when none is (the balance). */
  champ: string | null;
}

interface Formulaire {
  photos: Ref<PhotoChoisie[]>;
  valeurs: Record<string, string>;
  credits: Ref<number | null>;
  cout: Readonly<Ref<number>>;
  libelleChamp: (c: Champ) => string;
  /**
   * The photos' number checked otherwise than by the tool's bounds over all of them (a fusion's brackets, each a job:
   * fusion.ts); undefined for the tools it does not concern.
   */
  verifierNombre?: (o: Outil) => Probleme | null | undefined;
}

export const useVerification = ({ photos, valeurs, credits, cout, libelleChamp, verifierNombre }: Formulaire) => {
  const { t } = useI18n();
  const { nomOutil, credits: nombre } = useMotsStudio();
  const compter = (o: Outil): Probleme | null => {
    const n = photos.value.length;
    if (n < o.images.min) return { texte: t('studio.erreurs.photosMin', { n: o.images.min }, o.images.min), champ: 'photos' };
    if (n > o.images.max) return { texte: t('studio.erreurs.photosMax', { n: o.images.max, outil: nomOutil(o) }, o.images.max), champ: 'photos' };
    return null;
  };
  return (o: Outil): Probleme | null => {
    const parCrochets = verifierNombre?.(o);
    const nombreRefuse = parCrochets === undefined ? compter(o) : parCrochets;
    if (nombreRefuse) return nombreRefuse;
    const geante = photos.value.find((p) => (p.pixels ?? 0) > PIXELS_MAX);
    if (geante) return { texte: t('studio.erreurs.pixels', { nom: geante.fichier.name }), champ: `retirer-${geante.id}` };
    const vide = o.champs.find((c) => c.requis && !valeurs[c.nom]?.trim());
    if (vide) return { texte: t('studio.erreurs.requis', { champ: libelleChamp(vide) }), champ: `champ-${vide.nom}` };
    // Checked here, before any upload: a launch the balance cannot pay sends nothing (the API would refuse it too).
    if (credits.value !== null && cout.value > credits.value) {
      return { texte: t('studio.erreurs.solde', { cout: nombre(cout.value), solde: nombre(credits.value) }), champ: null };
    }
    return null;
  };
};

/** The settings as sent: empty free text left out (the API takes 1 to 1000 characters or nothing). */
export const valeursEnvoyees = (o: Outil, valeurs: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    o.champs.flatMap((c) => {
      const valeur = (valeurs[c.nom] ?? '').trim();
      return valeur ? [[c.nom, valeur]] : [];
    }),
  );
