/**
 * French and English. The first visit follows the browser's language; a choice made with the switch is
 * remembered in this browser (localStorage: a preference, nothing personal). <html lang> follows, so
 * screen readers read each page in its language.
 */
import { createI18n } from 'vue-i18n';
import en from './i18n/en.json';
import fr from './i18n/fr.json';

export const LANGUES = ['fr', 'en'] as const;
export type Langue = (typeof LANGUES)[number];
const CLE = 'retouche.langue';

const initiale = (): Langue => {
  const choisie = localStorage.getItem(CLE);
  if (choisie === 'fr' || choisie === 'en') return choisie;
  return navigator.language.toLowerCase().startsWith('fr') ? 'fr' : 'en';
};

const dates = {
  court: { dateStyle: 'medium' },
  long: { dateStyle: 'medium', timeStyle: 'short' },
} as const;

export const i18n = createI18n({ legacy: false, locale: initiale(), fallbackLocale: 'en', messages: { fr, en }, datetimeFormats: { fr: dates, en: dates } });
document.documentElement.lang = i18n.global.locale.value;

export const choisirLangue = (langue: Langue): void => {
  i18n.global.locale.value = langue;
  localStorage.setItem(CLE, langue);
  document.documentElement.lang = langue;
};
