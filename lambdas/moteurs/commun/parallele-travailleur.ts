/**
 * The worker thread of parallele.ts: the modules whose kernels it runs (each registers its own when
 * imported), then the loop that runs them. A kernel whose module is missing here fails its first call
 * with a message that says so. Bundled as an entry point of its own beside the tool's (lib/fonction.ts).
 */
import './fusion/index';
import './redressement';
import { servir } from './parallele';

servir();
