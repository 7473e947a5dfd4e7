/**
 * The listing text as the studio and the history show it (issue 41, point 2): its Markdown read into blocks
 * of plain text (site/src/studio/markdown.ts), which the page renders with its own elements: never a raw '#',
 * and never HTML from the text.
 */
import { describe, expect, it } from 'vitest';
import { lireEnLigne, lireMarkdown } from '../../site/src/studio/markdown';

describe('a listing text’s Markdown', () => {
  it('reads the template’s text into headings, paragraphs and lists, without their marks', () => {
    const texte =
      '# For sale in Gent, Patershol\n\nDiscover this property in Gent.\nIt is **bright**.\n\n## Key facts\n\n- 3 bedrooms\n- 128 m²\n\n1. first\n2) second\n\n---\nContact the agency.\n';
    expect(lireMarkdown(texte)).toEqual([
      { type: 'titre', niveau: 1, morceaux: [{ texte: 'For sale in Gent, Patershol' }] },
      { type: 'paragraphe', morceaux: [{ texte: 'Discover this property in Gent. It is ' }, { texte: 'bright', gras: true }, { texte: '.' }] },
      { type: 'titre', niveau: 2, morceaux: [{ texte: 'Key facts' }] },
      { type: 'liste', ordonnee: false, elements: [[{ texte: '3 bedrooms' }], [{ texte: '128 m²' }]] },
      { type: 'liste', ordonnee: true, elements: [[{ texte: 'first' }], [{ texte: 'second' }]] },
      { type: 'separation' },
      { type: 'paragraphe', morceaux: [{ texte: 'Contact the agency.' }] },
    ]);
  });

  it('keeps HTML as text, links as their words, and words with underscores whole', () => {
    expect(lireEnLigne('<img src=x onerror=alert(1)> *calme* [voir](javascript:alert(1)) rez_de_chaussée')).toEqual([
      { texte: '<img src=x onerror=alert(1)> ' },
      { texte: 'calme', italique: true },
      { texte: ' voir rez_de_chaussée' },
    ]);
    expect(lireEnLigne('\\# not a heading, 2 \\* 3')).toEqual([{ texte: '# not a heading, 2 * 3' }]);
  });

  it('turns deep headings into the third level, and a heading-like line without a space into text', () => {
    expect(lireMarkdown('#### Small\n#hashtag')).toEqual([
      { type: 'titre', niveau: 3, morceaux: [{ texte: 'Small' }] },
      { type: 'paragraphe', morceaux: [{ texte: '#hashtag' }] },
    ]);
  });
});
