/** A ZIP read back into memory, file name → bytes (batch ZIPs in the tests). */
import yauzl from 'yauzl';

export const lireZip = (octets: Buffer): Promise<Map<string, Buffer>> =>
  new Promise((resoudre, rejeter) => {
    const fichiers = new Map<string, Buffer>();
    yauzl.fromBuffer(octets, { lazyEntries: true }, (erreur, archive) => {
      if (erreur || !archive) return rejeter(erreur);
      archive.on('error', rejeter);
      archive.on('entry', (entree: yauzl.Entry) =>
        archive.openReadStream(entree, (e, flux) => {
          if (e || !flux) return rejeter(e);
          const morceaux: Buffer[] = [];
          flux.on('data', (m: Buffer) => morceaux.push(m));
          flux.on('end', () => {
            fichiers.set(entree.fileName, Buffer.concat(morceaux));
            archive.readEntry();
          });
        }),
      );
      archive.on('end', () => resoudre(fichiers));
      archive.readEntry();
    });
  });
