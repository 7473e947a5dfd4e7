/**
 * The pages, each its own chunk (the first page loads only its own). The account pages need a
 * session: without one, the sign-in page, which comes back to the page asked (`?suite=`, a path of
 * this site only: suite.ts). After each change of page the focus goes to its heading, so that a screen reader
 * says where the user is, as a page load would.
 */
import { nextTick } from 'vue';
import { createRouter, createWebHistory, START_LOCATION, type RouteLocationNormalized } from 'vue-router';
import { chargerMessagesStudio, i18n } from './i18n';
import { useSession } from './session';

export const router = createRouter({
  history: createWebHistory(),
  scrollBehavior: () => ({ top: 0 }),
  routes: [
    { path: '/', component: () => import('./pages/Accueil.vue'), meta: { titre: 'accueil.titre' } },
    { path: '/inscription', component: () => import('./pages/Inscription.vue'), meta: { titre: 'inscription.titre' } },
    { path: '/connexion', component: () => import('./pages/Connexion.vue'), meta: { titre: 'connexion.titre' } },
    { path: '/mot-de-passe', component: () => import('./pages/MotDePasse.vue'), meta: { titre: 'motDePasse.titre' } },
    { path: '/compte', component: () => import('./pages/Compte.vue'), meta: { titre: 'compte.titre', session: true } },
    { path: '/compte/cles', component: () => import('./pages/Cles.vue'), meta: { titre: 'cles.titre', session: true } },
    {
      path: '/studio',
      // The page and its messages together: its title and text are there when it shows.
      component: () => Promise.all([import('./pages/Studio.vue'), chargerMessagesStudio()]).then(([page]) => page),
      meta: { titre: 'studio.titre', session: true },
    },
    // The history shows results as the studio does (its slider, its listing text): with the studio's messages.
    {
      path: '/historique',
      component: () => Promise.all([import('./pages/Historique.vue'), chargerMessagesStudio()]).then(([page]) => page),
      meta: { titre: 'historique.titre', session: true },
    },
    {
      path: '/apercu',
      // What the preview engine can and cannot do: its text is in the studio's messages, which link to it.
      component: () => Promise.all([import('./pages/Apercu.vue'), chargerMessagesStudio()]).then(([page]) => page),
      meta: { titre: 'pageApercu.titre' },
    },
    { path: '/confidentialite', component: () => import('./pages/Confidentialite.vue'), meta: { titre: 'confidentialite.titre' } },
    { path: '/:chemin(.*)*', component: () => import('./pages/Introuvable.vue'), meta: { titre: 'introuvable.titre' } },
  ],
});

/** The tab's title, in the page's language (App.vue calls it again when the language changes). */
export const mettreTitre = (route: RouteLocationNormalized): void => {
  document.title = `${i18n.global.t(route.meta.titre ?? 'accueil.titre')} · Retouche`;
};

router.beforeEach(async (vers) => {
  const session = useSession();
  // A public page does not wait for Cognito: the header shows the session when it is back.
  if (!vers.meta.session) {
    void session.reprendre();
    return true;
  }
  await session.reprendre();
  return session.connecte ? true : { path: '/connexion', query: { suite: vers.fullPath } };
});

router.afterEach(async (vers, depuis, echec) => {
  if (echec) return;
  mettreTitre(vers);
  // On the first page the focus stays at the top of the document, where the skip link is.
  if (depuis === START_LOCATION) return;
  await nextTick();
  document.querySelector<HTMLElement>('main h1')?.focus();
});
