// js/tools/concat.mjs, the build's module bundler: dependency order, import
// and export lines handled, and the forms it cannot handle refused (rather
// than bundled wrongly).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CONCAT = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'concat.mjs');

async function bundle(files) {
  const dir = await mkdtemp(join(tmpdir(), 'gort-concat-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    return await run(process.execPath, [CONCAT, join(dir, 'index.js')]).then((r) => ({ out: r.stdout }), (e) => ({ err: e.stderr }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('concat: dependencies first, each once, imports removed, exports made plain declarations', async () => {
  const { out, err } = await bundle({
    'index.js': "import { a } from './a.js';\nimport { b } from './sub/b.js';\nexport const c = a + b;\n",
    'a.js': "import { b } from './sub/b.js';\nexport const a = b + 1;\n",
    'sub/b.js': 'export function bf() { return 1; }\nexport const b = bf();\n',
  });
  assert.equal(err, undefined, err);
  assert.doesNotMatch(out, /^(import|export)\b/m);
  const order = [...out.matchAll(/^\/\/ ---- js\/src\/(\S+) ----$/gm)].map((m) => m[1]);
  assert.deepEqual(order, ['sub/b.js', 'a.js', 'index.js']);
  // The result runs: c = (1 + 1) + 1.
  assert.equal(new Function(`${out}; return c;`)(), 3);
});

test('concat: refuses what it cannot bundle faithfully', async () => {
  const cases = {
    'default import': ["import a from './a.js';\n", /unsupported import form/],
    'export list': ['const x = 1;\nexport { x };\n', /unsupported export form/],
    'bare import': ["import { x } from 'pkg';\n", /unsupported import form/],
    'same name twice': ["import { a } from './a.js';\nconst a2 = 1;\nfunction helper() {}\n", null],
  };
  for (const [what, [index, re]] of Object.entries(cases)) {
    const files = { 'index.js': index, 'a.js': 'export const a = 1;\nfunction helper() {}\n' };
    const { err } = await bundle(files);
    if (re) assert.match(err || '', re, what);
    else assert.match(err || '', /'helper' is also declared in a\.js/, what);
  }
  const { err } = await bundle({ 'index.js': "import { a } from './a.js';\n", 'a.js': "import { b } from './index.js';\nexport const a = 1;\n" });
  assert.match(err || '', /import cycle/);
});
