/**
 * One launch, from the click to its results: the photos uploaded (envoi.ts), the jobs started with the launch's
 * Idempotency-Key (a retry is charged once), then GET /lots/{id} or GET /travaux/{id} every 1.5 s (sondage.ts) until
 * every job has ended and, for a batch, its ZIP is there. Its component leaving the page cuts the uploads, stops the
 * polling and frees the previews.
 */
import { computed, onBeforeUnmount, onMounted, reactive, ref, type ComputedRef } from 'vue';
import { useI18n } from 'vue-i18n';
import { ErreurApi } from '../api';
import { decrire, type Erreur } from '../erreurs';
import { lancer, lireLot, lireTravail, type CorpsLancement, type Lancement, type Lot, type Travail } from './appels';
import type { DemandeLancement, PhotoChoisie, Suivi } from './demande';
import { EnvoiIncomplet, envoyerPhotos } from './envoi';
import { garderLancement, oublierLancement } from './lancements';
import { creerSondage } from './sondage';

/** After a reload, the photos are gone from the page: each job stands for its photo, by its name (no "before"). */
const photoReprise = (t: { id: string; nom: string | null }, i: number): PhotoChoisie => ({
  id: t.id,
  fichier: new File([], t.nom ?? `${i + 1}`),
  type: 'image/jpeg',
  apercu: '',
});

/** What the component shows of the launch, in one object: the upload, the start and the polling below each change part of it. */
const etatLancement = (demande: DemandeLancement) => {
  const parPhoto = demande.outil.images.par_lot;
  const reprise = demande.reprise;
  const suivis = reactive<Suivi[]>(
    reprise
      ? parPhoto
        ? reprise.travaux.map((t, i) => ({ photo: photoReprise(t, i), envoi: 1, idTravail: t.id }))
        : []
      : demande.photos.map((photo) => ({ photo, envoi: 0 })),
  );
  return {
    parPhoto,
    suivis,
    /** `annonce`: one job for all its photos. */
    travailUnique: ref<Travail | null>(null),
    lot: ref<Lot | null>(null),
    idLot: ref<string | null>(null),
    phase: ref<'envoi' | 'lancement' | 'suivi' | 'fini' | 'erreur'>('envoi'),
    coutTotal: ref<number | null>(null),
    erreur: ref<Erreur | null>(null),
    avisReseau: ref(''),
  };
};
type EtatLancement = ReturnType<typeof etatLancement>;

/** The jobs known so far, however the launch holds them, so that the counts read the same for a batch and for one job. */
const resumer = ({ parPhoto, suivis, travailUnique }: EtatLancement) => {
  const travaux = computed<Travail[]>(() =>
    parPhoto ? suivis.flatMap((s) => (s.travail ? [s.travail] : [])) : travailUnique.value ? [travailUnique.value] : [],
  );
  const finis = (statut: Travail['statut']) => travaux.value.filter((tr) => tr.statut === statut).length;
  const compte = computed(() => ({ total: travaux.value.length, termines: finis('termine'), echecs: finis('echec') }));
  return { travaux, compte };
};

const majTravail = ({ parPhoto, suivis, travailUnique }: EtatLancement, travail: Travail) => {
  if (!parPhoto) travailUnique.value = travail;
  else {
    const suivi = suivis.find((s) => s.travail?.id === travail.id || s.idTravail === travail.id);
    if (suivi) suivi.travail = travail;
  }
};

/** True once there is nothing more to follow. */
const lireTravaux = async (etat: EtatLancement, travaux: ComputedRef<Travail[]>, reprise: DemandeLancement['reprise'], actif: () => boolean) => {
  if (etat.idLot.value) {
    const l = await lireLot(etat.idLot.value);
    if (!actif()) return false;
    etat.lot.value = l;
    l.travaux.forEach((travail) => majTravail(etat, travail));
    // A batch is over once every job has ended and its ZIP is written; the ZIP's link may still be
    // null a moment after that (an erased job's ZIP written again), so the page waits for it.
    return l.statut === 'echec' || (l.statut !== 'en_cours' && l.zip !== null);
  }
  // One job without a batch; after a reload, known by its id until the first answer.
  const seul = travaux.value[0]?.id ?? reprise?.travaux[0]?.id;
  if (!seul) return true;
  const travail = await lireTravail(seul);
  if (!actif()) return false;
  majTravail(etat, travail);
  return travail.statut === 'termine' || travail.statut === 'echec';
};

const useSuiviTravaux = (etat: EtatLancement, demande: DemandeLancement, travaux: ComputedRef<Travail[]>, solde: () => void, actif: () => boolean) => {
  const { t } = useI18n();
  return creerSondage(
    {
      lire: () => lireTravaux(etat, travaux, demande.reprise, actif),
      lu: () => {
        etat.avisReseau.value = '';
      },
      rate: (e) => {
        // Erased meanwhile (from the history, in another tab): nothing more to follow.
        if (e instanceof ErreurApi && e.statut === 404) {
          oublierLancement(demande.cle);
          etat.erreur.value = { texte: t('studio.suivi.efface') };
          return true;
        }
        etat.avisReseau.value = t('studio.suivi.reessai', { raison: decrire(e).texte });
        return false;
      },
      fini: () => {
        etat.phase.value = 'fini';
        // Failed jobs gave their credits back.
        solde();
      },
    },
    actif,
  );
};

/** What POST /travaux answered: `travaux` are the images that started, in the order sent; `echecs` name the others by position. */
const enregistrerLancement = (etat: EtatLancement, demande: DemandeLancement, reponse: Lancement) => {
  etat.coutTotal.value = reponse.cout_total;
  etat.idLot.value = reponse.lot;
  // Followed again if the page is loaded again (lancements.ts).
  garderLancement({
    cle: demande.cle,
    outil: demande.outil.id,
    lot: reponse.lot,
    travaux: reponse.travaux.map((tr) => ({ id: tr.id, nom: tr.nom })),
    cout_total: reponse.cout_total,
  });
  if (etat.parPhoto) {
    const refus = new Map(reponse.echecs.map((e) => [e.index, e]));
    let suivant = 0;
    etat.suivis.forEach((s, i) => {
      const r = refus.get(i);
      if (r) s.refus = { code: r.code, message: r.message };
      else s.travail = reponse.travaux[suivant++];
    });
  } else etat.travailUnique.value = reponse.travaux[0] ?? null;
};

interface Demarrage {
  demande: DemandeLancement;
  solde: () => void;
  actif: () => boolean;
  signal: AbortSignal;
  /** The jobs started: their polling begins. */
  suivre: () => void;
}

/** The upload, then POST /travaux; `demarrer` again after a failure is the retry, charged once (the launch's key). */
const useDemarrage = (etat: EtatLancement, { demande, solde, actif, signal, suivre }: Demarrage) => {
  const { t } = useI18n();
  const { suivis, phase, erreur } = etat;
  /**
   * The body once sent: a retry after no answer sends it again as it was, since the API answers the same
   * key with another body 422 (the first may have been accepted). Forgotten after a 4xx, which the API
   * does not remember: the next try builds it again (an upload that expired meanwhile is sent again).
   */
  let corpsEnvoye: CorpsLancement | undefined;

  const corps = (): CorpsLancement => ({
    outil: demande.outil.id,
    valeurs: demande.valeurs,
    ...(suivis.length > 0 ? { images: suivis.map((s) => ({ televersement: s.televersement!.id })) } : {}),
  });

  const echouer = (e: unknown) => {
    const sansReponse = phase.value === 'lancement' && e instanceof ErreurApi && (e.statut === 0 || e.statut >= 500);
    if (e instanceof ErreurApi && e.statut >= 400 && e.statut < 500) corpsEnvoye = undefined;
    phase.value = 'erreur';
    if (e instanceof EnvoiIncomplet) erreur.value = { texte: t('studio.suivi.envoiRate', { n: e.rates }, e.rates) };
    // The jobs may have started all the same: what matters is that trying again costs nothing more.
    else if (sansReponse) erreur.value = { texte: t('studio.suivi.sansReponse') };
    else erreur.value = decrire(e);
  };

  return async () => {
    erreur.value = null;
    try {
      if (!corpsEnvoye) {
        phase.value = 'envoi';
        await envoyerPhotos(suivis, signal, actif);
        corpsEnvoye = corps();
      }
      phase.value = 'lancement';
      const reponse = await lancer(corpsEnvoye, demande.cle);
      if (!actif()) return;
      enregistrerLancement(etat, demande, reponse);
      solde();
      phase.value = 'suivi';
      suivre();
    } catch (e) {
      if (actif()) echouer(e);
    }
  };
};

/** `solde`: the balance changed (a launch charged, failed jobs refunded). */
export const useLancement = (demande: DemandeLancement, solde: () => void) => {
  const etat = etatLancement(demande);
  const { travaux, compte } = resumer(etat);
  let actif = true;
  const enPage = () => actif;
  const controleur = new AbortController();
  const sondage = useSuiviTravaux(etat, demande, travaux, solde, enPage);
  const demarrer = useDemarrage(etat, { demande, solde, actif: enPage, signal: controleur.signal, suivre: () => sondage.commencer() });

  onMounted(() => {
    const reprise = demande.reprise;
    if (reprise) {
      // Started before a reload: nothing to send, its jobs to follow again, at once.
      etat.coutTotal.value = reprise.cout_total;
      etat.idLot.value = reprise.lot;
      etat.phase.value = 'suivi';
      sondage.commencer(0);
      return;
    }
    void demarrer();
  });

  onBeforeUnmount(() => {
    actif = false;
    sondage.couper();
    controleur.abort();
    for (const s of etat.suivis) if (s.photo.apercu) URL.revokeObjectURL(s.photo.apercu);
  });

  const { parPhoto, suivis, travailUnique, lot, phase, coutTotal, erreur, avisReseau } = etat;
  return { parPhoto, suivis, travailUnique, lot, phase, coutTotal, erreur, avisReseau, compte, demarrer };
};
