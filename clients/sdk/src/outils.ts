/**
 * The tools' ids as values, for the programs that list them (the command's help, the MCP tools'
 * descriptions, the web site's pages): types vanish at run time, so the list is written once here, and
 * held to the API's own enumeration (schema.ts, generated) both ways, so a tool added to the API fails
 * to compile until it is listed, and a tool listed here that the API lacks fails too.
 */
import type { IdOutil } from './types.js';

export const OUTILS = ['vider', 'staging', 'renovation', 'saison', 'ciel', 'annonce', 'fusion'] as const satisfies readonly IdOutil[];

/** `true` only when OUTILS names every tool of the schema. */
type Exhaustif = [Exclude<IdOutil, (typeof OUTILS)[number]>] extends [never] ? true : false;
const exhaustif: Exhaustif = true;
void exhaustif;
