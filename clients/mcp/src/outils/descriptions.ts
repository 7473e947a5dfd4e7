/** The texts an assistant reads out about the tools, jobs and batches (the API's objects go beside them, whole). */
import { estLot, type Lot, type Outil, type Travail } from '../../../sdk/src/index';

export const decrireOutil = (outil: Outil): string => {
  const photos =
    outil.images.max === 0
      ? 'no photo'
      : `${outil.images.min} to ${outil.images.max} photos${outil.images.par_lot ? ' (one job each, a batch)' : ' (one job)'}`;
  const champs = outil.champs.map((c) => {
    const valeurs = c.valeurs ? `: ${c.valeurs.join(', ')}` : c.longueur_max ? `: free text, up to ${c.longueur_max} characters` : '';
    const defaut = c.defaut === undefined ? '' : ` (default ${c.defaut})`;
    return `  - ${c.nom}${c.requis ? ' (required)' : ''}${valeurs}${defaut}. ${c.description}`;
  });
  return [`${outil.id} — ${outil.nom}, ${outil.cout} credits per job, ${photos}: ${outil.resume}`, ...champs].join('\n');
};

export const decrire = (etat: Travail | Lot): string => (estLot(etat) ? decrireLot(etat) : decrireTravail(etat));

export const decrireTravail = (t: Travail, retrait = ''): string => {
  const nom = t.nom ? `, ${t.nom}` : '';
  // A preview (every test key's job, and a stage that runs the preview engine): said, so that an assistant
  // does not present its result as the production engine's.
  const test = t.test ? ' Test job: free, made by the preview engine.' : '';
  const apercu =
    t.apercu && !t.test
      ? ' Made by the preview engine, a stand-in without a trained model: not production quality; each result image is marked "Preview".'
      : '';
  const lignes = [`${retrait}Job ${t.id} (${t.outil}${nom}): ${t.statut}.${test}${apercu}`];
  if (t.statut === 'echec') {
    lignes.push(
      `${retrait}Failed: ${t.erreur ? `${t.erreur.code}: ${t.erreur.message}` : 'no cause given'}${t.rembourse ? ` Its ${t.cout} credits were refunded.` : ''}`,
    );
  }
  for (const lien of t.resultats) lignes.push(`${retrait}Result${t.apercu ? ' (preview, marked)' : ''}: ${lien.url} (valid until ${lien.expire_le})`);
  if (t.texte) lignes.push(`${retrait}Listing text (Markdown):\n\n${t.texte}`);
  return lignes.join('\n');
};

const decrireLot = (l: Lot): string =>
  [
    `Batch ${l.id} (${l.outil}): ${l.statut}, ${l.termines} done, ${l.echecs} failed, ${l.en_cours} running, of ${l.total}.`,
    ...(l.zip ? [`ZIP of every result: ${l.zip.url} (valid until ${l.zip.expire_le})`] : []),
    ...l.travaux.map((t) => decrireTravail(t, '  ')),
  ].join('\n');
