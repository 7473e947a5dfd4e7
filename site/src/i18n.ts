/**
 * French and English. The first visit follows the browser's language; a choice made with the switch is
 * remembered in this browser (localStorage: a preference, nothing personal). <html lang> follows, so
 * that screen readers read each page in its language. The messages are compiled at build time
 * (vite.config.ts): nothing here needs eval under the site's Content Security Policy.
 */
import { createI18n } from 'vue-i18n';
import en from './i18n/en.json';
import fr from './i18n/fr.json';

export const LANGUES = ['fr', 'en'] as const;
export type Langue = (typeof LANGUES)[number];
const CLE = 'retouche.langue';

const lireChoix = (): string | null => {
  try {
    return localStorage.getItem(CLE);
  } catch {
    // Storage refused (a privacy setting): the browser's language then.
    return null;
  }
};

const initiale = (): Langue => {
  const choisie = lireChoix();
  if (choisie === 'fr' || choisie === 'en') return choisie;
  return navigator.language.toLowerCase().startsWith('fr') ? 'fr' : 'en';
};

const dates = {
  court: { dateStyle: 'medium' },
  long: { dateStyle: 'medium', timeStyle: 'short' },
} as const;

export const i18n = createI18n({
  legacy: false,
  locale: initiale(),
  fallbackLocale: 'en',
  messages: { fr, en },
  datetimeFormats: { fr: dates, en: dates },
  // French says "0 crédit, 1 crédit, 2 crédits": the singular up to 1, where English stops at 1.
  pluralRules: { fr: (n: number) => (Math.abs(n) < 2 ? 0 : 1) },
});
document.documentElement.lang = i18n.global.locale.value;

let chargementStudio: Promise<void> | undefined;

/**
 * The studio's messages, in files of their own (i18n/studio.fr.json and studio.en.json, under "studio"),
 * merged into the site's when the studio opens (router.ts; the menu's link is in the site's own
 * messages). A chunk apart, since compiled they would make the first page's JavaScript about 4 KB
 * (gzipped) heavier for every visitor, signed in or not.
 */
export const chargerMessagesStudio = (): Promise<void> =>
  (chargementStudio ??= Promise.all([import('./i18n/studio.fr.json'), import('./i18n/studio.en.json')])
    .then(([studioFr, studioEn]) => {
      i18n.global.mergeLocaleMessage('fr', studioFr.default);
      i18n.global.mergeLocaleMessage('en', studioEn.default);
    })
    .catch((erreur: unknown) => {
      // A chunk the network did not bring is asked again by the next caller.
      chargementStudio = undefined;
      throw erreur;
    }));

export const choisirLangue = (langue: Langue): void => {
  i18n.global.locale.value = langue;
  document.documentElement.lang = langue;
  try {
    localStorage.setItem(CLE, langue);
  } catch {
    // Not remembered, but the page still switches.
  }
};
