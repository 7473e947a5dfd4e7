/**
 * The HTTP routes, relative to the base path `/api/v1`. CDK builds one API Gateway method and one
 * Lambda per route from this list, and the local stack dispatches with it: they cannot disagree.
 * `fonction` names the module `lambdas/http/<fonction>.ts` (exports `handler` and `creer(deps)`).
 */
export const BASE_CHEMIN = '/api/v1';

export interface Route {
  methode: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, with `{param}` placeholders. */
  chemin: string;
  fonction: string;
  /** Whether the route needs `Authorization: Bearer <key>` (all but the public documents and Stripe's webhook). */
  authentifiee: boolean;
  /**
   * The web site's own routes: a signed-in user's session only, never an API key (on AWS the API's
   * Cognito authorizer checks the token before the function, which checks it again).
   */
  session?: true;
}

/**
 * A pattern for a route's path (relative to the base path) and any value of its `{param}`s: a segment
 * each. `barreFinale`: a trailing slash matches too (the unknown-route handler names the route it meant).
 */
export const motifChemin = (chemin: string, barreFinale = false): RegExp => new RegExp(`^${chemin.replace(/\{[^}]+\}/g, '[^/]+')}${barreFinale ? '/?' : ''}$`);

/**
 * The webhook routes (our extension, issue 27: core/domaine/webhooks/), one function for all of them
 * (lambdas/http/webhooks.ts), which runs the action of the route's name here.
 */
export const ROUTES_WEBHOOKS = {
  /** Adds an endpoint (201, its secret this once). */
  creer: { methode: 'POST', chemin: '/webhooks' },
  /** The account's endpoints (never a secret). */
  lister: { methode: 'GET', chemin: '/webhooks' },
  /** Removes one (204). */
  supprimer: { methode: 'DELETE', chemin: '/webhooks/{id}' },
  /** Rotates its secret (the old one signs 24 h more). */
  tournerSecret: { methode: 'POST', chemin: '/webhooks/{id}/secret' },
  /** Sends it a `webhook.test` event (202). */
  tester: { methode: 'POST', chemin: '/webhooks/{id}/test' },
  /** Its newest deliveries. */
  livraisons: { methode: 'GET', chemin: '/webhooks/{id}/livraisons' },
  /** Resends a failed delivery (202). */
  renvoyer: { methode: 'POST', chemin: '/webhooks/{id}/livraisons/{livraison}/renvoyer' },
} as const satisfies Record<string, Pick<Route, 'methode' | 'chemin'>>;

export type RouteWebhook = keyof typeof ROUTES_WEBHOOKS;

export const ROUTES: readonly Route[] = [
  { methode: 'GET', chemin: '/outils', fonction: 'outils', authentifiee: false },
  { methode: 'GET', chemin: '/openapi.json', fonction: 'openapi', authentifiee: false },
  { methode: 'GET', chemin: '/solde', fonction: 'solde', authentifiee: true },
  { methode: 'GET', chemin: '/travaux', fonction: 'travaux-liste', authentifiee: true },
  { methode: 'POST', chemin: '/travaux', fonction: 'travaux-creer', authentifiee: true },
  { methode: 'POST', chemin: '/televersements', fonction: 'televersements-creer', authentifiee: true },
  { methode: 'GET', chemin: '/travaux/{id}', fonction: 'travail', authentifiee: true },
  { methode: 'GET', chemin: '/lots/{id}', fonction: 'lot', authentifiee: true },
  // Our extension: erasure on request (core/domaine/effacement/).
  { methode: 'DELETE', chemin: '/travaux/{id}', fonction: 'travail-effacer', authentifiee: true },
  { methode: 'DELETE', chemin: '/lots/{id}', fonction: 'lot-effacer', authentifiee: true },
  // The web site's account and API pages (core/domaine/utilisateurs.ts, comptes.ts).
  { methode: 'GET', chemin: '/compte', fonction: 'compte', authentifiee: true, session: true },
  { methode: 'GET', chemin: '/compte/cles', fonction: 'cles-liste', authentifiee: true, session: true },
  { methode: 'POST', chemin: '/compte/cles', fonction: 'cles-creer', authentifiee: true, session: true },
  { methode: 'DELETE', chemin: '/compte/cles/{id}', fonction: 'cle-revoquer', authentifiee: true, session: true },
  { methode: 'GET', chemin: '/compte/mouvements', fonction: 'mouvements', authentifiee: true, session: true },
  // Webhooks (our extension: core/domaine/webhooks/), one function for all their routes.
  ...Object.values(ROUTES_WEBHOOKS).map((r) => ({ ...r, fonction: 'webhooks', authentifiee: true })),
  // The MCP server for AI assistants (Streamable HTTP, stateless): an API key only. Its handler is the MCP
  // server's own, clients/mcp/src/lambda.ts (lib/fonction.ts): lambdas/ imports nothing from clients/.
  { methode: 'POST', chemin: '/mcp', fonction: 'mcp', authentifiee: true },
  // Stripe's webhook: public, trusted by its signature (core/domaine/achats.ts).
  { methode: 'POST', chemin: '/paiements/stripe', fonction: 'paiement-stripe', authentifiee: false },
];

/** Media types API Gateway must pass as binary (base64) so uploads arrive intact. */
export const TYPES_BINAIRES = ['multipart/form-data', 'image/*', 'application/octet-stream'] as const;
