/** A free TCP port on 127.0.0.1, for the child processes that cannot be told "any port". */
import { createServer } from 'node:net';

export const portLibre = (): Promise<number> =>
  new Promise((resoudre, rejeter) => {
    const serveur = createServer();
    serveur.unref();
    serveur.on('error', rejeter);
    serveur.listen(0, '127.0.0.1', () => {
      const adresse = serveur.address();
      const port = typeof adresse === 'object' && adresse ? adresse.port : 0;
      serveur.close(() => resoudre(port));
    });
  });
