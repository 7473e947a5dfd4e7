/**
 * The SDK's names for the API's types, all taken from schema.ts (generated from the OpenAPI document):
 * nothing here restates a member by hand, so the SDK follows the interface when schema.ts is generated
 * again.
 */
import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

export type IdOutil = Schemas['IdOutil'];
export type Outil = Schemas['Outil'];
/** GET /outils as a whole: the tools, and `apercu`, whether this stage runs the preview engine. */
export type Catalogue = Schemas['Outils'];
export type Champ = Schemas['Champ'];
export type Solde = Schemas['Solde'];
export type Travail = Schemas['Travail'];
export type Lot = Schemas['Lot'];
/** A page of GET /travaux: its jobs, and `suivant`, the cursor of the next page (null on the last). */
export type ListeTravaux = Schemas['ListeTravaux'];
export type Lancement = Schemas['Lancement'];
/** A signed link valid 24 hours (a batch's ZIP): `url` downloads the file. */
export type Lien = Schemas['Lien'];
/** A result's links: `url` downloads it (Content-Disposition: attachment), `url_affichage` shows it (an <img>). */
export type LienResultat = Schemas['LienResultat'];
export type EchecImage = Schemas['EchecImage'];
export type Televersement = Schemas['Televersement'];
export type Effacement = Schemas['Effacement'];
export type DetailErreur = Schemas['DetailErreur'];
export type StatutTravail = Travail['statut'];
/** An endpoint that receives the account's events (our extension): `secret` only in the answers that create or rotate it. */
export type Webhook = Schemas['Webhook'];
/** An endpoint as POST /webhooks and POST /webhooks/{id}/secret answer it: with its signing secret, shown this once. */
export type WebhookAvecSecret = Webhook & { secret: string };
export type ListeWebhooks = Schemas['ListeWebhooks'];
export type EtatWebhook = Webhook['etat'];
/** The body of POST /webhooks: `{url, evenements}`. */
export type RequeteWebhook = Schemas['RequeteWebhook'];
/** The events an endpoint can subscribe to: `travail.fini`, `lot.fini`. */
export type EvenementAbonnable = RequeteWebhook['evenements'][number];
/** One delivery of an event to an endpoint (its `id` is the `webhook-id` header), with its attempts. */
export type Livraison = Schemas['Livraison'];
export type ListeLivraisons = Schemas['ListeLivraisons'];
export type Tentative = Schemas['Tentative'];
export type StatutLivraison = Livraison['statut'];
/** What an endpoint receives: `{type, timestamp, data}` (a Travail, a Lot, or for `webhook.test` the endpoint and a message). */
export type EvenementWebhook = Schemas['EvenementWebhook'];
export type TypeEvenementWebhook = EvenementWebhook['type'];
export type StatutLot = Lot['statut'];

/** The `error` member of every error answer, with the extra members the service sends. */
export type CorpsErreur = Schemas['Erreur']['error'];
/** The API's `error.code` values, as the document lists them. */
export type CodeErreurApi = CorpsErreur['code'];

/** The JSON body of POST /travaux, one shape per tool (`outil`): settings and images as the API takes them. */
export type RequeteTravaux = Schemas['RequeteTravaux'];
/** An image as POST /travaux takes it: `{url}`, `{base64}` or `{televersement}`, each with an optional `nom`. */
export type ImageApi = NonNullable<RequeteTravaux['images']>[number];
/** One file announced to POST /televersements. */
export type FichierAnnonce = Schemas['RequeteTeleversements']['fichiers'][number];
export type TypeImage = FichierAnnonce['type'];
/** Where the jobs a client starts come from (POST /travaux's `Retouche-Source`): `api`, or `mcp` for an assistant's. */
export type SourceClient = NonNullable<NonNullable<operations['creerTravaux']['parameters']['header']>['Retouche-Source']>;
/** The query of GET /travaux: `limite`, `outil` and `apres` (a page's `suivant`). */
export type ParametresListe = NonNullable<operations['listerTravaux']['parameters']['query']>;
