/**
 * Where the API and the user pool are: /config.json, written by the stack (lib/site.ts) or by npm start
 * (local/site.ts). Read at run time rather than built in, so that one build serves every stage.
 */
export interface Configuration {
  api: string;
  /** `endpoint` only locally (the emulator); on AWS the SDK's regional endpoint is the right one. */
  cognito: { region: string; client: string; endpoint?: string };
}

let configuration: Promise<Configuration> | undefined;

export const lireConfiguration = (): Promise<Configuration> =>
  (configuration ??= fetch('/config.json', { cache: 'no-store' })
    .then(async (reponse) => {
      if (!reponse.ok) throw new Error(`/config.json: ${reponse.status}`);
      return (await reponse.json()) as Configuration;
    })
    .catch((erreur: unknown) => {
      // A failed read (the network down a moment) is tried again by the next caller, not kept for the tab's life.
      configuration = undefined;
      throw erreur;
    }));
