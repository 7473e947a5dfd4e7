/** Where the API and the user pool are: /config.json, written by the stack (lib/site.ts) or npm start (local/site.ts). */
export interface Configuration {
  api: string;
  cognito: { region: string; client: string; endpoint?: string };
}

let configuration: Promise<Configuration> | undefined;

export const lireConfiguration = (): Promise<Configuration> =>
  (configuration ??= fetch('/config.json', { cache: 'no-store' }).then(async (r) => {
    if (!r.ok) throw new Error(`/config.json: ${r.status}`);
    return (await r.json()) as Configuration;
  }));
