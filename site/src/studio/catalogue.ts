/**
 * What the studio's form starts from, loaded together as the page opens: the tools of GET /outils (nothing in the
 * form names a tool), whether this stage runs the preview engine, and the balance, read again whenever a launch
 * changes it.
 */
import { onMounted, ref, type Ref } from 'vue';
import { ouvrirCompte } from '../api';
import { decrire, type Erreur } from '../erreurs';
import { lireOutils, type Outil } from './appels';

/** `charge`: the tools are known, so what needs them (the launches of before a reload) can start. */
export const useCatalogue = (erreur: Ref<Erreur | null>, charge: (outils: Outil[]) => void) => {
  const outils = ref<Outil[] | null>(null);
  /** This stage runs the preview engine (GET /outils): said once, at the top, before anything is paid for. */
  const apercu = ref(false);
  const credits = ref<number | null>(null);
  const idOutil = ref('');

  const chargerSolde = async () => {
    try {
      credits.value = (await ouvrirCompte()).credits;
    } catch (e) {
      erreur.value = decrire(e);
    }
  };

  onMounted(async () => {
    try {
      const [catalogue] = await Promise.all([lireOutils(), chargerSolde()]);
      outils.value = catalogue.outils;
      apercu.value = catalogue.apercu;
      idOutil.value = catalogue.outils[0]?.id ?? '';
      charge(catalogue.outils);
    } catch (e) {
      erreur.value = decrire(e);
    }
  });

  return { outils, apercu, credits, idOutil, chargerSolde };
};
