/**
 * POSTing a webhook delivery without SSRF: the same guard as image downloads (telechargement.ts),
 * request-filtering-agent on the address actually connected to, checked at delivery time (a name
 * that resolved to a public address at registration may not now). Redirects are not followed (a
 * 3xx is a failed attempt, as Standard Webhooks' senders do), so no second address is ever reached.
 * Only a local stack started with RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1 may also deliver to
 * http://127.0.0.1 (tests); the CDK stack refuses that setting.
 */
import { request as requeteHttp, type Agent as AgentHttp } from 'node:http';
import { request as requeteHttps, type Agent as AgentHttps } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { DELAI_REPONSE_MS } from '../modele/webhooks';

/** How one attempt went: an HTTP status, or why there was none. */
export type IssueEnvoi = { statut: number; erreur: null } | { statut: null; erreur: string };

export type PosterWebhook = (url: string, corps: string, entetes: Record<string, string>) => Promise<IssueEnvoi>;

export interface OptionsEnvoi {
  /** http://127.0.0.1 too (a local stack for tests only: RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1). */
  boucleLocale?: boolean;
  delaiMs?: number;
  /** Tests over https inject an agent that trusts their CA and allows 127.0.0.1; production never does. */
  agentHttps?: AgentHttps;
}

/** Whether a URL may be an endpoint: https (or http://127.0.0.1 with `boucleLocale`), no credentials, a host name. */
export const raisonRefusUrl = (texte: string, boucleLocale = false): string | null => {
  let url: URL;
  try {
    url = new URL(texte);
  } catch {
    return 'url is not a valid URL.';
  }
  if (url.username || url.password) return 'url must not carry credentials.';
  if (boucleLocale && url.protocol === 'http:' && url.hostname === '127.0.0.1') return null;
  if (url.protocol !== 'https:') return 'url must use https.';
  const hote = url.hostname.toLowerCase();
  // An IP literal, or a name that can only be this machine or a private network's: refused outright
  // (a name is also checked where it resolves, at each delivery).
  if (/^[\d.]+$/.test(hote) || hote.startsWith('[')) return 'url must name its host (an IP address is refused).';
  if (hote === 'localhost' || hote.endsWith('.localhost') || hote.endsWith('.internal') || hote.endsWith('.local') || !hote.includes('.'))
    return 'url must name a public host.';
  return null;
};

/** Whether a URL names this machine: a loopback address or a `localhost` name. */
const surCetteMachine = (url: URL): boolean => {
  const hote = url.hostname.toLowerCase();
  return hote === 'localhost' || hote.endsWith('.localhost') || /^127\.[\d.]+$/.test(hote) || hote === '[::1]';
};

/**
 * What a local stack adds to the refusal of an endpoint on this machine: how to allow it (the stack
 * started with RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1, and http://127.0.0.1). Null for any other refusal,
 * and never said on AWS, where no setting allows it.
 */
export const conseilBoucleLocale = (texte: string): string | null => {
  if (raisonRefusUrl(texte, true) === null)
    return 'Locally, start the stack with RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1 npm start to allow http://127.0.0.1 endpoints (for trying and tests only).';
  let url: URL;
  try {
    url = new URL(texte);
  } catch {
    return null;
  }
  if (url.username || url.password || !surCetteMachine(url)) return null;
  return 'Locally, a receiver on this machine is http://127.0.0.1:<port>/…, allowed once the stack is started with RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1 npm start (for trying and tests only).';
};

export const creerPosteur = (options: OptionsEnvoi = {}): PosterWebhook => {
  const delaiMs = options.delaiMs ?? DELAI_REPONSE_MS;
  const agentHttps = options.agentHttps ?? new RequestFilteringHttpsAgent({ keepAlive: false });
  // Loopback only, and only when asked: every other private address stays refused.
  const agentHttp: AgentHttp | undefined = options.boucleLocale ? new RequestFilteringHttpAgent({ allowIPAddressList: ['127.0.0.1'] }) : undefined;
  return (adresse, corps, entetes) => {
    const refus = raisonRefusUrl(adresse, options.boucleLocale);
    if (refus) return Promise.resolve({ statut: null, erreur: `refused: ${refus}` });
    const url = new URL(adresse);
    const http = url.protocol === 'http:';
    return new Promise<IssueEnvoi>((resoudre) => {
      const fin = (issue: IssueEnvoi) => resoudre(issue);
      const requete = (http ? requeteHttp : requeteHttps)(
        url,
        {
          method: 'POST',
          agent: http ? agentHttp : agentHttps,
          signal: AbortSignal.timeout(delaiMs),
          headers: { ...entetes, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(corps), 'User-Agent': 'Retouche-Webhooks/1.0' },
        },
        (reponse) => {
          // The body is not read beyond what arrives: only the status counts.
          reponse.resume();
          fin({ statut: reponse.statusCode ?? 0, erreur: null });
        },
      );
      requete.on('error', (erreur: Error) => {
        const message = erreur.message ?? '';
        if (/is not allowed/.test(message)) fin({ statut: null, erreur: 'refused: the endpoint resolves to an address that is not allowed' });
        else if (erreur.name === 'AbortError' || erreur.name === 'TimeoutError') fin({ statut: null, erreur: `no answer within ${delaiMs / 1000} s` });
        else fin({ statut: null, erreur: `connection failed (${(erreur as NodeJS.ErrnoException).code ?? 'error'})` });
      });
      requete.end(corps);
    });
  };
};
