/**
 * The photos of the studio's form, picked or dropped: each checked before anything is sent (an image by its first
 * bytes, within the API's size, not empty, no more than any tool takes), previewed from the local file, and removed
 * one by one. What was left out is a notice, not an error of the form: the others are taken.
 */
import { computed, nextTick, onBeforeUnmount, ref, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import type { Erreur } from '../erreurs';
import { TAILLE_MAX, typeImage, type Outil } from './appels';
import type { PhotoChoisie } from './demande';

/** `erreur`: the form's, cleared by a new choice. */
export const usePhotos = (outils: Ref<Outil[] | null>, erreur: Ref<Erreur | null>) => {
  const { t } = useI18n();
  const photos = ref<PhotoChoisie[]>([]);
  const avis = ref('');
  /** The files left out of the last choice, and why. */
  const refuses = ref('');
  const survol = ref(false);
  /** The most photos any tool takes in one launch (50): more are refused when they are added. */
  const maxPhotos = computed(() => Math.max(0, ...(outils.value ?? []).map((o) => o.images.max)));

  // Photos still in the form when the page is left: their previews go with it.
  onBeforeUnmount(() => photos.value.forEach((p) => URL.revokeObjectURL(p.apercu)));

  const ajouter = async (fichiers: FileList | File[] | null | undefined) => {
    if (!fichiers || !outils.value) return;
    erreur.value = null;
    const laisses: string[] = [];
    // Added together once all are checked: a choice is one change of the form (a fusion groups its photos together).
    const prises: PhotoChoisie[] = [];
    for (const fichier of Array.from(fichiers)) {
      if (photos.value.length + prises.length >= maxPhotos.value) {
        laisses.push(t('studio.photos.tropNombreuses', { nom: fichier.name, max: maxPhotos.value }));
        continue;
      }
      const type = await typeImage(fichier).catch(() => null);
      if (!type) laisses.push(t('studio.photos.pasUneImage', { nom: fichier.name }));
      else if (fichier.size > TAILLE_MAX) laisses.push(t('studio.photos.tropLourde', { nom: fichier.name }));
      else if (fichier.size === 0) laisses.push(t('studio.photos.vide', { nom: fichier.name }));
      else prises.push({ id: crypto.randomUUID(), fichier, type, apercu: URL.createObjectURL(fichier) });
    }
    photos.value.push(...prises);
    avis.value = t('studio.photos.ajoutees', { n: photos.value.length }, photos.value.length);
    refuses.value = laisses.join(' ');
  };

  const choisir = async (e: Event) => {
    const champ = e.target as HTMLInputElement;
    await ajouter(champ.files);
    // The same file can be picked again after it was removed.
    champ.value = '';
  };

  const deposerFichiers = async (e: DragEvent) => {
    survol.value = false;
    await ajouter(e.dataTransfer?.files);
  };

  /** A preview loaded: the photo's pixels, checked at the launch. */
  const mesurer = (photo: PhotoChoisie, pixels: number) => {
    photo.pixels = pixels;
  };

  const retirer = async (photo: PhotoChoisie) => {
    const index = photos.value.indexOf(photo);
    photos.value.splice(index, 1);
    URL.revokeObjectURL(photo.apercu);
    avis.value = t('studio.photos.retiree', { nom: photo.fichier.name });
    // Its button is gone with it: the focus goes to the next photo's, or back to the picker.
    await nextTick();
    const suivante = photos.value[Math.min(index, photos.value.length - 1)];
    document.getElementById(suivante ? `retirer-${suivante.id}` : 'photos')?.focus();
  };

  /** Several at once (a fusion's bracket removed, which its component says): their previews freed with them. */
  const retirerPlusieurs = (parties: PhotoChoisie[]) => {
    photos.value = photos.value.filter((p) => !parties.includes(p));
    parties.forEach((p) => URL.revokeObjectURL(p.apercu));
  };

  return { photos, avis, refuses, survol, maxPhotos, choisir, deposerFichiers, mesurer, retirer, retirerPlusieurs };
};
