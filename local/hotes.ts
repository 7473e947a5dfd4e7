/**
 * The hosts the local stack answers on, for its result links. The gateway listens on 127.0.0.1 only, and
 * a browser or a script reaches it as `localhost:<port>` or `127.0.0.1:<port>`: a link on the other name
 * is another origin, which the web site's Content Security Policy does not let it show (the studio opened
 * at 127.0.0.1 saw every "after" image blank while links were on localhost). So each request's links are
 * on the host it came by, when that is one of these; any other Host header (which a client sets as it
 * likes) gets the default, never a link on a host it named.
 *
 * A request's host is carried to the link signer without threading it through the handlers, which are
 * the AWS ones unchanged (on AWS the links' host is the CloudFront distribution, whatever the request's).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The names of this machine that reach the gateway. */
export const NOMS_LOCAUX = ['localhost', '127.0.0.1'] as const;

/** `localhost:3000`, `127.0.0.1:3000` (without `:80`, which a client leaves out); the first is the default. */
export const hotesLocaux = (port: number): string[] => NOMS_LOCAUX.map((nom) => (port === 80 ? nom : `${nom}:${port}`));

/** The request's Host header when it is one of `hotes` (compared without case, as host names are), else undefined. */
export const hoteAccepte = (entete: string | readonly string[] | undefined, hotes: readonly string[]): string | undefined => {
  if (typeof entete !== 'string') return undefined;
  const hote = entete.trim().toLowerCase();
  return hotes.includes(hote) ? hote : undefined;
};

/** The Host header of an API Gateway event (its names keep the case the client sent). */
export const enteteHote = (headers: Readonly<Record<string, string | undefined>> | null | undefined): string | undefined =>
  Object.entries(headers ?? {}).find(([nom]) => nom.toLowerCase() === 'host')?.[1];

/** The accepted host of the request being handled, where a handler runs inside `pendant`. */
const hoteDeLaRequete = new AsyncLocalStorage<string>();

/** Runs `fn` (a handler) with `hote` as its request's host, when there is one. */
export const pendant = <T>(hote: string | undefined, fn: () => T): T => (hote === undefined ? fn() : hoteDeLaRequete.run(hote, fn));

/** The accepted host of the request being handled, if any. */
export const hoteCourant = (): string | undefined => hoteDeLaRequete.getStore();
