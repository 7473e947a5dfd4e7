/**
 * One launch, from the click to its results: the photos uploaded (envoi.ts), the jobs started with the launch's
 * Idempotency-Key (a retry is charged once), then GET /lots/{id} or GET /travaux/{id} every 1.5 s until every job
 * has ended and, for a batch, its ZIP is there. Its component leaving the page cuts the uploads, stops the polling
 * and frees the previews.
 */
import { computed, onBeforeUnmount, onMounted, reactive, ref } from 'vue';
import { useI18n } from 'vue-i18n';
import { ErreurApi } from '../api';
import { decrire, type Erreur } from '../erreurs';
import { lancer, lireLot, lireTravail, type CorpsLancement, type Lancement, type Lot, type Travail } from './appels';
import type { DemandeLancement, PhotoChoisie, Suivi } from './demande';
import { EnvoiIncomplet, envoyerPhotos } from './envoi';
import { garderLancement, oublierLancement } from './lancements';

const INTERVALLE_MS = 1500;
/** After a failed poll (the network, a 429): a little slower, still going. */
const INTERVALLE_ERREUR_MS = 5000;

/**
 * The launches of the page following their jobs right now: they share the account's 120 requests a
 * minute, so each polls less often when there are several (one alone: every 1.5 s).
 */
let enSuivi = 0;

/** After a reload, the photos are gone from the page: each job stands for its photo, by its name (no "before"). */
const photoReprise = (t: { id: string; nom: string | null }, i: number): PhotoChoisie => ({
  id: t.id,
  fichier: new File([], t.nom ?? `${i + 1}`),
  type: 'image/jpeg',
  apercu: '',
});

/** `solde`: the balance changed (a launch charged, failed jobs refunded). */
export const useLancement = (demande: DemandeLancement, solde: () => void) => {
  const { t } = useI18n();
  const outil = demande.outil;
  const parPhoto = outil.images.par_lot;
  const reprise = demande.reprise;
  const suivis = reactive<Suivi[]>(
    reprise
      ? parPhoto
        ? reprise.travaux.map((t, i) => ({ photo: photoReprise(t, i), envoi: 1, idTravail: t.id }))
        : []
      : demande.photos.map((photo) => ({ photo, envoi: 0 })),
  );
  /** `annonce`: one job for all its photos. */
  const travailUnique = ref<Travail | null>(null);
  const lot = ref<Lot | null>(null);
  const idLot = ref<string | null>(null);
  const phase = ref<'envoi' | 'lancement' | 'suivi' | 'fini' | 'erreur'>('envoi');
  const coutTotal = ref<number | null>(null);
  const erreur = ref<Erreur | null>(null);
  const avisReseau = ref('');

  let actif = true;
  let minuterie: ReturnType<typeof setTimeout> | undefined;
  const controleur = new AbortController();
  /**
   * The body once sent: a retry after no answer sends it again as it was, since the API answers the same
   * key with another body 422 (the first may have been accepted). Forgotten after a 4xx, which the API
   * does not remember: the next try builds it again (an upload that expired meanwhile is sent again).
   */
  let corpsEnvoye: CorpsLancement | undefined;

  const travaux = computed<Travail[]>(() =>
    parPhoto ? suivis.flatMap((s) => (s.travail ? [s.travail] : [])) : travailUnique.value ? [travailUnique.value] : [],
  );
  const finis = (statut: Travail['statut']) => travaux.value.filter((tr) => tr.statut === statut).length;
  const compte = computed(() => ({ total: travaux.value.length, termines: finis('termine'), echecs: finis('echec') }));

  const corps = (): CorpsLancement => ({
    outil: outil.id,
    valeurs: demande.valeurs,
    ...(suivis.length > 0 ? { images: suivis.map((s) => ({ televersement: s.televersement!.id })) } : {}),
  });

  const majTravail = (travail: Travail) => {
    if (!parPhoto) travailUnique.value = travail;
    else {
      const suivi = suivis.find((s) => s.travail?.id === travail.id || s.idTravail === travail.id);
      if (suivi) suivi.travail = travail;
    }
  };

  /** True once there is nothing more to follow. */
  const lire = async (): Promise<boolean> => {
    if (idLot.value) {
      const l = await lireLot(idLot.value);
      if (!actif) return false;
      lot.value = l;
      l.travaux.forEach(majTravail);
      // A batch is over once every job has ended and its ZIP is written; the ZIP's link may still be
      // null a moment after that (an erased job's ZIP written again), so the page waits for it.
      return l.statut === 'echec' || (l.statut !== 'en_cours' && l.zip !== null);
    }
    // One job without a batch; after a reload, known by its id until the first answer.
    const seul = travaux.value[0]?.id ?? reprise?.travaux[0]?.id;
    if (!seul) return true;
    const travail = await lireTravail(seul);
    if (!actif) return false;
    majTravail(travail);
    return travail.statut === 'termine' || travail.statut === 'echec';
  };

  const sonder = async () => {
    if (!actif) return;
    let fini = false;
    let pause = INTERVALLE_MS;
    try {
      fini = await lire();
      if (!actif) return;
      avisReseau.value = '';
    } catch (e) {
      if (!actif) return;
      // Erased meanwhile (from the history, in another tab): nothing more to follow.
      if (e instanceof ErreurApi && e.statut === 404) {
        oublierLancement(demande.cle);
        erreur.value = { texte: t('studio.suivi.efface') };
        fini = true;
      } else {
        avisReseau.value = t('studio.suivi.reessai', { raison: decrire(e).texte });
        pause = INTERVALLE_ERREUR_MS;
      }
    }
    if (fini) {
      arreterSuivi();
      phase.value = 'fini';
      // Failed jobs gave their credits back.
      solde();
      return;
    }
    minuterie = setTimeout(() => void sonder(), pause * Math.max(1, enSuivi));
  };

  let suit = false;
  const commencerSuivi = (delai = INTERVALLE_MS) => {
    if (!suit) enSuivi += 1;
    suit = true;
    minuterie = setTimeout(() => void sonder(), delai);
  };
  const arreterSuivi = () => {
    if (suit) enSuivi -= 1;
    suit = false;
  };

  /** What POST /travaux answered: `travaux` are the images that started, in the order sent; `echecs` name the others by position. */
  const lance = (reponse: Lancement) => {
    coutTotal.value = reponse.cout_total;
    idLot.value = reponse.lot;
    // Followed again if the page is loaded again (lancements.ts).
    garderLancement({
      cle: demande.cle,
      outil: outil.id,
      lot: reponse.lot,
      travaux: reponse.travaux.map((tr) => ({ id: tr.id, nom: tr.nom })),
      cout_total: reponse.cout_total,
    });
    if (parPhoto) {
      const refus = new Map(reponse.echecs.map((e) => [e.index, e]));
      let suivant = 0;
      suivis.forEach((s, i) => {
        const r = refus.get(i);
        if (r) s.refus = { code: r.code, message: r.message };
        else s.travail = reponse.travaux[suivant++];
      });
    } else travailUnique.value = reponse.travaux[0] ?? null;
  };

  const demarrer = async () => {
    erreur.value = null;
    try {
      if (!corpsEnvoye) {
        phase.value = 'envoi';
        await envoyerPhotos(suivis, controleur.signal, () => actif);
        corpsEnvoye = corps();
      }
      phase.value = 'lancement';
      const reponse = await lancer(corpsEnvoye, demande.cle);
      if (!actif) return;
      lance(reponse);
      solde();
      phase.value = 'suivi';
      commencerSuivi();
    } catch (e) {
      if (!actif) return;
      const sansReponse = phase.value === 'lancement' && e instanceof ErreurApi && (e.statut === 0 || e.statut >= 500);
      if (e instanceof ErreurApi && e.statut >= 400 && e.statut < 500) corpsEnvoye = undefined;
      phase.value = 'erreur';
      if (e instanceof EnvoiIncomplet) erreur.value = { texte: t('studio.suivi.envoiRate', { n: e.rates }, e.rates) };
      // The jobs may have started all the same: what matters is that trying again costs nothing more.
      else if (sansReponse) erreur.value = { texte: t('studio.suivi.sansReponse') };
      else erreur.value = decrire(e);
    }
  };

  onMounted(() => {
    if (reprise) {
      // Started before a reload: nothing to send, its jobs to follow again, at once.
      coutTotal.value = reprise.cout_total;
      idLot.value = reprise.lot;
      phase.value = 'suivi';
      commencerSuivi(0);
      return;
    }
    void demarrer();
  });

  onBeforeUnmount(() => {
    actif = false;
    clearTimeout(minuterie);
    arreterSuivi();
    controleur.abort();
    for (const s of suivis) if (s.photo.apercu) URL.revokeObjectURL(s.photo.apercu);
  });

  return { parPhoto, suivis, travailUnique, lot, phase, coutTotal, erreur, avisReseau, compte, demarrer };
};
