// What the Node CLI (gort.mjs) needs to match the native Go CLI (cmd/gort)
// exactly: Go's PCG random stream and Go's %.6g number format.

const M64 = (1n << 64n) - 1n;

// Go's math/rand/v2 PCG: a 128-bit LCG with the DXSM output function
// (src/math/rand/v2/pcg.go), reproduced bit for bit with BigInt.
export class PCG {
  constructor(seed1, seed2) {
    this.hi = BigInt.asUintN(64, BigInt(seed1));
    this.lo = BigInt.asUintN(64, BigInt(seed2));
  }

  uint64() {
    const mulHi = 2549297995355413924n;
    const mulLo = 4865540595714422341n;
    const incHi = 6364136223846793005n;
    const incLo = 1442695040888963407n;
    // state = state * mul + inc, mod 2^128
    const state = ((this.hi << 64n) | this.lo) * ((mulHi << 64n) | mulLo) + ((incHi << 64n) | incLo);
    this.hi = (state >> 64n) & M64;
    this.lo = state & M64;
    let hi = this.hi;
    hi ^= hi >> 32n;
    hi = (hi * 0xda942042e4dd58b5n) & M64;
    hi ^= hi >> 48n;
    hi = (hi * (this.lo | 1n)) & M64;
    return hi;
  }

  // rand.Rand's methods used by cmd/gort (n a power of two: a mask, as Go does).
  float32() { return Number((this.uint64() >> 32n) & 0xffffffn) / 2 ** 24; }
  float64() { return Number(this.uint64() & ((1n << 53n) - 1n)) / 2 ** 53; }
  intNPow2(n) { return this.uint64() & BigInt(n - 1); }
}


// Go's %.6g: six significant digits, trailing zeros dropped, exponent form
// (two-digit minimum exponent) below 1e-4 and from 1e6.
export function formatG6(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [m, e] = x.toExponential(5).split('e');
  const exp = Number(e);
  const strip = (s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (exp < -4 || exp >= 6) return `${strip(m)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return strip(x.toFixed(5 - exp));
}


// Go's %.<prec>g (prec ≥ 1): the shortest decimal at prec significant
// digits, exponent form (at least two exponent digits) when the exponent is
// below -4 or at least prec. Go's %.6g is formatG(x, 6).
export function formatG(x, prec) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [m, e] = x.toExponential(prec - 1).split('e');
  const exp = Number(e);
  const strip = (s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (exp < -4 || exp >= prec) return `${strip(m)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return strip(x.toFixed(Math.max(0, prec - 1 - exp)));
}

// Go's %g and %v of a float64 (strconv 'g', -1): the shortest digits that
// read back, exponent form below 1e-4 and from 1e6 (strconv decides at
// precision 6 when the precision is the shortest).
export function formatGShortest(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [m, e] = x.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const digits = m.replace('-', '').replace('.', '');
  return x.toFixed(Math.max(0, digits.length - 1 - exp));
}

// Go's %v of a []int: "[1 3 224 224]".
export const formatInts = (a) => `[${(a || []).join(' ')}]`;

// Go's time.Duration.String of ms milliseconds rounded to the microsecond
// (d.Round(time.Microsecond)): "0s", "512µs", "8.913ms", "1.5s", "2m3.4s".
export function formatDuration(ms) {
  let us = Math.round(ms * 1000);
  if (us === 0) return '0s';
  const neg = us < 0;
  if (neg) us = -us;
  const frac = (n, digits) => {
    const s = String(n).padStart(digits + 1, '0');
    const f = s.slice(-digits).replace(/0+$/, '');
    return s.slice(0, -digits) + (f ? `.${f}` : '');
  };
  let out;
  if (us < 1000) out = `${us}µs`;
  else if (us < 1e6) out = `${frac(us, 3)}ms`;
  else {
    const totalS = Math.floor(us / 1e6);
    const sec = `${frac((totalS % 60) * 1e6 + (us % 1e6), 6)}s`;
    const min = Math.floor(totalS / 60);
    out = min === 0 ? sec : min < 60 ? `${min}m${sec}` : `${Math.floor(min / 60)}h${min % 60}m${sec}`;
  }
  return (neg ? '-' : '') + out;
}

// Go's text/tabwriter as cmd/gort uses it (minwidth 0, padding 2, padchar
// ' ', no flags): tab-terminated cells are aligned per column block (a run
// of consecutive lines that have that column), the last cell of a line is
// not. Widths count code points, as tabwriter counts runes.
export function tabwrite(text) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const rows = lines.map((l) => l.split('\t'));
  const width = (s) => [...s].length;
  const out = [];
  const widths = [];
  const writeLines = (from, to) => {
    for (let i = from; i < to; i++) {
      let s = '';
      rows[i].forEach((c, j) => {
        s += c;
        if (j < widths.length && j < rows[i].length - 1) s += ' '.repeat(Math.max(0, widths[j] - width(c)));
      });
      out.push(s);
    }
  };
  const format = (line0, line1) => {
    const column = widths.length;
    for (let t = line0; t < line1; t++) {
      if (column >= rows[t].length - 1) continue;
      writeLines(line0, t);
      line0 = t;
      let w = 0;
      for (; t < line1; t++) {
        if (column >= rows[t].length - 1) break;
        w = Math.max(w, width(rows[t][column]) + 2);
      }
      widths.push(w);
      format(line0, t);
      widths.pop();
      line0 = t;
    }
    writeLines(line0, line1);
  };
  format(0, rows.length);
  return out.map((l) => `${l}\n`).join('');
}

// Go's encoding/json output (json.Encoder with SetIndent("", "  ")) of a
// document: objects named in `maps` (Go maps) get sorted keys, as Go writes
// them; numbers under the keys in `floats` (compare.Float) are written as
// strconv's 'g' -1 with NaN and ±Inf as strings; other numbers as
// encoding/json does (the same as JSON.stringify); <, > and & in strings
// escaped as Go escapes them. Ends with a newline, as Encode does.
export function goJSON(doc, { maps = new Set(), floats = new Set(), sortTop = false } = {}) {
  const str = (s) => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const num = (x, isFloat) => {
    if (isFloat) return Number.isFinite(x) ? formatGShortest(x) : `"${formatGShortest(x)}"`;
    if (!Number.isFinite(x)) return 'null';
    return JSON.stringify(x);
  };
  const enc = (v, ind, key, sort) => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'number') return num(v, floats.has(key));
    if (typeof v === 'bigint') return String(v);
    if (typeof v === 'boolean') return String(v);
    if (typeof v === 'string') return str(v);
    const next = `${ind}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((x) => next + enc(x, next, key, false)).join(',\n')}\n${ind}]`;
    }
    let keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (sort) keys = keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (keys.length === 0) return '{}';
    return `{\n${keys.map((k) => `${next}${str(k)}: ${enc(v[k], next, k, maps.has(k))}`).join(',\n')}\n${ind}}`;
  };
  return `${enc(doc, '', '', sortTop)}\n`;
}
