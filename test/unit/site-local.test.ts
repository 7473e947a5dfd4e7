/** The local server of the web site (local/site.ts): the build's files, the app's pages, /config.json, the policy. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servirSite } from '../../local/site';

let dossier: string;
let serveur: Server;
let origine: string;

beforeAll(async () => {
  dossier = mkdtempSync(join(tmpdir(), 'retouche-site-local-'));
  mkdirSync(join(dossier, 'assets'));
  writeFileSync(join(dossier, 'index.html'), '<!doctype html><title>Retouche</title>');
  writeFileSync(join(dossier, 'assets', 'index-4f2a.js'), 'export {}');
  writeFileSync(join(dossier, '..', 'secret.txt'), 'outside');
  const site = servirSite({
    dossier,
    configuration: { api: '/api/v1', cognito: { region: 'us-east-1', client: 'client', endpoint: 'http://127.0.0.1:9229' } },
    televersements: 'http://127.0.0.1:4569',
  });
  serveur = createServer((req, res) => {
    void site(req, res).then((servi) => {
      if (!servi) res.writeHead(404).end('not the site');
    });
  });
  await new Promise<void>((r) => serveur.listen(0, '127.0.0.1', r));
  origine = `http://127.0.0.1:${(serveur.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => serveur.close(r));
  rmSync(dossier, { recursive: true, force: true });
});

describe('the local web site', () => {
  it('answers every page of the app with index.html, under a strict policy that allows the local user pool and S3', async () => {
    for (const chemin of ['/', '/compte/cles', '/connexion?suite=/compte']) {
      const r = await fetch(`${origine}${chemin}`);
      expect(r.status, chemin).toBe(200);
      expect(await r.text()).toContain('<title>Retouche</title>');
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      // The studio PUTs photos to the upload URLs, on the local S3's origin.
      expect(csp).toContain("connect-src 'self' http://127.0.0.1:9229 http://127.0.0.1:4569;");
      expect(csp).not.toContain('unsafe');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('serves the build’s files, hashed assets for good, and nothing outside the build', async () => {
    const js = await fetch(`${origine}/assets/index-4f2a.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${origine}/assets/absent.js`)).status).toBe(404);
    expect(await (await fetch(`${origine}/..%2fsecret.txt`)).text()).not.toBe('outside');
    expect(await (await fetch(`${origine}/%2e%2e/secret.txt`)).text()).not.toBe('outside');
  });

  it('gives the app its configuration, and leaves the API’s paths to the gateway', async () => {
    const r = await fetch(`${origine}/config.json`);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.json()).toEqual({ api: '/api/v1', cognito: { region: 'us-east-1', client: 'client', endpoint: 'http://127.0.0.1:9229' } });
    expect(await (await fetch(`${origine}/api/v1/outils`)).text()).toBe('not the site');
    expect((await fetch(`${origine}/compte`, { method: 'POST' })).status).toBe(404);
  });

  it('leaves /.well-known/ to the gateway (its JSON 404), not index.html: MCP clients look for OAuth metadata there', async () => {
    for (const chemin of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/v1/mcp',
      '/.well-known/oauth-authorization-server',
    ]) {
      const r = await fetch(`${origine}${chemin}`);
      expect(r.status, chemin).toBe(404);
      expect(await r.text(), chemin).toBe('not the site');
    }
  });
});
