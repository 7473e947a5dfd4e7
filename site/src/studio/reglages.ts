/**
 * The chosen tool's settings, as GET /outils describes them (nothing here names a tool's field): their values, and
 * their labels and help in the page's language where the site has them, the API's (English) otherwise.
 */
import { reactive, watch, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import type { Champ, Outil } from './appels';

/**
 * A listing's language (`langue`) starts in the site's (issue 41, point 2): the API's own default (Dutch, the
 * specification's) is for clients that send none; the studio always sends the one its list shows.
 */
const LANGUE_DU_SITE: Readonly<Record<string, string>> = { fr: 'French', en: 'English' };

export const useReglages = (outil: Ref<Outil | undefined>) => {
  const { t, te, locale } = useI18n();
  const valeurs = reactive<Record<string, string>>({});

  const defaut = (c: Champ, langue = locale.value): string => {
    const duSite = LANGUE_DU_SITE[langue];
    return c.nom === 'langue' && duSite !== undefined && c.valeurs?.includes(duSite) ? duSite : (c.defaut ?? '');
  };

  // A new tool starts from its own defaults; free text the agent typed stays if the new tool has that field.
  watch(outil, (nouveau) => {
    if (!nouveau) return;
    for (const nom of Object.keys(valeurs)) if (!nouveau.champs.some((c) => c.nom === nom)) delete valeurs[nom];
    for (const c of nouveau.champs) if (c.valeurs || valeurs[c.nom] === undefined) valeurs[c.nom] = defaut(c);
  });

  // The site's language switched: a language still at the old default follows it; one the agent chose stays.
  watch(locale, (nouvelle, ancienne) => {
    for (const c of outil.value?.champs ?? []) if (valeurs[c.nom] === defaut(c, ancienne)) valeurs[c.nom] = defaut(c, nouvelle);
  });

  const cleValeur = (valeur: string) => `studio.valeurs.${valeur.replace(/[^A-Za-z0-9]+/g, '_')}`;
  return {
    valeurs,
    defaut,
    libelleChamp: (c: Champ) => (te(`studio.champs.${c.nom}`) ? t(`studio.champs.${c.nom}`) : c.nom),
    aideChamp: (c: Champ) => (te(`studio.aides.${c.nom}`) ? { texte: t(`studio.aides.${c.nom}`) } : { texte: c.description, langue: 'en' }),
    libelleValeur: (valeur: string) => (te(cleValeur(valeur)) ? t(cleValeur(valeur)) : valeur),
  };
};
