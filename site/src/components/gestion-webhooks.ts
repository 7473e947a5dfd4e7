/**
 * What the webhooks section does (Webhooks.vue is its markup): the account's endpoints and the API's verbs on them,
 * and each endpoint's delivery log. Apart from the component so that the rules about secrets, focus and refusals read
 * in one place, as useAction's do for every form.
 */
import { nextTick, onMounted, reactive, ref, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import {
  appeler,
  ErreurApi,
  type EvenementAbonnable,
  type ListeLivraisons,
  type ListeWebhooks,
  type Livraison,
  type Webhook,
  type WebhookAvecSecret,
} from '../api';
import { useAction } from '../action';
import { decrire, focaliser, valider, type Erreur } from '../erreurs';
import { EVENEMENTS } from './mots-webhooks';

type Agir = ReturnType<typeof useAction>['agir'];

/** A test event is a delivery like the others: it goes where the log shows them. `avis`: the section's notice. */
const useJournaux = (agir: Agir, avis: Ref<string>) => {
  const { t } = useI18n();
  /** Each open delivery log, by webhook id: null while it loads. */
  const journaux = reactive<Record<string, Livraison[] | null>>({});

  const charger = async (w: Webhook) => {
    journaux[w.id] = null;
    await agir(async () => {
      journaux[w.id] = (await appeler<ListeLivraisons>('GET', `/webhooks/${encodeURIComponent(w.id)}/livraisons`)).livraisons;
    });
    // Failed to load: the log closes, the error says why.
    if (journaux[w.id] === null) delete journaux[w.id];
  };

  const basculer = async (w: Webhook) => {
    if (w.id in journaux) delete journaux[w.id];
    else await charger(w);
  };

  const tester = async (w: Webhook) => {
    avis.value = '';
    await agir(async () => {
      const livraison = await appeler<Livraison>('POST', `/webhooks/${encodeURIComponent(w.id)}/test`);
      // An open log shows it at once; a closed one loads it when opened.
      const journal = journaux[w.id];
      if (journal) journaux[w.id] = [livraison, ...journal.filter((l) => l.id !== livraison.id)];
      avis.value = t('webhooks.teste', { url: w.url });
    });
  };

  const renvoyer = async (w: Webhook, l: Livraison) => {
    avis.value = '';
    await agir(async () => {
      const renvoyee = await appeler<Livraison>('POST', `/webhooks/${encodeURIComponent(w.id)}/livraisons/${encodeURIComponent(l.id)}/renvoyer`);
      journaux[w.id] = (journaux[w.id] ?? []).map((x) => (x.id === renvoyee.id ? renvoyee : x));
      avis.value = t('webhooks.renvoyee');
    });
  };

  return { journaux, charger, basculer, tester, renvoyer };
};

interface Ajout {
  webhooks: Ref<Webhook[] | null>;
  avis: Ref<string>;
  action: ReturnType<typeof useAction>;
  montrerSecret: (w: WebhookAvecSecret, tourne: boolean) => void;
}

/** The form that adds one: its URL checked here first, then the API's refusal of it said on the URL field. */
const useAjout = ({ webhooks, avis, action, montrerSecret }: Ajout) => {
  const { t } = useI18n();
  const { erreur, agir } = action;
  const url = ref('');
  const evenements = ref<EvenementAbonnable[]>([...EVENEMENTS]);

  const ajouter = async () => {
    avis.value = '';
    const adresse = url.value.trim();
    erreur.value = valider([
      [/^https:\/\/[^\s/]+\S*$/i.test(adresse), 'url-webhook', 'erreurs.urlWebhook'],
      [evenements.value.length > 0, 'evenement-travail', 'erreurs.evenementsVide'],
    ]);
    if (erreur.value) return;
    // The API's refusal of the URL (a private host, too long…) is about the URL field.
    let refusUrl = false as boolean;
    const reussi = await agir(async () => {
      try {
        // In the order the page shows them, whatever order they were ticked in.
        const cree = await appeler<WebhookAvecSecret>('POST', '/webhooks', {
          url: adresse,
          evenements: EVENEMENTS.filter((e) => evenements.value.includes(e)),
        });
        const { secret: _secret, ...publique } = cree;
        // The API lists them oldest first; the list never holds a secret.
        webhooks.value = [...(webhooks.value ?? []), publique];
        url.value = '';
        montrerSecret(cree, false);
      } catch (e) {
        refusUrl = e instanceof ErreurApi && e.code === 'invalid_body';
        throw e;
      }
    });
    // (Read again: the check above left `erreur.value` narrowed to null for the compiler, not at run time.)
    const refus = erreur.value as Erreur | null;
    if (!reussi && refusUrl && refus) {
      // The API's `details` name the field only (`url`): the rule it broke, worded here.
      erreur.value = { texte: t('erreurs.urlWebhookRefusee'), champ: 'url-webhook' };
      focaliser('url-webhook');
    }
  };

  return { url, evenements, ajouter };
};

/** `titreListe`: the list's title, where the focus goes back once an endpoint is removed. */
export const useWebhooks = (titreListe: Ref<HTMLElement | null>) => {
  const { t } = useI18n();
  const webhooks = ref<Webhook[] | null>(null);
  /** The secret just made (added or rotated): it lives here only, until the page is left. */
  const secret = ref<{ webhook: Webhook; secret: string; tourne: boolean } | null>(null);
  /** The id of the webhook whose removal waits for a confirmation. */
  const aSupprimer = ref<string | null>(null);
  const avis = ref('');
  const action = useAction();
  const { occupe, erreur, agir } = action;
  const journal = useJournaux(agir, avis);

  onMounted(async () => {
    try {
      webhooks.value = (await appeler<ListeWebhooks>('GET', '/webhooks')).webhooks;
    } catch (e) {
      erreur.value = decrire(e);
    }
  });

  const montrerSecret = (w: WebhookAvecSecret, tourne: boolean) => {
    const { secret: valeur, ...publique } = w;
    secret.value = { webhook: publique, secret: valeur, tourne };
  };

  const tourner = async (w: Webhook) => {
    avis.value = '';
    await agir(async () => {
      montrerSecret(await appeler<WebhookAvecSecret>('POST', `/webhooks/${encodeURIComponent(w.id)}/secret`), true);
    });
  };

  const supprimer = async (w: Webhook) => {
    avis.value = '';
    await agir(async () => {
      await appeler('DELETE', `/webhooks/${encodeURIComponent(w.id)}`);
      webhooks.value = (webhooks.value ?? []).filter((x) => x.id !== w.id);
      if (secret.value?.webhook.id === w.id) secret.value = null;
      delete journal.journaux[w.id];
      aSupprimer.value = null;
      avis.value = t('webhooks.supprime', { url: w.url });
      // Its entry is gone, and the focus with it: back to the list.
      await nextTick();
      titreListe.value?.focus();
    });
  };

  const copieRefusee = () => {
    erreur.value = { texte: t('webhooks.copieImpossible') };
  };

  const ajout = useAjout({ webhooks, avis, action, montrerSecret });
  return { webhooks, secret, aSupprimer, avis, occupe, erreur, copieRefusee, tourner, supprimer, ...ajout, ...journal };
};
