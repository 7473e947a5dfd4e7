/**
 * The local listing writer: a Markdown listing in one of six languages built only from what the
 * agent gave (`lieu`, `infos`, `atouts`, the number of photos). It invents nothing — no price,
 * surface or room count that was not given — which is also the rule the production prompt enforces.
 */

type Langue = 'French' | 'English' | 'Dutch' | 'German' | 'Spanish' | 'Italian';

interface Gabarit {
  titre: (lieu: string) => string;
  intro: (lieu: string) => string;
  faits: string;
  atouts: string;
  photos: (n: number) => string;
  contact: string;
}

const GABARITS: Record<Langue, Gabarit> = {
  French: {
    titre: (lieu) => `À vendre à ${lieu}`,
    intro: (lieu) => `Découvrez ce bien situé à ${lieu}, présenté ici avec les informations fournies par l'agence.`,
    faits: 'Les informations clés',
    atouts: 'Les points forts',
    photos: (n) => `${n} photo${n > 1 ? 's' : ''} accompagne${n > 1 ? 'nt' : ''} cette annonce.`,
    contact: "Contactez l'agence pour organiser une visite.",
  },
  English: {
    titre: (lieu) => `For sale in ${lieu}`,
    intro: (lieu) => `Discover this property in ${lieu}, presented with the details provided by the agency.`,
    faits: 'Key facts',
    atouts: 'Highlights',
    photos: (n) => `${n} photo${n > 1 ? 's' : ''} come${n > 1 ? '' : 's'} with this listing.`,
    contact: 'Contact the agency to arrange a viewing.',
  },
  Dutch: {
    titre: (lieu) => `Te koop in ${lieu}`,
    intro: (lieu) => `Ontdek deze woning in ${lieu}, voorgesteld met de gegevens van het makelaarskantoor.`,
    faits: 'Kenmerken',
    atouts: 'Troeven',
    photos: (n) => `Bij deze advertentie hoort ${n} foto${n > 1 ? "'s" : ''}.`,
    contact: 'Neem contact op met het kantoor voor een bezichtiging.',
  },
  German: {
    titre: (lieu) => `Zu verkaufen in ${lieu}`,
    intro: (lieu) => `Entdecken Sie diese Immobilie in ${lieu}, vorgestellt mit den Angaben der Agentur.`,
    faits: 'Eckdaten',
    atouts: 'Besonderheiten',
    photos: (n) => `Zu diesem Angebot ${n > 1 ? 'gehören' : 'gehört'} ${n} Foto${n > 1 ? 's' : ''}.`,
    contact: 'Kontaktieren Sie die Agentur für eine Besichtigung.',
  },
  Spanish: {
    titre: (lieu) => `En venta en ${lieu}`,
    intro: (lieu) => `Descubra este inmueble en ${lieu}, presentado con los datos facilitados por la agencia.`,
    faits: 'Datos clave',
    atouts: 'Puntos fuertes',
    photos: (n) => `${n === 1 ? 'Este anuncio incluye 1 foto.' : `Este anuncio incluye ${n} fotos.`}`,
    contact: 'Póngase en contacto con la agencia para concertar una visita.',
  },
  Italian: {
    titre: (lieu) => `In vendita a ${lieu}`,
    intro: (lieu) => `Scoprite questo immobile a ${lieu}, presentato con le informazioni fornite dall'agenzia.`,
    faits: 'Dati principali',
    atouts: 'Punti di forza',
    photos: (n) => `${n === 1 ? 'Questo annuncio include 1 foto.' : `Questo annuncio include ${n} foto.`}`,
    contact: "Contattate l'agenzia per fissare una visita.",
  },
};

/** The agent's words go into Markdown as text: no heading, link, emphasis or HTML can be injected. */
export const echapperMarkdown = (texte: string): string =>
  texte
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+!|<>~]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-=])/, '$1\\$2')
    .replace(/^(\s*\d+)\./, '$1\\.')
    .trim();

// A comma between digits is part of a number ("€465,000", "2,5 km"), not a list separator.
const elements = (texte: string | undefined): string[] =>
  (texte ?? '')
    .split(/[\n;]+|,(?!\d)|(?<!\d),/)
    .map((s) => s.trim())
    .filter(Boolean);

export const redigerAnnonceLocale = (valeurs: Readonly<Record<string, string>>, nombrePhotos: number): string => {
  const gabarit = GABARITS[(valeurs.langue as Langue) in GABARITS ? (valeurs.langue as Langue) : 'Dutch'];
  const lieu = echapperMarkdown(valeurs.lieu ?? '');
  const lignes = [`# ${gabarit.titre(lieu)}`, '', gabarit.intro(lieu)];
  const faits = elements(valeurs.infos);
  if (faits.length > 0) lignes.push('', `## ${gabarit.faits}`, '', ...faits.map((f) => `- ${echapperMarkdown(f)}`));
  const atouts = elements(valeurs.atouts);
  if (atouts.length > 0) lignes.push('', `## ${gabarit.atouts}`, '', ...atouts.map((a) => `- ${echapperMarkdown(a)}`));
  if (nombrePhotos > 0) lignes.push('', gabarit.photos(nombrePhotos));
  lignes.push('', gabarit.contact, '');
  return lignes.join('\n');
};
