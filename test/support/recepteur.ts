/**
 * A webhook receiver on 127.0.0.1 for the tests (the stacks they start allow loopback deliveries): it
 * records every POST and answers, per path, the statuses `reponses` lists in turn (the last one from
 * then on), 200 when none is set.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recu {
  chemin: string;
  entetes: IncomingHttpHeaders;
  corps: string;
  /** The body as it came, bytes. */
  octets: Buffer;
  /** When it arrived (epoch ms). */
  le: number;
}

export const demarrerRecepteur = async () => {
  const recus: Recu[] = [];
  const reponses = new Map<string, number[]>();
  const serveur = createServer((req, res) => {
    const morceaux: Buffer[] = [];
    req.on('data', (m: Buffer) => morceaux.push(m));
    req.on('end', () => {
      const chemin = req.url ?? '/';
      const octets = Buffer.concat(morceaux);
      recus.push({ chemin, entetes: req.headers, corps: octets.toString('utf8'), octets, le: Date.now() });
      const file = reponses.get(chemin);
      res.writeHead(file && file.length > 1 ? file.shift()! : (file?.[0] ?? 200)).end();
    });
  });
  await new Promise<void>((r) => serveur.listen(0, '127.0.0.1', r));
  const port = (serveur.address() as AddressInfo).port;
  return {
    recus,
    reponses,
    /** Delivered to `chemin`. */
    de: (chemin: string) => recus.filter((r) => r.chemin === chemin),
    url: (chemin: string) => `http://127.0.0.1:${port}${chemin}`,
    arreter: () => new Promise<void>((r) => serveur.close(() => r())),
  };
};
export type Recepteur = Awaited<ReturnType<typeof demarrerRecepteur>>;

/** Waits until `fn` gives something (a delivery has come), polling every 25 ms; `quoi` names it when it never does. */
export const attendre = async <T>(quoi: string, fn: () => T | undefined | false, delaiMs = 20_000): Promise<T> => {
  const fin = Date.now() + delaiMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > fin) throw new Error(`still waiting: ${quoi}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
