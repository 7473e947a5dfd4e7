import 'vue-router';

declare module 'vue-router' {
  interface RouteMeta {
    /** The i18n key of the page's title. */
    titre?: string;
    /** Signed-in users only. */
    session?: boolean;
  }
}
