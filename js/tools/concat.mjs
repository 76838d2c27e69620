// Bundles js/src's ES modules into one script body, for js/build.sh:
//   node tools/concat.mjs src/index.js > body.js
// Starting from the entry, it follows the relative `import {…} from './x.js'`
// lines, and prints every module once, dependencies first, with its import
// lines removed and `export ` dropped from its declarations. The result is
// a plain sequence of top-level declarations that each dist entry wraps
// (an ES module, a classic script's function, a CommonJS module, the worker).
//
// That is all the bundling gort needs, and it keeps the build free of npm
// packages. The sources are held to the subset this handles: single-line
// named imports of relative modules, `export` only on declarations, and no
// two modules declaring the same top-level name (checked here).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const entry = resolve(process.argv[2]);
const root = dirname(entry);
const order = [];
const seen = new Set();
const declared = new Map(); // top-level name → module

function fail(file, n, msg) {
  console.error(`${relative(process.cwd(), file)}:${n}: ${msg}`);
  process.exit(1);
}

function visit(file, stack) {
  if (seen.has(file)) return;
  if (stack.includes(file)) fail(file, 1, `import cycle: ${stack.concat(file).map((f) => relative(root, f)).join(' → ')}`);
  const lines = readFileSync(file, 'utf8').split('\n');
  const body = [];
  lines.forEach((line, i) => {
    const n = i + 1;
    if (/^import\b/.test(line)) {
      const m = /^import \{[^}]*\} from '(\.\.?\/[^']+\.js)';$/.exec(line);
      if (!m) fail(file, n, `unsupported import form (use: import { a, b } from './x.js';): ${line}`);
      visit(resolve(dirname(file), m[1]), stack.concat(file));
      return;
    }
    if (/^export\b/.test(line)) {
      if (!/^export (async function|function|class|const|let) /.test(line)) fail(file, n, `unsupported export form (export declarations only): ${line}`);
      line = line.slice('export '.length);
    }
    const d = /^(?:async function|function|class|const|let) ([A-Za-z_$][\w$]*)/.exec(line);
    if (d) {
      const prev = declared.get(d[1]);
      if (prev && prev !== file) fail(file, n, `'${d[1]}' is also declared in ${relative(root, prev)}; top-level names must be unique across modules`);
      declared.set(d[1], file);
    }
    body.push(line);
  });
  seen.add(file);
  order.push({ file, body: body.join('\n').replace(/\n+$/, '') });
}

visit(entry, []);
for (const { file, body } of order) {
  process.stdout.write(`// ---- js/src/${relative(root, file)} ----\n${body}\n\n`);
}
