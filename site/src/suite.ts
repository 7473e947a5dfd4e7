/**
 * Where the sign-in page goes once signed in (`?suite=`, which the router's guard sets). A module of its own:
 * in router.ts the sign-in page, which the router loads, would load the router back.
 */

/** A `?suite=` that stays on this site: a path, never `//host`, `/\host` or a URL. */
export const suiteSure = (suite: unknown): string => (typeof suite === 'string' && /^\/(?![/\\])/.test(suite) ? suite : '/compte');
