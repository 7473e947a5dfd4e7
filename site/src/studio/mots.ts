/**
 * How the studio words a tool, credits, a share and a job's status in the page's language: one place, so that the
 * form, its launches and their results say them alike.
 */
import { useI18n } from 'vue-i18n';
import type { Outil, Travail } from './appels';

export const useMotsStudio = () => {
  const { t, te, locale } = useI18n();
  return {
    // The site's own name for a tool it knows, in the page's language; the API's for one it does not.
    nomOutil: (outil: Outil) => (te(`outils.${outil.id}.nom`) ? t(`outils.${outil.id}.nom`) : outil.nom),
    credits: (n: number) => t('studio.credits', { n }, n),
    pourcent: (x: number) => new Intl.NumberFormat(locale.value, { style: 'percent', maximumFractionDigits: 0 }).format(x),
    libelleStatut: (travail: Travail) => t(`studio.statuts.${travail.statut}`),
  };
};
