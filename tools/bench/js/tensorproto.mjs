// Parses the inputs of ONNX test data (test_data_set_0/input_N.pb:
// TensorProtos with raw_data, as the light models and tools/genmodels write
// them) without either runtime's decoder, so the benchmark feeds both runtimes
// the same bytes and depends on neither's internals. No Node imports: the
// Chromium page uses it too (inputs.mjs reads the files in Node).

// ONNX TensorProto.DataType codes → ORT/gort tensor type names and arrays.
const types = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array], 6: ['int32', Int32Array],
  7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 11: ['float64', Float64Array],
};

/** Parses one TensorProto: {name, type, dims, data}. */
export function parseTensor(b) {
  let i = 0;
  const dims = [];
  let raw = null, dt = 1, name = '';
  const varint = () => {
    let x = 0n, s = 0n;
    for (;;) { const c = b[i++]; x |= BigInt(c & 0x7f) << s; s += 7n; if (!(c & 0x80)) return x; }
  };
  while (i < b.length) {
    const key = Number(varint());
    const field = key >> 3, wt = key & 7;
    if (wt === 0) {
      const v = varint();
      if (field === 1) dims.push(Number(v)); else if (field === 2) dt = Number(v);
    } else if (wt === 2) {
      const len = Number(varint());
      const end = i + len;
      if (field === 1) while (i < end) dims.push(Number(varint())); // packed dims
      else if (field === 9) raw = b.subarray(i, end);
      else if (field === 8) name = new TextDecoder().decode(b.subarray(i, end));
      i = end;
    } else if (wt === 5) i += 4; else if (wt === 1) i += 8;
    else throw new Error('unexpected wire type ' + wt);
  }
  const t = types[dt];
  if (!t || raw === null) throw new Error(`input ${name}: only raw_data of ${Object.values(types).map((x) => x[0])} is supported (data_type ${dt})`);
  const [type, Ctor] = t;
  const copy = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  let data = new Ctor(copy);
  if (type === 'bool') data = new Uint8Array(copy).map((v) => (v ? 1 : 0));
  return { name, type, dims, data };
}
