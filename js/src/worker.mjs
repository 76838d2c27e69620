// gort's proxy worker (env.wasm.proxy = true): a module Worker that runs
// sessions off the page's thread. Started by gort.mjs / gort.js from the same
// directory; it serves their messages with a gort instance of its own.
import gort from './gort.mjs';

gort._serveWorker(self);
