// Serves the demo page on 127.0.0.1 with the strict CSP it is built for:
//   node demo/serve.mjs [port]      (default 8080; 0 picks a free port)
// Only files under demo/ are served (the package copy lives in demo/gort/,
// put there by `make demo`), so nothing outside the page can leak out and
// the page cannot reach anything but this server.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, extname, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = dirname(fileURLToPath(import.meta.url));
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json', '.ts': 'text/plain',
};

/** Starts the server; resolves to {server, url}. */
export function startServer(port = 8080, root = ROOT) {
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw new Error('outside');
      if (/[\\/](node_modules|test)[\\/]/.test(file.slice(root.length))) throw new Error('not served');
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] || 'application/octet-stream', 'content-length': body.length,
        'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain', 'content-security-policy': CSP }).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try { await stat(join(ROOT, 'gort', 'gort.mjs')); } catch {
    console.error('demo/gort/ is missing: run `make demo` (it builds js/dist and copies it there).');
    process.exit(1);
  }
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
  let started;
  try {
    started = await startServer(port);
  } catch (e) {
    if (e.code !== 'EADDRINUSE') throw e;
    console.error(`port ${port} is in use; serving on a free port instead`);
    started = await startServer(0);
  }
  console.log(`gort demo: ${started.url}  (Ctrl-C to stop)`);
}
