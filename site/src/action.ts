/**
 * What every form of the site does around a request: its button disabled while it runs, the previous
 * error cleared, a failure described in the page's words (erreurs.ts) with the focus on the field it is
 * about; and, for the forms that take an emailed code, whether this stack prints its codes (`npm start`)
 * rather than emails them. One composable, so that the pages cannot drift in how they behave.
 */
import { onMounted, ref } from 'vue';
import { lireConfiguration } from './config';
import { decrire, focaliser, type Champ, type Erreur } from './erreurs';

export const useAction = () => {
  const occupe = ref(false);
  const erreur = ref<Erreur | null>(null);
  /** Runs `action`: true when it succeeded; `champs` says which field each error name is about, on this page. */
  const agir = async (action: () => Promise<void>, champs: Partial<Record<string, Champ>> = {}): Promise<boolean> => {
    erreur.value = null;
    occupe.value = true;
    try {
      await action();
      return true;
    } catch (e) {
      erreur.value = decrire(e, champs);
      focaliser(erreur.value.champ);
      return false;
    } finally {
      occupe.value = false;
    }
  };
  return { occupe, erreur, agir };
};

/** True on the local stack, whose user pool (cognito-local) has an endpoint: `npm start` prints the codes. */
export const useCodesLocaux = () => {
  const local = ref(false);
  onMounted(async () => {
    // On AWS the hint would be noise: Cognito emails the codes.
    local.value = await lireConfiguration().then(
      (c) => Boolean(c.cognito.endpoint),
      () => false,
    );
  });
  return local;
};
