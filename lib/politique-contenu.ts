/**
 * The web site's Content Security Policy, one text for the local server (local/site.ts) and for
 * CloudFront's response headers (lib/site.ts): scripts and styles from the site itself only, no inline
 * code, no eval; connections to the site (its API is under the same origin), its user pool and the
 * storage the studio PUTs photos to (POST /televersements' signed URLs) only; images also from the
 * result links' origin; no framing. Kept free of CDK imports: `npm start` reads it.
 */
export const politiqueContenu = (origines: {
  cognito: string;
  liens?: string;
  /** The origin of the upload URLs (the bucket's, or the local S3's): the studio's PUTs go straight there. */
  televersements?: string;
}): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // Photos chosen in the page (blob:), results behind their signed links.
    `img-src 'self' data: blob:${origines.liens ? ` ${origines.liens}` : ''}`,
    `connect-src 'self' ${origines.cognito}${origines.televersements ? ` ${origines.televersements}` : ''}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
