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

