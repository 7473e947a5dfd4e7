/**
 * The form of every id this service makes (crypto.randomUUID: jobs, batches, accounts, uploads): one pattern
 * for the path parameters, the request bodies and the ids Stripe sends back, so that none of them reads an id
 * another would refuse. Case-insensitive, as RFC 9562 writes UUIDs; the ids are stored lower-case.
 */
export const MOTIF_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const estUuid = (valeur: string): boolean => MOTIF_UUID.test(valeur);
