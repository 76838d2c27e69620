// The corpus manifest is well formed (no network, no model needed):
//   node --test tools/corpus/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readManifest } from './fetch.mjs';

test('every corpus model names its package, licence, file, sha256, inputs and outputs', () => {
  const { packages, models } = readManifest();
  const ids = new Set();
  for (const m of models) {
    assert.match(m.id, /^[a-z0-9_]+$/, m.id);
    assert.ok(!ids.has(m.id), `duplicate id ${m.id}`);
    ids.add(m.id);
    const pkg = packages[`${m.package}@${m.version}`];
    assert.ok(pkg && pkg.license && pkg.modelLicense, `${m.id}: packages["${m.package}@${m.version}"] needs license and modelLicense`);
    assert.match(m.version, /^\d+\.\d+\.\d+/, `${m.id}: an exact version`);
    assert.match(m.sha256, /^[0-9a-f]{64}$/, m.id);
    assert.ok(Number.isInteger(m.size) && m.size > 0, m.id);
    assert.ok(m.path && m.category, m.id);
    assert.ok(m.inputs.length && m.outputs.length, m.id);
    for (const i of m.inputs) {
      assert.ok(i.name && i.type && Array.isArray(i.dims), `${m.id}: ${JSON.stringify(i)}`);
      assert.ok('value' in i || (Array.isArray(i.range) && i.range[0] <= i.range[1]), `${m.id}.${i.name}: range or value`);
    }
  }
});
