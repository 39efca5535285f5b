import { ensureConsoleBuilt } from '@shared/local/console-build';

/**
 * The browser tests serve the web console from console/dist: built once before the run when it
 * is missing or older than its sources (a clean clone, an edited page), never by two files at once.
 */
export default function setup() {
  ensureConsoleBuilt();
}
