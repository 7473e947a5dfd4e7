/** The progress of an upload, a job or a batch on stderr, for `lancer` and `suivre`. */
import cliProgress from 'cli-progress';
import type { DetailProgression, Lot, Travail } from '../../sdk/src/index';

/**
 * Progress on stderr: bars on a terminal (cli-progress), and a line per change otherwise, so that logs
 * and tests see the states without the control characters of a bar.
 */
export class Progres {
  #barre: cliProgress.SingleBar | undefined;
  #dernier = '';
  readonly #tty: boolean;
  constructor(private readonly flux: NodeJS.WritableStream & { isTTY?: boolean }) {
    this.#tty = flux.isTTY === true;
  }

  #ligne(texte: string) {
    if (texte === this.#dernier) return;
    this.#dernier = texte;
    if (!this.#tty) this.flux.write(`${texte}\n`);
  }

  #demarrer(format: string, total: number, charge: Record<string, unknown>) {
    if (!this.#tty) return;
    if (!this.#barre) {
      this.#barre = new cliProgress.SingleBar({ stream: this.flux, format, hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
      this.#barre.start(total, 0, charge);
    }
  }

  /** The bytes of every file together; with several files, how many are up, and a line as each one is. */
  octets(envoye: number, total: number, detail?: DetailProgression) {
    const fichiers = detail?.fichiers ?? [];
    const finis = fichiers.filter((f) => f.envoye === f.total).length;
    const compte = fichiers.length > 1 ? ` | ${finis}/${fichiers.length} files` : '';
    this.#demarrer('Upload   [{bar}] {percentage}% | {envoye} / {total_mo}{compte}', total, { envoye: mo(0), total_mo: mo(total), compte });
    this.#barre?.update(envoye, { envoye: mo(envoye), compte });
    if (envoye === 0) this.#ligne(`Uploading ${mo(total)}${fichiers.length > 1 ? ` in ${fichiers.length} files` : ''}…`);
    const fichier = detail?.fichier;
    if (fichiers.length > 1 && fichier && fichier.envoye === fichier.total)
      this.#ligne(`  ${fichier.nom ?? `image ${fichier.index}`}: ${mo(fichier.total)} up (${finis}/${fichiers.length})`);
    if (envoye === total && total > 0) this.#ligne(`Uploaded ${mo(total)}.`);
  }

  lot(lot: Lot) {
    this.#demarrer('Batch    [{bar}] {value}/{total} | {termines} done, {echecs} failed, {en_cours} running', lot.total, lot);
    this.#barre?.update(lot.termines + lot.echecs, { termines: lot.termines, echecs: lot.echecs, en_cours: lot.en_cours });
    this.#ligne(`Batch ${lot.id}: ${lot.statut}, ${lot.termines} done, ${lot.echecs} failed, ${lot.en_cours} running of ${lot.total}`);
  }

  travail(travail: Travail) {
    // A job has no measurable progress: its state is the bar's label, full once it has ended.
    this.#demarrer('Job      [{bar}] {statut}', 1, { statut: travail.statut });
    this.#barre?.update(travail.statut === 'termine' || travail.statut === 'echec' ? 1 : 0, { statut: travail.statut });
    this.#ligne(`Job ${travail.id}: ${travail.statut}${travail.test ? ' (test: free, preview engine)' : travail.apercu ? ' (preview engine)' : ''}`);
  }

  arreter() {
    this.#barre?.stop();
    this.#barre = undefined;
  }
}

const mo = (octets: number) => `${(octets / 1_048_576).toFixed(1)} MB`;
