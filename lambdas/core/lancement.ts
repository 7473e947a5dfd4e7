/**
 * `POST /travaux`: from the raw request to started jobs.
 *
 *   read the body (JSON or multipart) → check tool, counts, settings (schemas.ts) → check each image's
 *   bytes → store inputs in S3 → ONE transaction: debit the whole cost under the balance and
 *   pending-jobs conditions + write every job (+ batch, + idempotency record) → one execution per job.
 *
 * Nothing is charged unless the transaction commits, and it commits whole or not at all. If an
 * execution then cannot start, that job is failed and refunded (cycle.ts); if this function dies
 * between the commit and the start, the reconciler (pipeline/relancer.ts) starts it later.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { lireCompte } from './comptes';
import { lireTravaux } from './consultation';
import { rembourserTravail } from './cycle';
import type { Dependances } from './dependances';
import { ErreurApi } from './erreurs';
import { decoderBase64, detecterFormat, EXTENSIONS, MAX_OCTETS_REQUETE, TYPES_MIME, type FormatImage } from './images';
import { journal } from './journal';
import { finaliserLot } from './lots';
import { compterRemboursement } from './mesures';
import type { EchecImage, EnregistrementLot, EnregistrementTravail, Entree, Lancement } from './modele';
import { versTravail } from './modele';
import { lireMultipart } from './multipart';
import { CATALOGUE, estOutil, MAX_IMAGES_LOT, OUTILS, type IdOutil } from './outils';
import { validerRequete, type ImageEntree } from './schemas';
import { cles, JOURS, PARTITION_ATTENTE, RETENTION_SECONDES, ttlDans } from './table';
import { avecReessais } from './transactions';
import { PREFIXES } from './retention';

export const MAX_TRAVAUX_EN_ATTENTE = 50;
/** How long an `Idempotency-Key` is remembered. */
export const DUREE_IDEMPOTENCE_SECONDES = 1 * JOURS;
/** A client told "too many pending jobs" should come back once some have ended. */
const ATTENTE_EN_ATTENTE_SECONDES = 30;

export interface RequeteLancement {
  compte: string;
  contentType: string | undefined;
  corps: Buffer;
  cleIdempotence: string | undefined;
}

/** Input of one execution of the state machine. */
export interface EntreeExecution {
  travail: string;
  compte: string;
  lot: string | null;
  outil: IdOutil;
}

/** A request read from JSON or multipart: images carry their bytes when they came in the body. */
interface Demande {
  outil: IdOutil;
  valeurs: Record<string, string>;
  images: { index: number; nom: string | null; url?: string; octets?: Buffer; base64?: string }[];
}

// ---------------------------------------------------------------------------------------------
// Reading the body

const typeDeContenu = (contentType: string | undefined): 'json' | 'multipart' => {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'multipart/form-data') return 'multipart';
  throw new ErreurApi(
    'unsupported_media_type',
    `Content-Type must be application/json or multipart/form-data${type ? `, not ${type}` : ''}.`,
  );
};

const verifierOutil = (outil: unknown): IdOutil => {
  if (outil === undefined || outil === null || outil === '') {
    throw new ErreurApi('invalid_tool', `outil is required: one of ${OUTILS.join(', ')}.`);
  }
  if (!estOutil(outil)) throw new ErreurApi('invalid_tool', `Unknown outil ${JSON.stringify(outil)}: one of ${OUTILS.join(', ')}.`);
  return outil;
};

const verifierNombre = (outil: IdOutil, nombre: number): void => {
  // The spec gives 413 for more than 50 images in a batch; annonce's 0–6 is a schema rule (422).
  if (CATALOGUE[outil].images.par_lot && nombre > MAX_IMAGES_LOT) {
    throw new ErreurApi('too_many_images', `At most ${MAX_IMAGES_LOT} images per batch; ${nombre} were sent.`, { max: MAX_IMAGES_LOT });
  }
};

const nomDepuisUrl = (url: string): string | null => {
  const dernier = new URL(url).pathname.split('/').filter(Boolean).pop();
  if (!dernier) return null;
  try {
    return decodeURIComponent(dernier);
  } catch {
    return dernier;
  }
};

const depuisValidee = (outil: IdOutil, valeurs: Record<string, string>, images: ImageEntree[], octets: (Buffer | undefined)[]): Demande => ({
  outil,
  valeurs,
  images: images.map((image, index) =>
    'url' in image
      ? { index, nom: image.nom ?? nomDepuisUrl(image.url), url: image.url }
      : { index, nom: image.nom ?? null, base64: octets[index] ? undefined : image.base64, octets: octets[index] },
  ),
});

const lireJson = (corps: Buffer): Demande => {
  let brut: unknown;
  try {
    brut = JSON.parse(corps.toString('utf8'));
  } catch {
    throw new ErreurApi('invalid_body', 'The body is not valid JSON.');
  }
  if (typeof brut !== 'object' || brut === null || Array.isArray(brut)) {
    throw new ErreurApi('invalid_body', 'The body must be a JSON object.');
  }
  const objet = brut as Record<string, unknown>;
  const outil = verifierOutil(objet.outil);
  if (Array.isArray(objet.images)) verifierNombre(outil, objet.images.length);
  const validee = validerRequete(outil, objet);
  return depuisValidee(outil, validee.valeurs, validee.images, []);
};

const lireFormulaire = async (corps: Buffer, contentType: string): Promise<Demande> => {
  const formulaire = await lireMultipart(corps, contentType);
  const champs = new Map<string, string[]>();
  for (const { nom, valeur } of formulaire.champs) champs.set(nom, [...(champs.get(nom) ?? []), valeur]);
  const outils = champs.get('outil') ?? [];
  if (outils.length > 1) throw new ErreurApi('invalid_tool', 'outil is given more than once.');
  const outil = verifierOutil(outils[0]);
  const urls = champs.get('image_url') ?? [];
  verifierNombre(outil, formulaire.fichiers.length + urls.length);

  const valeurs: Record<string, string> = {};
  for (const [nom, liste] of champs) {
    if (nom === 'outil' || nom === 'image_url') continue;
    if (liste.length > 1) throw new ErreurApi('invalid_settings', `The setting ${nom} is given more than once.`);
    valeurs[nom] = liste[0]!;
  }
  // Files first, then URLs, each in the order sent. A file stands in the schema as a placeholder
  // base64 image so that counts and names are checked by the same rules as JSON; its bytes are
  // kept aside and never re-encoded.
  const images: ImageEntree[] = [
    ...formulaire.fichiers.map((f) => ({ base64: 'fichier', ...(f.nomFichier ? { nom: f.nomFichier } : {}) })),
    ...urls.map((url) => ({ url })),
  ];
  const validee = validerRequete(outil, { outil, valeurs, images });
  return depuisValidee(outil, validee.valeurs, validee.images, formulaire.fichiers.map((f) => f.contenu));
};

// ---------------------------------------------------------------------------------------------
// Checking images

interface ImagePrete {
  index: number;
  nom: string | null;
  entree: { url: string } | { octets: Buffer; format: FormatImage };
}

/** Bytes are checked by their content, never by a name or a declared type. */
const preparerImages = (demande: Demande): { pretes: ImagePrete[]; echecs: EchecImage[] } => {
  const pretes: ImagePrete[] = [];
  const echecs: EchecImage[] = [];
  for (const image of demande.images) {
    if (image.url) {
      pretes.push({ index: image.index, nom: image.nom, entree: { url: image.url } });
      continue;
    }
    let octets: Buffer;
    try {
      octets = image.octets ?? decoderBase64(image.base64 ?? '');
    } catch (erreur) {
      // Too large is the whole request's answer (413); unreadable base64 is this image's problem.
      if (erreur instanceof ErreurApi && erreur.code === 'invalid_image') {
        echecs.push({ index: image.index, code: 'invalid_image', message: erreur.message });
        continue;
      }
      if (erreur instanceof ErreurApi) throw new ErreurApi(erreur.code, `Image ${image.index}: ${erreur.message}`, { ...erreur.details, index: image.index });
      throw erreur;
    }
    const format = detecterFormat(octets);
    if (!format) {
      echecs.push({
        index: image.index,
        code: 'invalid_image',
        message: octets.length === 0 ? 'The image is empty.' : 'The image is not a JPEG, PNG or WebP file.',
      });
      continue;
    }
    pretes.push({ index: image.index, nom: image.nom, entree: { octets, format } });
  }
  return { pretes, echecs };
};

// ---------------------------------------------------------------------------------------------
// Idempotency (our extension): the same key and body give back the first answer, charged once

const CLE_IDEMPOTENCE = /^[\x21-\x7e]{1,255}$/;

const empreinteRequete = (requete: RequeteLancement): string =>
  createHash('sha256').update(requete.contentType ?? '').update('\n').update(requete.corps).digest('hex');

interface EnregistrementIdempotence {
  empreinte: string;
  reponse: string;
}

const reponseDejaDonnee = async (d: Dependances, requete: RequeteLancement): Promise<Lancement | undefined> => {
  if (requete.cleIdempotence === undefined) return undefined;
  const { Item } = await d.ddb.send(
    new GetCommand({ TableName: d.table, Key: cles.idempotence(requete.compte, requete.cleIdempotence), ConsistentRead: true }),
  );
  const trace = Item as EnregistrementIdempotence | undefined;
  if (!trace) return undefined;
  if (trace.empreinte !== empreinteRequete(requete)) {
    throw new ErreurApi('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
  }
  return JSON.parse(trace.reponse) as Lancement;
};

// ---------------------------------------------------------------------------------------------
// The launch

export const cleEntree = (compte: string, travail: string, rang: number, format: FormatImage): string =>
  `${PREFIXES.entrees}${compte}/${travail}/${rang}.${EXTENSIONS[format]}`;

const parPaquets = async <T>(elements: readonly T[], taille: number, fn: (element: T) => Promise<void>): Promise<void> => {
  for (let debut = 0; debut < elements.length; debut += taille) {
    await Promise.all(elements.slice(debut, debut + taille).map(fn));
  }
};

export const lancer = async (d: Dependances, requete: RequeteLancement): Promise<Lancement> => {
  if (requete.cleIdempotence !== undefined && !CLE_IDEMPOTENCE.test(requete.cleIdempotence)) {
    throw new ErreurApi('invalid_parameter', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { parametre: 'Idempotency-Key' });
  }
  const mode = typeDeContenu(requete.contentType);
  const deja = await reponseDejaDonnee(d, requete);
  if (deja) return deja;
  if (requete.corps.length > MAX_OCTETS_REQUETE) {
    throw new ErreurApi('payload_too_large', 'The request is larger than 100 MB.');
  }
  const demande = mode === 'json' ? lireJson(requete.corps) : await lireFormulaire(requete.corps, requete.contentType ?? '');
  const { pretes, echecs } = preparerImages(demande);
  const outil = CATALOGUE[demande.outil];
  if (outil.images.min > 0 && pretes.length === 0) {
    throw new ErreurApi('invalid_image', echecs.length === 1 ? echecs[0]!.message : 'No image could be read.', { echecs });
  }

  // One job per image for batch tools; one job over all images for annonce.
  const groupes: ImagePrete[][] = outil.images.par_lot ? pretes.map((p) => [p]) : [pretes];
  const maintenant = d.horloge();
  const cout_total = groupes.length * outil.cout;

  // A first, non-binding look at the balance spares uploading inputs for a request that must fail;
  // the transaction below is what decides.
  const compte = await lireCompte(d, requete.compte);
  if (!compte) throw new ErreurApi('unauthorized', 'The account of this key no longer exists.');
  verifierSolde(compte.credits, compte.en_attente, cout_total, groupes.length);

  const lotId = outil.images.par_lot && demande.images.length > 1 ? randomUUID() : null;
  const travaux: EnregistrementTravail[] = groupes.map((groupe) => {
    const id = randomUUID();
    const entrees: Entree[] = groupe.map((image, rang) =>
      'url' in image.entree ? { type: 'url', url: image.entree.url } : { type: 's3', cle: cleEntree(requete.compte, id, rang, image.entree.format) },
    );
    return {
      id,
      compte: requete.compte,
      outil: demande.outil,
      statut: 'en_attente',
      cout: outil.cout,
      valeurs: demande.valeurs,
      lot: lotId,
      index: groupe[0]?.index ?? 0,
      nom: outil.images.par_lot ? (groupe[0]?.nom ?? null) : null,
      source: 'api',
      cree_le: maintenant.toISOString(),
      commence_le: null,
      termine_le: null,
      entrees,
      resultats: [],
      texte: null,
      erreur: null,
      rembourse: false,
      graine: null,
    };
  });

  const televersements = travaux.flatMap((travail, i) =>
    groupes[i]!.flatMap((image, rang) => {
      const entree = travail.entrees[rang];
      return 'octets' in image.entree && entree?.type === 's3'
        ? [{ cle: entree.cle, octets: image.entree.octets, format: image.entree.format }]
        : [];
    }),
  );
  await parPaquets(televersements, 8, async (t) => {
    await d.s3.send(new PutObjectCommand({ Bucket: d.bucket, Key: t.cle, Body: t.octets, ContentType: TYPES_MIME[t.format] }));
  });

  const reponse: Lancement = {
    lot: lotId,
    outil: demande.outil,
    cout_total,
    travaux: travaux.map((t) => versTravail(t, d.signer)),
    echecs,
  };

  try {
    await debiterEtEnregistrer(d, requete, travaux, lotId, cout_total, reponse);
  } catch (erreur) {
    await supprimerEntrees(d, televersements.map((t) => t.cle));
    if (erreur instanceof ErreurApi && erreur.code === 'idempotency_key_reused') {
      // A concurrent request with the same key won the race: answer what it answered.
      const gagnante = await reponseDejaDonnee(d, requete);
      if (gagnante) return gagnante;
    }
    throw erreur;
  }

  const echouees = await demarrerExecutions(d, travaux);
  if (echouees.length === 0) return reponse;
  const relus = new Map((await lireTravaux(d, echouees)).map((t) => [t.id, t]));
  return { ...reponse, travaux: travaux.map((t) => versTravail(relus.get(t.id) ?? t, d.signer)) };
};

const verifierSolde = (credits: number, enAttente: number, cout: number, nombre: number): void => {
  if (credits < cout) {
    throw new ErreurApi('insufficient_credits', `This request costs ${cout} credits; the balance is ${credits}.`, {
      credits,
      requis: cout,
    });
  }
  if (enAttente + nombre > MAX_TRAVAUX_EN_ATTENTE) {
    throw new ErreurApi(
      'too_many_pending_jobs',
      `At most ${MAX_TRAVAUX_EN_ATTENTE} pending jobs per account; ${enAttente} are pending and this request adds ${nombre}.`,
      { en_attente: enAttente, max: MAX_TRAVAUX_EN_ATTENTE, retry_after: ATTENTE_EN_ATTENTE_SECONDES },
      { 'Retry-After': String(ATTENTE_EN_ATTENTE_SECONDES) },
    );
  }
};

const debiterEtEnregistrer = async (
  d: Dependances,
  requete: RequeteLancement,
  travaux: EnregistrementTravail[],
  lotId: string | null,
  cout: number,
  reponse: Lancement,
): Promise<void> => {
  const maintenant = d.horloge();
  const expire_a = ttlDans(maintenant, RETENTION_SECONDES);
  const elements: NonNullable<Parameters<typeof avecReessais>[1]['TransactItems']> = [
    {
      Update: {
        TableName: d.table,
        Key: cles.compte(requete.compte),
        UpdateExpression: 'SET credits = credits - :cout, en_attente = en_attente + :n',
        // The balance and the pending limit are checked by the very write that debits.
        ConditionExpression: 'credits >= :cout AND en_attente <= :max_avant',
        ExpressionAttributeValues: { ':cout': cout, ':n': travaux.length, ':max_avant': MAX_TRAVAUX_EN_ATTENTE - travaux.length },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    ...travaux.map((travail) => ({
      Put: {
        TableName: d.table,
        Item: {
          ...cles.travail(travail.id),
          type: 'travail',
          ...travail,
          gsi1pk: `COMPTE#${travail.compte}`,
          gsi1sk: `TRAVAIL#${travail.cree_le}#${travail.id}`,
          gsi2pk: `COMPTE#${travail.compte}#${travail.outil}`,
          gsi2sk: `${travail.cree_le}#${travail.id}`,
          gsi3pk: PARTITION_ATTENTE,
          gsi3sk: `${travail.cree_le}#${travail.id}`,
          expire_a,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    })),
  ];
  if (lotId) {
    const lot: EnregistrementLot = {
      id: lotId,
      compte: requete.compte,
      outil: travaux[0]!.outil,
      total: travaux.length,
      termines: 0,
      echecs: 0,
      restants: travaux.length,
      statut: 'en_cours',
      travaux: travaux.map((t) => t.id),
      zip_cle: null,
      cree_le: maintenant.toISOString(),
      termine_le: null,
    };
    elements.push({ Put: { TableName: d.table, Item: { ...cles.lot(lotId), type: 'lot', ...lot, expire_a }, ConditionExpression: 'attribute_not_exists(pk)' } });
  }
  if (requete.cleIdempotence !== undefined) {
    elements.push({
      Put: {
        TableName: d.table,
        Item: {
          ...cles.idempotence(requete.compte, requete.cleIdempotence),
          type: 'idempotence',
          empreinte: empreinteRequete(requete),
          reponse: JSON.stringify(reponse),
          expire_a: ttlDans(maintenant, DUREE_IDEMPOTENCE_SECONDES),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  try {
    await avecReessais(d, { TransactItems: elements });
  } catch (erreur) {
    if (!(erreur instanceof TransactionCanceledException)) throw erreur;
    const raisons = erreur.CancellationReasons ?? [];
    const compte = raisons[0];
    if (compte?.Code === 'ConditionalCheckFailed') {
      // Cancellation reasons come back in DynamoDB's wire format: the document client does not convert them.
      const actuel = compte.Item ? (unmarshall(compte.Item) as { credits?: number; en_attente?: number }) : undefined;
      verifierSolde(Number(actuel?.credits ?? 0), Number(actuel?.en_attente ?? 0), cout, travaux.length);
    }
    if (requete.cleIdempotence !== undefined && raisons[raisons.length - 1]?.Code === 'ConditionalCheckFailed') {
      throw new ErreurApi('idempotency_key_reused', 'A request with this Idempotency-Key is already recorded.');
    }
    throw erreur;
  }
};

const supprimerEntrees = async (d: Dependances, cles_: string[]): Promise<void> => {
  if (cles_.length === 0) return;
  try {
    await d.s3.send(new DeleteObjectsCommand({ Bucket: d.bucket, Delete: { Objects: cles_.map((Key) => ({ Key })), Quiet: true } }));
  } catch (erreur) {
    // The inputs' lifecycle rule removes what is left here; the request itself already failed cleanly.
    journal.warn('could not delete inputs of a refused request', { erreur });
  }
};

export const entreeExecution = (t: Pick<EnregistrementTravail, 'id' | 'compte' | 'lot' | 'outil'>): EntreeExecution => ({
  travail: t.id,
  compte: t.compte,
  lot: t.lot,
  outil: t.outil,
});

/** Starts one execution (name = job id, so a second start of the same job is harmless). */
export const demarrerExecution = async (d: Dependances, travail: Pick<EnregistrementTravail, 'id' | 'compte' | 'lot' | 'outil'>): Promise<void> => {
  try {
    await d.sfn.send(
      new StartExecutionCommand({ stateMachineArn: d.machine, name: travail.id, input: JSON.stringify(entreeExecution(travail)) }),
    );
  } catch (erreur) {
    if (erreur instanceof ExecutionAlreadyExists) return;
    throw erreur;
  }
};

/** Returns the ids of the jobs whose execution could not start (they are failed and refunded). */
const demarrerExecutions = async (d: Dependances, travaux: EnregistrementTravail[]): Promise<string[]> => {
  const echouees: string[] = [];
  await parPaquets(travaux, 10, async (travail) => {
    try {
      await demarrerExecution(d, travail);
    } catch (erreur) {
      journal.error('could not start an execution: the job is failed and refunded', { travail: travail.id, erreur });
      echouees.push(travail.id);
      try {
        const fin = await rembourserTravail(d, travail.id, { code: 'demarrage_impossible', message: 'The job could not be started; its credits were refunded.' });
        if (fin.rembourse) compterRemboursement(travail.outil);
        // No execution runs for this job, so if it was the batch's last, the batch is closed here.
        if (fin.lot_a_finaliser && travail.lot) await finaliserLot(d, travail.lot, travail.id);
      } catch (remboursement) {
        // The job stays en_attente with its credits debited: the reconciler will start it.
        journal.error('could not refund a job whose execution did not start', { travail: travail.id, remboursement });
      }
    }
  });
  return echouees;
};
