// The web site's build (npm run site:build; npm start builds it when it changed). Messages are compiled
// at build time, so nothing in the page needs eval: the site runs under a CSP without 'unsafe-eval'.
import { fileURLToPath } from 'node:url';
import VueI18nPlugin from '@intlify/unplugin-vue-i18n/vite';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const ici = (chemin: string) => fileURLToPath(new URL(chemin, import.meta.url));

export default defineConfig({
  root: ici('.'),
  plugins: [vue(), VueI18nPlugin({ include: [ici('./src/i18n/*.json')], runtimeOnly: true, compositionOnly: true, fullInstall: false })],
  build: { outDir: ici('./dist'), emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0 },
  // `npm run site:dev`: Vite's reloading, the API and configuration of a running `npm start`.
  server: { port: 5173, proxy: { '/api': 'http://localhost:3000', '/config.json': 'http://localhost:3000' } },
});
