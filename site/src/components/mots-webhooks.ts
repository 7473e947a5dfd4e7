/**
 * What the webhooks section and its delivery logs both say: an event by its name in the page's language (the
 * i18n keys cannot hold the events' dots), and a date, or a dash for none.
 */
import { useI18n } from 'vue-i18n';
import type { EvenementAbonnable, Livraison } from '../api';

/** In the order the page shows them, and sends them. */
export const EVENEMENTS: readonly EvenementAbonnable[] = ['travail.fini', 'lot.fini'];

const CLE_EVENEMENT: Record<Livraison['type'], string> = { 'travail.fini': 'travailFini', 'lot.fini': 'lotFini', 'webhook.test': 'test' };

export const useMotsWebhooks = () => {
  const { t, d } = useI18n();
  return {
    nomEvenement: (type: Livraison['type']) => t(`webhooks.evenement.${CLE_EVENEMENT[type]}`),
    date: (valeur: string | null) => (valeur ? d(new Date(valeur), 'long') : '—'),
  };
};
