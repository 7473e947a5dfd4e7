/**
 * The OpenAPI document's examples, typed with the service's own types and checked against the
 * schemas by the tests. Error examples are made by the code that makes the errors.
 */
import { validerRequete } from '../messages/travaux';
import { ErreurApi } from '../../modele/erreurs';
import { queryTelechargement } from '../../modele/disposition';
import { nomZip, type Lancement, type Lien, type LienResultat, type Lot, type Travail } from '../../modele/enregistrements';
import type { Json } from './schemas';

export const ID_TRAVAIL = '3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c';
export const ID_LOT = '7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e7f';
export const ID_TELEVERSEMENT = '5f0c8d21-6e4b-4a93-8c7d-0e1f2a3b4c5d';
const COMPTE_EXEMPLE = '0e9d8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b';
const SIGNATURE_EXEMPLE = 'Expires=1767312000&Signature=c2lnbmF0dXJl&Key-Pair-Id=K2EXEMPLE';
const EXPIRE_EXEMPLE = '2026-01-02T10:05:00.000Z';
const urlExemple = (cle: string): string => `https://fichiers.example.com/${cle.split('/').map(encodeURIComponent).join('/')}`;
/** A link that downloads `cle` under `nom`, as core/infra/liens.ts signs it. */
const lienExemple = (cle: string, nom: string): Lien => ({
  url: `${urlExemple(cle)}?${queryTelechargement(nom)}&${SIGNATURE_EXEMPLE}`,
  expire_le: EXPIRE_EXEMPLE,
});
const resultatExemple = (travail: string, fichier: string): LienResultat => {
  const cle = `resultats/${COMPTE_EXEMPLE}/${travail}/${fichier}`;
  const { url, expire_le } = lienExemple(cle, fichier);
  const avant = `televersements/${COMPTE_EXEMPLE}/${travail}.jpg`;
  return { url, url_affichage: `${urlExemple(cle)}?${SIGNATURE_EXEMPLE}`, avant_affichage: `${urlExemple(avant)}?${SIGNATURE_EXEMPLE}`, expire_le };
};

const travailEnAttente: Travail = {
  id: ID_TRAVAIL,
  outil: 'ciel',
  statut: 'en_attente',
  cout: 2,
  valeurs: { floutage: 'faces and plates' },
  lot: null,
  nom: 'jardin.jpg',
  source: 'api',
  cree_le: '2026-01-01T10:00:00.000Z',
  commence_le: null,
  termine_le: null,
  resultats: [],
  texte: null,
  erreur: null,
  rembourse: false,
  redaction: null,
  structure: null,
  floutage: null,
  test: false,
  apercu: false,
};
export const travailEnCours: Travail = { ...travailEnAttente, statut: 'en_cours', commence_le: '2026-01-01T10:00:00.412Z' };
export const travailTermine: Travail = {
  ...travailEnCours,
  statut: 'termine',
  termine_le: '2026-01-01T10:00:07.950Z',
  resultats: [resultatExemple(ID_TRAVAIL, '01-jardin-ciel.jpg')],
  structure: { score: 0.962, seuil: 0.6, essais: 1 },
  floutage: { reglage: 'faces and plates', visages: 2, plaques: 0 },
};
export const travailEchec: Travail = {
  ...travailEnCours,
  id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  nom: 'cave.jpg',
  statut: 'echec',
  termine_le: '2026-01-01T10:00:02.100Z',
  erreur: { code: 'telechargement_echoue', message: 'The image could not be downloaded.' },
  rembourse: true,
};
export const annonceTerminee: Travail = {
  ...travailTermine,
  id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  outil: 'annonce',
  cout: 3,
  valeurs: { lieu: 'Gent, Patershol', langue: 'French', infos: '3 chambres, 128 m²' },
  nom: null,
  resultats: [],
  texte: '# Maison de caractère au cœur du Patershol\n\nÀ deux pas des quais, cette maison de 128 m² offre trois chambres…',
  redaction: { automatique: true, intelligence_artificielle: true, modele: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' },
  structure: null,
  floutage: null,
};
const travauxLot: Travail[] = ['chambre-1.jpg', 'chambre-2.jpg'].map((nom, i) => ({
  ...travailTermine,
  id: `7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e8${i}`,
  outil: 'staging',
  cout: 5,
  valeurs: { piece: 'bedroom', style: 'japandi', mention: 'none' },
  lot: ID_LOT,
  nom,
  floutage: null,
  resultats: [resultatExemple(`7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e8${i}`, `0${i + 1}-${nom.replace(/\.jpg$/, '')}-staging.jpg`)],
}));
export const lotTermine: Lot = {
  id: ID_LOT,
  outil: 'staging',
  statut: 'termine',
  total: 2,
  termines: 2,
  echecs: 0,
  en_cours: 0,
  zip: lienExemple(`zips/${COMPTE_EXEMPLE}/${ID_LOT}.zip`, nomZip({ id: ID_LOT, outil: 'staging', cree_le: '2026-01-01T10:00:00.000Z' })),
  travaux: travauxLot,
  test: false,
};
export const lancementSimple: Lancement = { lot: null, outil: 'ciel', cout_total: 2, travaux: [travailEnAttente], echecs: [] };
export const lancementLot: Lancement = {
  lot: ID_LOT,
  outil: 'staging',
  cout_total: 10,
  travaux: travauxLot.map((t) => ({ ...t, statut: 'en_attente', commence_le: null, termine_le: null, resultats: [] })),
  echecs: [{ index: 2, code: 'invalid_image', message: 'The image is not a JPEG, PNG or WebP file.' }],
};

const URL_PHOTO = 'https://photos.example.com/biens/42/salon.jpg';

/** One request per tool for POST /travaux: what each needs at least, and the image forms. */
export const EXEMPLES_REQUETE_TRAVAUX = {
  vider: { summary: 'vider: one photo by URL (a job)', value: { outil: 'vider', images: [{ url: URL_PHOTO, nom: 'salon.jpg' }] } },
  staging: {
    summary: 'staging: a batch of two uploaded photos, only the style set (piece and mention take their defaults)',
    value: { outil: 'staging', valeurs: { style: 'japandi' }, images: [{ televersement: ID_TELEVERSEMENT, nom: 'chambre-1.jpg' }, { url: URL_PHOTO }] },
  },
  renovation: {
    summary: 'renovation: an interior, refreshed',
    value: { outil: 'renovation', valeurs: { zone: 'interieur', niveau: 'rafraichissement' }, images: [{ url: URL_PHOTO }] },
  },
  saison: {
    summary: 'saison: a photo inline, as a data URL (small photos only: larger ones go through POST /televersements)',
    value: {
      outil: 'saison',
      images: [{ base64: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U', nom: 'hiver.jpg' }],
    },
  },
  ciel: { summary: 'ciel: no settings, so no valeurs', value: { outil: 'ciel', images: [{ url: URL_PHOTO }] } },
  annonce: {
    summary: 'annonce: a listing text, lieu is the one required setting; photos are optional',
    value: { outil: 'annonce', valeurs: { lieu: 'Gent, Patershol', langue: 'French', infos: '3 chambres, 128 m²', atouts: 'jardin, calme' } },
  },
  fusion: {
    summary: 'fusion (Retouche extension): three bracketed exposures of one view, uploaded, merged into one photo (one job)',
    value: {
      outil: 'fusion',
      images: [
        { televersement: ID_TELEVERSEMENT, nom: 'salon-sombre.jpg' },
        { televersement: '5f0c8d21-6e4b-4a93-8c7d-0e1f2a3b4c5e', nom: 'salon.jpg' },
        { televersement: '5f0c8d21-6e4b-4a93-8c7d-0e1f2a3b4c5f', nom: 'salon-clair.jpg' },
      ],
    },
  },
} as const;

/**
 * Error examples are made by the code that makes the errors: the 422 is the one `validerRequete`
 * throws for that body, so its message and `details` are the service's own.
 */
export const exempleErreur = (erreur: ErreurApi) => ({ value: erreur.corps() });
export const exemple422 = (): Json => {
  try {
    validerRequete('staging', { outil: 'staging', valeurs: { style: 'baroque' }, images: [{ url: URL_PHOTO }] });
  } catch (erreur) {
    if (erreur instanceof ErreurApi) return { summary: 'A setting value that is not allowed', ...exempleErreur(erreur) };
  }
  throw new Error('the 422 example body was accepted');
};

export const effacementTravail = { efface_le: '2026-01-03T09:00:00.000Z', travaux: [ID_TRAVAIL], lots: [], zips_refaits: [ID_LOT], fichiers: 3 };

export const EXEMPLES_ERREUR = {
  401: { cle: exempleErreur(new ErreurApi('unauthorized', 'Invalid or revoked API key.')) },
  404: { introuvable: exempleErreur(new ErreurApi('not_found', `No job ${ID_TRAVAIL}.`)) },
  402: { credits: exempleErreur(new ErreurApi('insufficient_credits', 'This request costs 10 credits; the balance is 4.', { credits: 4, requis: 10 })) },
  409: {
    efface: exempleErreur(
      new ErreurApi(
        'work_erased',
        'The work this Idempotency-Key started was erased on 2026-01-03T09:00:00.000Z: nothing was started or charged. To start it again, send the request with a new Idempotency-Key.',
        { efface_le: '2026-01-03T09:00:00.000Z' },
      ),
    ),
  },
  429: {
    cadence: exempleErreur(new ErreurApi('rate_limited', 'More than 120 requests per minute on this key: retry in 17 s.', { retry_after: 17 })),
  },
};

// ——— Webhooks (our extension) ———

export const ID_WEBHOOK = 'wh_3f9a1c0d5e7b2a4c6d8e0f12';
export const SECRET_EXEMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const webhookExemple = {
  id: ID_WEBHOOK,
  url: 'https://example.com/retouche',
  evenements: ['travail.fini', 'lot.fini'],
  etat: 'actif',
  cree_le: '2026-01-01T09:00:00.000Z',
  test: false,
};
export const livraisonExemple = {
  id: 'msg_fvyrmqvxe2yeialcpsu7xlbs6x',
  webhook: ID_WEBHOOK,
  type: 'travail.fini',
  travail: ID_TRAVAIL,
  lot: null,
  statut: 'reussie',
  tentatives: 1,
  prochaine_tentative: null,
  derniere_tentative: { le: '2026-01-01T10:00:05.000Z', statut_http: 200, erreur: null },
  cree_le: '2026-01-01T10:00:05.000Z',
};
