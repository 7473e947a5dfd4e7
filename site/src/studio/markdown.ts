/**
 * The listing text's Markdown (what `annonce` writes: headings, lists, paragraphs, bold and italics),
 * read into blocks of plain text that the page renders with its own elements (TexteAnnonce.vue). Nothing
 * here builds HTML: every character of the text ends up in a text node, so a text that holds `<script>`
 * or an `<img onerror>` shows it as written and runs nothing (the site's policy forbids inline scripts
 * anyway). What it does not know (a table, a link, code) shows as its text, never as a raw `#`.
 */

export interface Morceau {
  texte: string;
  gras?: true;
  italique?: true;
}

export type Bloc =
  | { type: 'titre'; niveau: 1 | 2 | 3; morceaux: Morceau[] }
  | { type: 'paragraphe'; morceaux: Morceau[] }
  | { type: 'liste'; ordonnee: boolean; elements: Morceau[][] }
  | { type: 'separation' };

/** `**bold**`, `__bold__`, `*italic*`, `_italic_`; links keep their text; backslash escapes what follows. */
export const lireEnLigne = (ligne: string): Morceau[] => {
  const sansLiens = ligne.replace(/!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1').replace(/`([^`]*)`/g, '$1');
  const morceaux: Morceau[] = [];
  const motif = /\\([\\`*_{}[\]()#+\-.!])|\*\*(.+?)\*\*|__(.+?)__|\*(?!\s)(.+?)\*|(?<![\p{L}\p{N}])_(?!\s)(.+?)_(?![\p{L}\p{N}])/gu;
  let fin = 0;
  const ajouter = (m: Morceau) => {
    if (!m.texte) return;
    const dernier = morceaux[morceaux.length - 1];
    if (dernier && dernier.gras === m.gras && dernier.italique === m.italique) dernier.texte += m.texte;
    else morceaux.push(m);
  };
  for (const m of sansLiens.matchAll(motif)) {
    ajouter({ texte: sansLiens.slice(fin, m.index) });
    if (m[1] !== undefined) ajouter({ texte: m[1] });
    else if (m[2] !== undefined || m[3] !== undefined) ajouter({ texte: (m[2] ?? m[3])!.replace(/[*_]/g, ''), gras: true });
    else ajouter({ texte: (m[4] ?? m[5])!, italique: true });
    fin = m.index + m[0].length;
  }
  ajouter({ texte: sansLiens.slice(fin) });
  return morceaux;
};

const PUCE = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMERO = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const TITRE = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const SEPARATION = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

/** The text's blocks, in order. */
export const lireMarkdown = (texte: string): Bloc[] => {
  const blocs: Bloc[] = [];
  let paragraphe: string[] = [];
  let liste: { ordonnee: boolean; elements: string[] } | null = null;
  const fermer = () => {
    if (paragraphe.length > 0) blocs.push({ type: 'paragraphe', morceaux: lireEnLigne(paragraphe.join(' ')) });
    if (liste) blocs.push({ type: 'liste', ordonnee: liste.ordonnee, elements: liste.elements.map(lireEnLigne) });
    paragraphe = [];
    liste = null;
  };
  for (const ligne of texte.replace(/\r\n?/g, '\n').split('\n')) {
    const titre = TITRE.exec(ligne);
    const puce = PUCE.exec(ligne);
    const numero = NUMERO.exec(ligne);
    if (!ligne.trim()) fermer();
    else if (SEPARATION.test(ligne) && !liste) {
      fermer();
      blocs.push({ type: 'separation' });
    } else if (titre) {
      fermer();
      blocs.push({ type: 'titre', niveau: Math.min(3, titre[1]!.length) as 1 | 2 | 3, morceaux: lireEnLigne(titre[2]!) });
    } else if (puce || numero) {
      const ordonnee = !puce;
      if (paragraphe.length > 0 || (liste && liste.ordonnee !== ordonnee)) fermer();
      liste ??= { ordonnee, elements: [] };
      liste.elements.push((puce ?? numero)![1]!);
    } else if (liste && /^\s+\S/.test(ligne)) {
      // A list item's continuation line.
      liste.elements[liste.elements.length - 1] += ` ${ligne.trim()}`;
    } else {
      if (liste) fermer();
      paragraphe.push(ligne.trim());
    }
  }
  fermer();
  return blocs;
};
