// Reads every input of a model directory's test_data_set_0, in order.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTensor } from './tensorproto.mjs';

export function readInputs(dir) {
  const out = [];
  for (let n = 0; ; n++) {
    const p = join(dir, 'test_data_set_0', `input_${n}.pb`);
    if (!existsSync(p)) return out;
    out.push(parseTensor(readFileSync(p)));
  }
}
