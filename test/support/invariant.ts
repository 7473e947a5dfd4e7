/**
 * The money invariant, read from the records themselves. For an account at rest:
 *   balance         = credits granted − cost of its jobs ended `termine`
 *   pending counter = its jobs `en_attente` + `en_cours`
 * and every job and batch has ended, with batch counters equal to what their jobs say and a ZIP for
 * every batch with a result. `derive` adds up every difference: it must be 0.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { lire as lireCompte } from '../../lambdas/core/depots/comptes';
import { lire as lireEnregistrementLot } from '../../lambdas/core/depots/lots';
import { duCompte } from '../../lambdas/core/depots/travaux';
import type { Dependances } from '../../lambdas/core/infra/dependances';
import type { EnregistrementTravail } from '../../lambdas/core/modele/enregistrements';
import { INDEX, OUVERTS } from '../../lambdas/core/depots/table';

type Deps = Pick<Dependances, 'ddb' | 'table' | 's3' | 'bucket'>;

export const travauxDuCompte = (d: Deps, compte: string): Promise<EnregistrementTravail[]> => duCompte(d, compte);

/** Open jobs and batches in the whole table, as the sweeper's index shows them. */
export const travailOuvert = async (d: Deps): Promise<number> => {
  let n = 0;
  for (const partition of [OUVERTS.travaux, OUVERTS.lots]) {
    const { Count } = await d.ddb.send(
      new QueryCommand({
        TableName: d.table,
        IndexName: INDEX.ouverts,
        KeyConditionExpression: 'gsi3pk = :p',
        ExpressionAttributeValues: { ':p': partition },
        Select: 'COUNT',
      }),
    );
    n += Count ?? 0;
  }
  return n;
};

export interface Ecarts {
  derive: number;
  travaux: number;
  termines: number;
  echecs: number;
  lots: number;
  problemes: string[];
}

export const verifierInvariant = async (d: Deps, comptes: { compte: string; accordes: number }[]): Promise<Ecarts> => {
  const ecarts: Ecarts = { derive: 0, travaux: 0, termines: 0, echecs: 0, lots: 0, problemes: [] };
  const probleme = (texte: string, ecart = 1) => {
    ecarts.derive += Math.abs(ecart);
    ecarts.problemes.push(texte);
  };
  for (const { compte, accordes } of comptes) {
    const travaux = await travauxDuCompte(d, compte);
    const enregistrement = await lireCompte(d, compte);
    const payes = travaux.filter((t) => t.statut === 'termine').reduce((somme, t) => somme + t.cout, 0);
    const estOuvert = (t: EnregistrementTravail) => t.statut === 'en_attente' || t.statut === 'en_cours';
    const ouverts = travaux.filter(estOuvert).length;
    // Test keys' jobs have their own pending count (and cost nothing: cout 0).
    const ouvertsTest = travaux.filter((t) => estOuvert(t) && t.test).length;
    ecarts.travaux += travaux.length;
    ecarts.termines += travaux.filter((t) => t.statut === 'termine').length;
    ecarts.echecs += travaux.filter((t) => t.statut === 'echec').length;
    const credits = Number(enregistrement?.credits);
    if (credits !== accordes - payes) probleme(`account ${compte}: balance ${credits}, expected ${accordes - payes}`, credits - (accordes - payes));
    const enAttente = Number(enregistrement?.travaux_ouverts);
    if (enAttente !== ouverts - ouvertsTest)
      probleme(`account ${compte}: pending counter ${enAttente}, open live jobs ${ouverts - ouvertsTest}`, enAttente - (ouverts - ouvertsTest));
    const enAttenteTest = Number(enregistrement?.travaux_ouverts_test ?? 0);
    if (enAttenteTest !== ouvertsTest)
      probleme(`account ${compte}: test pending counter ${enAttenteTest}, open test jobs ${ouvertsTest}`, enAttenteTest - ouvertsTest);
    if (ouverts > 0) probleme(`account ${compte}: ${ouverts} jobs not ended`, ouverts);
    for (const t of travaux) {
      if ((t.statut === 'echec') !== t.rembourse) probleme(`job ${t.id}: ${t.statut} with rembourse ${t.rembourse}`);
      if (t.statut === 'termine' && t.outil !== 'annonce' && t.resultats.length !== 1) probleme(`job ${t.id}: termine without its result`);
    }
    const parLot = new Map<string, EnregistrementTravail[]>();
    for (const t of travaux) if (t.lot) parLot.set(t.lot, [...(parLot.get(t.lot) ?? []), t]);
    for (const [id, siens] of parLot) {
      ecarts.lots++;
      const lot = await lireEnregistrementLot(d, id);
      const termines = siens.filter((t) => t.statut === 'termine').length;
      const echecs = siens.filter((t) => t.statut === 'echec').length;
      if (!lot) {
        probleme(`batch ${id} missing`);
        continue;
      }
      if (lot.statut === 'en_cours') probleme(`batch ${id} still en_cours (${lot.termines}+${lot.echecs}/${lot.total})`);
      if (lot.total !== siens.length || lot.termines !== termines || lot.echecs !== echecs || lot.restants !== 0) {
        probleme(`batch ${id}: counters ${lot.termines}+${lot.echecs}/${lot.total} (restants ${lot.restants}), jobs say ${termines}+${echecs}/${siens.length}`);
      }
      if (termines > 0 !== Boolean(lot.zip_cle)) probleme(`batch ${id}: ${termines} results but zip ${lot.zip_cle}`);
      if (lot.zip_cle) {
        try {
          await d.s3.send(new HeadObjectCommand({ Bucket: d.bucket, Key: lot.zip_cle }));
        } catch {
          probleme(`batch ${id}: its ZIP ${lot.zip_cle} is not in S3`);
        }
      }
    }
  }
  return ecarts;
};
