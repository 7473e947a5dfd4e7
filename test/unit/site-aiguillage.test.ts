/** The web site's CloudFront Function (lib/site.ts): run as CloudFront runs it, on the requests it meets. */
import { describe, expect, it } from 'vitest';
import { codeAiguillage } from '../../lib/site';

const configuration = JSON.stringify({ api: '/api/v1', cognito: { region: 'eu-west-1', client: 'abc"\'</script>' } });
// CloudFront calls `handler(event)`: the same code, loaded as a plain function.
const handler = new Function(`${codeAiguillage(configuration)}; return handler;`)() as (e: unknown) => Record<string, unknown>;
const requete = (uri: string) => ({ request: { uri, method: 'GET', headers: {} } });

describe('the site’s viewer-request function', () => {
  it('answers /config.json itself, from the stack’s values, never cached', () => {
    const r = handler(requete('/config.json')) as { statusCode: number; headers: Record<string, { value: string }>; body: { data: string } };
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']!.value).toBe('no-store');
    expect(JSON.parse(r.body.data)).toEqual(JSON.parse(configuration));
  });

  it('sends page paths to index.html and leaves files alone', () => {
    expect(handler(requete('/compte/cles'))).toMatchObject({ uri: '/index.html' });
    expect(handler(requete('/'))).toMatchObject({ uri: '/index.html' });
    expect(handler(requete('/assets/index-4f2a.js'))).toMatchObject({ uri: '/assets/index-4f2a.js' });
    expect(handler(requete('/favicon.svg'))).toMatchObject({ uri: '/favicon.svg' });
  });

  it('answers /.well-known/ with a JSON 404, not the app’s page: MCP clients look for OAuth metadata there', () => {
    for (const uri of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/v1/mcp',
      '/.well-known/oauth-authorization-server',
    ]) {
      const r = handler(requete(uri)) as { statusCode: number; headers: Record<string, { value: string }>; body: { data: string } };
      expect(r.statusCode, uri).toBe(404);
      expect(r.headers['content-type']!.value).toMatch(/^application\/json/);
      expect(JSON.parse(r.body.data)).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});
