/**
 * The API, as the site calls it: the signed-in user's ID token where a script puts its key. An answer
 * that is not 2xx has the API's Erreur body; it becomes an ErreurApi with the API's own message, which
 * the pages show. A 401 makes the session try one refresh, then give up (session.ts).
 */
import { lireConfiguration } from './config';
import { useSession } from './session';

export class ErreurApi extends Error {
  constructor(
    readonly statut: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const appeler = async <T>(methode: string, chemin: string, corps?: unknown, deuxieme = false): Promise<T> => {
  const session = useSession();
  const { api } = await lireConfiguration();
  const jeton = await session.jetonValide();
  const reponse = await fetch(`${api}${chemin}`, {
    method: methode,
    headers: { ...(jeton ? { Authorization: `Bearer ${jeton}` } : {}), ...(corps === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: corps === undefined ? undefined : JSON.stringify(corps),
  });
  if (reponse.status === 401 && jeton && !deuxieme && (await session.rafraichir())) return appeler<T>(methode, chemin, corps, true);
  if (reponse.status === 204) return undefined as T;
  const texte = await reponse.text();
  const valeur = texte ? (JSON.parse(texte) as unknown) : undefined;
  if (!reponse.ok) {
    const erreur = (valeur as { error?: { code?: string; message?: string } } | undefined)?.error;
    if (reponse.status === 401) await session.deconnecter();
    throw new ErreurApi(reponse.status, erreur?.code ?? 'internal_error', erreur?.message ?? reponse.statusText);
  }
  return valeur as T;
};

export interface Compte {
  id: string;
  email: string | null;
  credits: number;
  travaux_ouverts: number;
  cles: { actives: number; max: number };
  cree_le: string;
}

export interface Cle {
  id: string;
  nom: string | null;
  apercu: string;
  cree_le: string;
  utilisee_le: string | null;
}

export interface Travail {
  id: string;
  outil: string;
  statut: 'en_attente' | 'en_cours' | 'termine' | 'echec';
  cout: number;
  lot: string | null;
  nom: string | null;
  source: string;
  cree_le: string;
  resultats: { url: string; expire_le: string }[];
  texte: string | null;
  erreur: { code: string; message: string } | null;
  rembourse: boolean;
}
