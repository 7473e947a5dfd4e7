/**
 * What each reference of the template becomes in its local run (local/pile-template.ts): Ref and
 * GetAtt of its resources resolved to their stand-ins, and the AWS addresses a function is given (the
 * API's invoke URL, the user pool's issuer) turned into the local ones. A reference with no stand-in
 * stops the run rather than being guessed.
 */
import type { CognitoLocal } from './cognito';
import type { Ressources } from './template-ressources';
import { COMPTE, REGION, type Resolveur, type Template } from './template-synthese';

/** The stand-ins' names, beside the stateful resources': the user pool and the REST API's id. */
export interface Locaux extends Ressources {
  cognito: CognitoLocal;
  idRestApi: string;
}

const PSEUDO: Record<string, string> = {
  'AWS::Region': REGION,
  'AWS::AccountId': COMPTE,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'local',
};

const ref = (t: Template, l: Locaux, id: string): string => {
  if (id in PSEUDO) return PSEUDO[id]!;
  if (id === l.idTable) return l.nomTable;
  if (id === l.idSeau) return l.nomSeau;
  if (id === l.idMachine) return l.arnMachine;
  if (id === l.idApi) return l.idRestApi;
  const type = t.Resources[id]?.Type;
  if (type === 'AWS::SecretsManager::Secret') return l.arnSecret(id);
  if (type === 'AWS::Cognito::UserPool') return l.cognito.pool;
  if (type === 'AWS::Cognito::UserPoolClient') return l.cognito.client;
  if (type === 'AWS::SQS::Queue') return l.urlFile(id);
  // A function's name: the local function is named by its logical id.
  if (type === 'AWS::Lambda::Function') return id;
  throw new Error(`no local stand-in for Ref ${id} (${type ?? 'not in the template'})`);
};

/** `donneesPersonnalisees`: each custom resource's Data, as its function answered it (filled as they run). */
export const resolveurLocal = (t: Template, l: Locaux, donneesPersonnalisees: ReadonlyMap<string, Record<string, string>>): Resolveur => ({
  ref: (id) => ref(t, l, id),
  getAtt: (id, attribut) => {
    const type = t.Resources[id]?.Type;
    if (type === 'AWS::Lambda::Function' && attribut === 'Arn') return l.arnFonction(id);
    if (type === 'AWS::SQS::Queue') {
      const attributs: Record<string, string> = { Arn: l.arnFile(id), QueueName: id, QueueUrl: l.urlFile(id) };
      if (attribut in attributs) return attributs[attribut]!;
    }
    const donnees = donneesPersonnalisees.get(id);
    if (type?.startsWith('Custom::') && donnees) {
      if (!(attribut in donnees)) throw new Error(`custom resource ${id} answered no ${attribut}`);
      return donnees[attribut]!;
    }
    throw new Error(`no local stand-in for GetAtt ${id}.${attribut} (${type ?? 'not in the template'})`);
  },
});

/**
 * A value of a function's environment, local: the API's invoke URL, as API Gateway builds it, is the
 * local gateway's origin; the user pool's issuer, as Cognito names it, is the emulator's.
 */
export const versLocal = (l: Locaux, etape: string, origine: string) => {
  const urlApi = new RegExp(`^https://${l.idRestApi}\\.execute-api\\.${REGION}\\.amazonaws\\.com/${etape}(?=/|$)`);
  const emetteur = `https://cognito-idp.${REGION}.amazonaws.com/${l.cognito.pool}`;
  return (v: string) => (v === emetteur ? l.cognito.emetteur : v.replace(urlApi, origine));
};
