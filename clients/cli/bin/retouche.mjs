#!/usr/bin/env node
// The `retouche` command. The project runs its TypeScript through tsx (no build step), so this small
// entry registers tsx's loader and imports the sources, wherever the command is called from.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../src/index.ts', import.meta.url).href);
const statut = await main(process.argv.slice(2));
// Exit at once with the status: an idle keep-alive socket of fetch must not hold the process open.
process.exit(statut);
