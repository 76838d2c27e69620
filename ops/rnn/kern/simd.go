//go:build wasm && goexperiment.simd

package kern

import (
	"github.com/gort-dev/gort/ops/internal/expf"
	"simd/archsimd"
	"unsafe"
)

// WebAssembly SIMD128 loops of the float32 path (GOEXPERIMENT=simd). They
// compute what scalar.go does, in the same order per element, four
// lanes at a time; wasm has no fused multiply-add, so every product is
// rounded before its sum there as well.

type f32x4 = archsimd.Float32x4

func ld4(p unsafe.Pointer, off uintptr) f32x4 {
	return archsimd.LoadFloat32x4Array((*[4]float32)(unsafe.Add(p, off)))
}

func st4(x f32x4, p unsafe.Pointer, off uintptr) {
	x.StoreArray((*[4]float32)(unsafe.Add(p, off)))
}

func load4(s []float32) f32x4 { return archsimd.LoadFloat32x4Array((*[4]float32)(s)) }

func store4(x f32x4, s []float32) { x.StoreArray((*[4]float32)(s)) }

func bc(x float32) f32x4 { return archsimd.BroadcastFloat32x4(x) }

// GemvAcc adds v·M to out (out[j] += Σₚ v[p]·M[p, j], summed in order of
// p); len(v) = m.k, len(out) = m.n. The 16-wide panels go to gemv16, a
// full 8-wide one to gemv8, the columns of a last partial panel one at a
// time.
func GemvAcc(out, v []float32, m *Panels) {
	k, n := m.k, m.n
	if n == 0 || k == 0 {
		return
	}
	v, out = v[:k], out[:n]
	w16, full := m.wide(), n/8*8
	if w16 > 0 {
		gemv16(out[:w16], v, m.data[:w16*k])
	}
	if full > w16 {
		gemv8(out[w16:full], v, m.data[w16*k:full*k])
	}
	panel := m.data[full*k:]
	for c := range n - full {
		acc := out[full+c]
		for p, vp := range v {
			acc += vp * panel[p*8+c]
		}
		out[full+c] = acc
	}
}

// gemv8 is GemvAcc over whole panels (len(out) a multiple of 8, m holding
// len(out)/8 panels of depth len(v)), one panel at a time in two
// accumulators, the depth unrolled by four (~13% faster; the sums keep their
// order). It is kept apart, and small, because Go's wasm backend spills the
// loop's values to the stack in a larger function (3× slower). The extent of
// m is checked once; the loops use unsafe offsets inside it.
//
//go:noinline
func gemv8(out, v, m []float32) {
	n, k := len(out), len(v)
	_ = m[k*n-1]
	pm, pv, po := unsafe.Pointer(&m[0]), unsafe.Pointer(&v[0]), unsafe.Pointer(&out[0])
	mo := uintptr(0)
	for j := 0; j+8 <= n; j += 8 {
		o := uintptr(j) * 4
		a0, a1 := ld4(po, o), ld4(po, o+16)
		p := uintptr(0)
		for ; p+16 <= uintptr(k)*4; p += 16 {
			s := bc(*(*float32)(unsafe.Add(pv, p)))
			a0 = a0.Add(s.Mul(ld4(pm, mo)))
			a1 = a1.Add(s.Mul(ld4(pm, mo+16)))
			s = bc(*(*float32)(unsafe.Add(pv, p+4)))
			a0 = a0.Add(s.Mul(ld4(pm, mo+32)))
			a1 = a1.Add(s.Mul(ld4(pm, mo+48)))
			s = bc(*(*float32)(unsafe.Add(pv, p+8)))
			a0 = a0.Add(s.Mul(ld4(pm, mo+64)))
			a1 = a1.Add(s.Mul(ld4(pm, mo+80)))
			s = bc(*(*float32)(unsafe.Add(pv, p+12)))
			a0 = a0.Add(s.Mul(ld4(pm, mo+96)))
			a1 = a1.Add(s.Mul(ld4(pm, mo+112)))
			mo += 128
		}
		for ; p < uintptr(k)*4; p += 4 {
			s := bc(*(*float32)(unsafe.Add(pv, p)))
			a0 = a0.Add(s.Mul(ld4(pm, mo)))
			a1 = a1.Add(s.Mul(ld4(pm, mo+16)))
			mo += 32
		}
		st4(a0, po, o)
		st4(a1, po, o+16)
	}
}

// The activations' constants, four lanes each, loaded from memory (k4)
// rather than splatted from an immediate at each use, which the loops
// repeat per vector: one step's gates without peepholes (H = 64) measured
// 12% faster (607 against 689 ns, medians of six interleaved runs). A
// table of single floats splatted at use was slower than either (885 ns).
const (
	kNegTanhClamp = iota
	kTanhClamp
	kTanhA13
	kTanhA11
	kTanhA9
	kTanhA7
	kTanhA5
	kTanhA3
	kTanhA1
	kTanhB6
	kTanhB4
	kTanhB2
	kTanhB0
	kOne
	kNegExpHi
	kNegExpLo
	kExpLog2e
	kExpC1
	kExpC2
	kExpP0
	kExpP1
	kExpP2
	kExpP3
	kExpP4
	kExpP5
	kExpMagic
)

var actK = [...][4]float32{
	kNegTanhClamp: {-tanhClamp, -tanhClamp, -tanhClamp, -tanhClamp},
	kTanhClamp:    {tanhClamp, tanhClamp, tanhClamp, tanhClamp},
	kTanhA13:      {tanhA13, tanhA13, tanhA13, tanhA13},
	kTanhA11:      {tanhA11, tanhA11, tanhA11, tanhA11},
	kTanhA9:       {tanhA9, tanhA9, tanhA9, tanhA9},
	kTanhA7:       {tanhA7, tanhA7, tanhA7, tanhA7},
	kTanhA5:       {tanhA5, tanhA5, tanhA5, tanhA5},
	kTanhA3:       {tanhA3, tanhA3, tanhA3, tanhA3},
	kTanhA1:       {tanhA1, tanhA1, tanhA1, tanhA1},
	kTanhB6:       {tanhB6, tanhB6, tanhB6, tanhB6},
	kTanhB4:       {tanhB4, tanhB4, tanhB4, tanhB4},
	kTanhB2:       {tanhB2, tanhB2, tanhB2, tanhB2},
	kTanhB0:       {tanhB0, tanhB0, tanhB0, tanhB0},
	kOne:          {1, 1, 1, 1},
	kNegExpHi:     {-expHi, -expHi, -expHi, -expHi},
	kNegExpLo:     {-expLo, -expLo, -expLo, -expLo},
	kExpLog2e:     {expf.Log2e, expf.Log2e, expf.Log2e, expf.Log2e},
	kExpC1:        {expf.Ln2Hi, expf.Ln2Hi, expf.Ln2Hi, expf.Ln2Hi},
	kExpC2:        {expf.Ln2Lo, expf.Ln2Lo, expf.Ln2Lo, expf.Ln2Lo},
	kExpP0:        {expf.P0, expf.P0, expf.P0, expf.P0},
	kExpP1:        {expf.P1, expf.P1, expf.P1, expf.P1},
	kExpP2:        {expf.P2, expf.P2, expf.P2, expf.P2},
	kExpP3:        {expf.P3, expf.P3, expf.P3, expf.P3},
	kExpP4:        {expf.P4, expf.P4, expf.P4, expf.P4},
	kExpP5:        {expf.P5, expf.P5, expf.P5, expf.P5},
	kExpMagic:     {expMagic, expMagic, expMagic, expMagic},
}

// k4 is constant i of actK.
func k4(i int) f32x4 { return archsimd.LoadFloat32x4Array(&actK[i]) }

// clamp4 is min(max(x, lo), hi) for lo ≤ hi, NaN staying NaN (no
// comparison holds), by compares and selects: wasm's f32x4.max and min
// order -0 below +0 and propagate NaN, which V8 emits as eight x64
// instructions each, where a compare and a select are four.
func clamp4(x, lo, hi f32x4) f32x4 {
	x = lo.IfElse(x.Less(lo), x)
	return hi.IfElse(x.Greater(hi), x)
}

// tanh4 is tanh32 on four lanes, for x clamped to ±tanhClamp (tanhC4):
// the clamp is its callers' so that both stay small enough for Go to
// inline into the loops (the loops ran 25% slower calling them).
func tanh4(x f32x4) f32x4 {
	x2 := x.Mul(x)
	p := x2.Mul(k4(kTanhA13)).Add(k4(kTanhA11))
	p = p.Mul(x2).Add(k4(kTanhA9))
	p = p.Mul(x2).Add(k4(kTanhA7))
	p = p.Mul(x2).Add(k4(kTanhA5))
	p = p.Mul(x2).Add(k4(kTanhA3))
	p = p.Mul(x2).Add(k4(kTanhA1))
	q := x2.Mul(k4(kTanhB6)).Add(k4(kTanhB4))
	q = q.Mul(x2).Add(k4(kTanhB2))
	q = q.Mul(x2).Add(k4(kTanhB0))
	return x.Mul(p).Div(q)
}

// tanhC4 clamps x for tanh4.
func tanhC4(x f32x4) f32x4 { return clamp4(x, k4(kNegTanhClamp), k4(kTanhClamp)) }

// LSTMGates finishes an LSTM step: g holds the pre-activations of the gates
// i, o, f, c (H values each, without peepholes), c the cell state, updated
// in place, h the new hidden state (set, not read: the steps pass Y's row
// of the step), p the peepholes i, o, f (nil when absent, allowed only without
// inputForget, zeros otherwise). It runs in phases
// (peepholes into i and f; their sigmoids and c's tanh over whole gates;
// the new c and o's peephole; o's sigmoid and tanh(c); h), g serving as
// scratch: each phase is a short loop of independent vectors, which V8
// runs ~25% faster than one loop doing a unit's whole cell. Per element the
// operations are lstmUnit's, in its order.
func LSTMGates(g, c, h, p []float32, inputForget bool) {
	if p == nil && !inputForget {
		lstmGatesPlain(g, c, h)
		return
	}
	H := len(h)
	gi, gO, gf, gc := g[:H], g[H:2*H], g[2*H:3*H], g[3*H:4*H]
	pi, po, pf := p[:H], p[H:2*H], p[2*H:3*H]
	c = c[:H]
	v := H / 4 * 4 // the vector part; the tails are scalar
	for j := 0; j < v; j += 4 {
		cj := load4(c[j : j+4])
		x := load4(gi[j : j+4]).Add(load4(pi[j : j+4]).Mul(cj))
		store4(x, gi[j:j+4])
		if inputForget {
			store4(x.Neg(), gf[j:j+4])
		} else {
			store4(load4(gf[j:j+4]).Add(load4(pf[j:j+4]).Mul(cj)), gf[j:j+4])
		}
	}
	for j := v; j < H; j++ {
		gi[j] += pi[j] * c[j]
		if inputForget {
			gf[j] = -gi[j]
		} else {
			gf[j] += pf[j] * c[j]
		}
	}
	SigmoidTo(gi, gi)
	SigmoidTo(gf, gf)
	TanhTo(gc, gc)
	for j := 0; j < v; j += 4 {
		cj := load4(gf[j : j+4]).Mul(load4(c[j : j+4])).Add(load4(gi[j : j+4]).Mul(load4(gc[j : j+4])))
		store4(cj, c[j:j+4])
		store4(load4(gO[j:j+4]).Add(load4(po[j:j+4]).Mul(cj)), gO[j:j+4])
	}
	for j := v; j < H; j++ {
		c[j] = gf[j]*c[j] + gi[j]*gc[j]
		gO[j] += po[j] * c[j]
	}
	SigmoidTo(gO, gO)
	TanhTo(h, c)
	for j := 0; j < v; j += 4 {
		store4(load4(gO[j:j+4]).Mul(load4(h[j:j+4])), h[j:j+4])
	}
	for j := v; j < H; j++ {
		h[j] *= gO[j]
	}
}

// lstmGatesPlain is LSTMGates without peepholes or coupled input and forget
// gates, the common case: the gates i, o and f are then one run of 3H
// sigmoids, and the cell update and h = o ⊙ tanh(c) one loop (~15% faster
// than the phases). Per element the values are lstmUnit's with zero
// peepholes (which skips a zero peephole's product, NaN for an infinite c).
func lstmGatesPlain(g, c, h []float32) {
	H := len(h)
	gi, gO, gf, gc := g[:H], g[H:2*H], g[2*H:3*H], g[3*H:4*H]
	c = c[:H]
	SigmoidTo(g[:3*H], g[:3*H])
	TanhTo(gc, gc)
	v := H / 4 * 4
	// Offsets inside the slices above rather than a bounds check per
	// vector: each check splits the loop body into blocks that Go's wasm
	// backend joins through its dispatch loop, where V8 spills the vectors
	// live across it (one step 515 → 485 ns, medians of eight runs).
	pg, pc, ph, hb := unsafe.Pointer(unsafe.SliceData(g)), unsafe.Pointer(unsafe.SliceData(c)), unsafe.Pointer(unsafe.SliceData(h)), uintptr(H)*4
	for o := uintptr(0); o < uintptr(v)*4; o += 16 {
		cj := ld4(pg, 2*hb+o).Mul(ld4(pc, o)).Add(ld4(pg, o).Mul(ld4(pg, 3*hb+o)))
		st4(cj, pc, o)
		st4(ld4(pg, hb+o).Mul(tanh4(tanhC4(cj))), ph, o)
	}
	for j := v; j < H; j++ {
		c[j] = gf[j]*c[j] + gi[j]*gc[j]
		h[j] = gO[j] * tanh32(c[j])
	}
}

// TanhTo sets dst[i] = tanh32(src[i]): whole vectors by tanh4s.
func TanhTo(dst, src []float32) {
	src = src[:len(dst)]
	v := len(dst) / 4 * 4
	if v > 0 {
		tanh4s(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), v/4, unsafe.Pointer(&actK))
	}
	for i := v; i < len(dst); i++ {
		dst[i] = tanh32(src[i])
	}
}

// SigmoidTo sets dst[i] = sigmoid32(src[i]): whole vectors by sigmoid4s.
func SigmoidTo(dst, src []float32) {
	src = src[:len(dst)]
	v := len(dst) / 4 * 4
	if v > 0 {
		sigmoid4s(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), v/4, unsafe.Pointer(&actK))
	}
	for i := v; i < len(dst); i++ {
		dst[i] = sigmoid32(src[i])
	}
}

// sigmoid4s and tanh4s are SigmoidTo's and TanhTo's loops over n vectors,
// in WebAssembly (gemv_wasm.s), with the operations of clamp4 and tanh4 and
// the sigmoid's e⁻ˣ described there, in their order; table is actK.
//
//go:noescape
func sigmoid4s(dst, src unsafe.Pointer, n int, table unsafe.Pointer)

//go:noescape
func tanh4s(dst, src unsafe.Pointer, n int, table unsafe.Pointer)

// gemv16 is GemvAcc over 16-wide panels (len(out) a multiple of 16, m
// holding len(out)/16 panels of depth len(v), element (p, 16q + c) at
// m[16q·k + 16p + c]): four accumulators, the depth unrolled by two, in
// WebAssembly (gemv16Asm, gemv_wasm.s). An 8-wide panel alone (gemv8) is a
// short chain of dependent adds per accumulator and ran 1.5× slower;
// 32-wide panels (eight accumulators) or deeper unrolling measured slower
// again in V8.
func gemv16(out, v, m []float32) {
	n, k := len(out), len(v)
	if n < 16 || k == 0 {
		return
	}
	_ = m[k*(n/16*16)-1]
	gemv16Asm(unsafe.Pointer(&out[0]), unsafe.Pointer(&v[0]), unsafe.Pointer(&m[0]), k, n/16)
}

// gemv16Asm is gemv16's loop over its panels (gemv_wasm.s).
//
//go:noescape
func gemv16Asm(out, v, m unsafe.Pointer, k, panels int)
