/**
 * One POST to the MCP route and its answer, as the gateway hands them over: shared by the fast path
 * (http.ts) and the official SDK's (http-sdk.ts), which http.ts loads on first need, so neither imports
 * the other for its types.
 */
export interface RequeteHttpMcp {
  methode: string;
  /** The request's URL (the SDK's transport gives it to handlers; ours do not read it). */
  url: string;
  entetes: Headers;
  corps: Uint8Array | undefined;
}

/** The answer, as the gateway takes it; header names in lower case, as a web Response gives them. */
export interface ReponseHttpMcp {
  statut: number;
  entetes: Record<string, string>;
  corps: string;
}
