/**
 * The pages. The account pages need a session: without one, the sign-in page, which comes back to
 * the page asked (`?suite=`, a path of this site only). After each change of page the focus goes to
 * its heading, so that a screen reader says where the user is, as a page load would.
 */
import { nextTick } from 'vue';
import { createRouter, createWebHistory } from 'vue-router';
import { i18n } from './i18n';
import { useSession } from './session';

export const router = createRouter({
  history: createWebHistory(),
  routes: [
    { path: '/', component: () => import('./pages/Accueil.vue'), meta: { titre: 'accueil.titre' } },
    { path: '/inscription', component: () => import('./pages/Inscription.vue'), meta: { titre: 'inscription.titre' } },
    { path: '/connexion', component: () => import('./pages/Connexion.vue'), meta: { titre: 'connexion.titre' } },
    { path: '/mot-de-passe', component: () => import('./pages/MotDePasse.vue'), meta: { titre: 'motDePasse.titre' } },
    { path: '/compte', component: () => import('./pages/Compte.vue'), meta: { titre: 'compte.titre', session: true } },
    { path: '/compte/cles', component: () => import('./pages/Cles.vue'), meta: { titre: 'cles.titre', session: true } },
    { path: '/historique', component: () => import('./pages/Historique.vue'), meta: { titre: 'historique.titre', session: true } },
    { path: '/confidentialite', component: () => import('./pages/Confidentialite.vue'), meta: { titre: 'confidentialite.titre' } },
    { path: '/:chemin(.*)*', component: () => import('./pages/Introuvable.vue'), meta: { titre: 'introuvable.titre' } },
  ],
});

/** A `?suite=` that stays on this site: a path, not `//host` or a URL. */
export const suiteSure = (suite: unknown): string => (typeof suite === 'string' && /^\/(?![/\\])/.test(suite) ? suite : '/compte');

router.beforeEach(async (vers) => {
  const session = useSession();
  await session.reprendre();
  if (vers.meta.session && !session.connecte) return { path: '/connexion', query: { suite: vers.fullPath } };
  return true;
});

router.afterEach(async (vers) => {
  document.title = `${i18n.global.t(String(vers.meta.titre ?? 'accueil.titre'))} · Retouche`;
  await nextTick();
  document.querySelector<HTMLElement>('main h1')?.focus();
});
