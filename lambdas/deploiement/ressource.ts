/**
 * What every deploy-time custom resource shares (cle-liens.ts, cle-c2pa.ts): CloudFormation's event
 * and response, and the answer that must reach CloudFormation whatever went wrong.
 */
export interface EvenementRessource<P> {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
  ResourceProperties: P;
  OldResourceProperties?: P;
}

export interface Reponse {
  Status: 'SUCCESS' | 'FAILED';
  Reason?: string;
  PhysicalResourceId: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  Data?: Record<string, string>;
}

/** CloudFormation waits for this PUT: it must happen whatever went wrong, or the stack hangs for an hour. */
const repondre = async (url: string, reponse: Reponse): Promise<void> => {
  const corps = JSON.stringify(reponse);
  const resultat = await fetch(url, { method: 'PUT', body: corps, headers: { 'content-type': '', 'content-length': String(Buffer.byteLength(corps)) } });
  if (!resultat.ok) throw new Error(`CloudFormation answered ${resultat.status}`);
};

/** The Lambda handler of a custom resource: runs `traiter`, and answers FAILED with its reason if it throws. */
export const gestionnaire =
  <P>(nom: string, traiter: (e: EvenementRessource<P>) => Promise<Reponse>) =>
  async (e: EvenementRessource<P>): Promise<void> => {
    let reponse: Reponse;
    try {
      reponse = await traiter(e);
    } catch (erreur) {
      console.error(`${nom} resource failed`, erreur);
      reponse = {
        Status: 'FAILED',
        // CloudFormation shows the reason in the stack events; the whole response must stay under 4 KB.
        Reason: (erreur as Error).message.slice(0, 1000),
        PhysicalResourceId: e.PhysicalResourceId ?? 'echec',
        StackId: e.StackId,
        RequestId: e.RequestId,
        LogicalResourceId: e.LogicalResourceId,
      };
    }
    await repondre(e.ResponseURL, reponse);
  };
