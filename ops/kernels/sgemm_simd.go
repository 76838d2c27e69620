//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

// WebAssembly SIMD128 micro-kernels (GOEXPERIMENT=simd). The 4×8 tile lives
// in eight Float32x4 accumulators; per k step the kernel loads two vectors of
// the B panel and broadcasts four scalars of the A panel. k is unrolled by two
// (Go's wasm backend schedules the products of a step before their adds, and
// a longer body leaves fewer accumulators spilled per step), and every load
// goes through an unsafe pointer at a constant offset from the panel base so
// the loop carries no bounds checks: the slices are checked once on entry,
// and the loop never reads past a·(4k) and b·(8k) floats.
//
// wasm has no fused multiply-add (relaxed SIMD is not available), so each
// step is a Mul then an Add, rounded twice, like the scalar kernels.

type f32x4 = archsimd.Float32x4

func ld4(p unsafe.Pointer, off uintptr) f32x4 {
	return archsimd.LoadFloat32x4Array((*[4]float32)(unsafe.Add(p, off)))
}

func st4(x f32x4, p unsafe.Pointer, off uintptr) {
	x.StoreArray((*[4]float32)(unsafe.Add(p, off)))
}

func splat(p unsafe.Pointer, off uintptr) f32x4 {
	return archsimd.BroadcastFloat32x4(*(*float32)(unsafe.Add(p, off)))
}

// kernel4x8 computes the MR×NR tile a·b (a: k×MR packed, b: k×NR packed)
// and stores it into c (leading dimension ldc), or adds it to c when acc.
func kernel4x8(a, b []float32, k int, c []float32, ldc int, acc bool) {
	if k <= 0 {
		return
	}
	// One bounds check per operand; the loop below stays inside them.
	_, _, _ = a[4*k-1], b[8*k-1], c[3*ldc+7]
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	var c00, c01, c10, c11, c20, c21, c30, c31 f32x4
	var ao, bo uintptr
	for ; k >= 2; k -= 2 {
		b0 := ld4(pb, bo)
		b1 := ld4(pb, bo+16)
		a0 := splat(pa, ao)
		c00 = c00.Add(a0.Mul(b0))
		c01 = c01.Add(a0.Mul(b1))
		a1 := splat(pa, ao+4)
		c10 = c10.Add(a1.Mul(b0))
		c11 = c11.Add(a1.Mul(b1))
		a2 := splat(pa, ao+8)
		c20 = c20.Add(a2.Mul(b0))
		c21 = c21.Add(a2.Mul(b1))
		a3 := splat(pa, ao+12)
		c30 = c30.Add(a3.Mul(b0))
		c31 = c31.Add(a3.Mul(b1))
		b0 = ld4(pb, bo+32)
		b1 = ld4(pb, bo+48)
		a0 = splat(pa, ao+16)
		c00 = c00.Add(a0.Mul(b0))
		c01 = c01.Add(a0.Mul(b1))
		a1 = splat(pa, ao+20)
		c10 = c10.Add(a1.Mul(b0))
		c11 = c11.Add(a1.Mul(b1))
		a2 = splat(pa, ao+24)
		c20 = c20.Add(a2.Mul(b0))
		c21 = c21.Add(a2.Mul(b1))
		a3 = splat(pa, ao+28)
		c30 = c30.Add(a3.Mul(b0))
		c31 = c31.Add(a3.Mul(b1))
		ao += 32
		bo += 64
	}
	if k > 0 {
		b0 := ld4(pb, bo)
		b1 := ld4(pb, bo+16)
		a0 := splat(pa, ao)
		c00 = c00.Add(a0.Mul(b0))
		c01 = c01.Add(a0.Mul(b1))
		a1 := splat(pa, ao+4)
		c10 = c10.Add(a1.Mul(b0))
		c11 = c11.Add(a1.Mul(b1))
		a2 := splat(pa, ao+8)
		c20 = c20.Add(a2.Mul(b0))
		c21 = c21.Add(a2.Mul(b1))
		a3 := splat(pa, ao+12)
		c30 = c30.Add(a3.Mul(b0))
		c31 = c31.Add(a3.Mul(b1))
	}
	l := uintptr(ldc) * 4
	if acc {
		c00 = c00.Add(ld4(pc, 0))
		c01 = c01.Add(ld4(pc, 16))
		c10 = c10.Add(ld4(pc, l))
		c11 = c11.Add(ld4(pc, l+16))
		c20 = c20.Add(ld4(pc, 2*l))
		c21 = c21.Add(ld4(pc, 2*l+16))
		c30 = c30.Add(ld4(pc, 3*l))
		c31 = c31.Add(ld4(pc, 3*l+16))
	}
	st4(c00, pc, 0)
	st4(c01, pc, 16)
	st4(c10, pc, l)
	st4(c11, pc, l+16)
	st4(c20, pc, 2*l)
	st4(c21, pc, 2*l+16)
	st4(c30, pc, 3*l)
	st4(c31, pc, 3*l+16)
}

// kernelColumn computes the nq full tiles of one column of C: tile q is the
// A panel a[q·as:] (k×MR packed) times the B panel b (rows ldb floats apart:
// NR for a packed panel, more for a plain B read in place), stored into C
// from row q·MR, or added to it when acc, with the fused epilogue e (nil for
// none; see Epilogue.fusable) of C's rows from row, columns from col.
//
// One call sweeps the whole column (sweep_wasm.s): a Go call per tile, its
// arguments through memory, cost the shallow GEMMs of pointwise, grouped and
// Winograd convolutions (depth 16 to 64) a third to a half of their time.
// The operands are bounds-checked here, once.
func kernelColumn(a []float32, as int, b []float32, k, ldb int, c []float32, ldc int, acc bool, e *Epilogue, row, col, nq int) {
	if k <= 0 || nq <= 0 {
		return
	}
	_, _, _ = a[(nq-1)*as+MR*k-1], b[(k-1)*ldb+NR-1], c[(nq*MR-1)*ldc+NR-1]
	var flags int
	var bias, res unsafe.Pointer
	var ldr int
	if acc {
		flags |= sweepAcc
	}
	if e != nil {
		if e.RowBias != nil {
			_ = e.RowBias[row+nq*MR-1]
			bias, flags = unsafe.Pointer(&e.RowBias[row]), flags|sweepBias
		}
		if e.Residual != nil {
			o := row*e.LdR + col
			_ = e.Residual[o+(nq*MR-1)*e.LdR+NR-1]
			res, ldr, flags = unsafe.Pointer(&e.Residual[o]), e.LdR, flags|sweepResidual
		}
		switch e.Act {
		case ActRelu:
			flags |= sweepRelu
		case ActHardSwish:
			flags |= sweepHardSwish
		}
	}
	sweep4x8(unsafe.Pointer(&a[0]), uintptr(as)*4, unsafe.Pointer(&b[0]), uintptr(ldb)*4, k,
		unsafe.Pointer(&c[0]), uintptr(ldc)*4, nq, flags, bias, res, uintptr(ldr)*4, 0, uintptr(MR*ldc)*4)
}

// kernelRow stores into t (rows ldt floats apart) the np tiles of one row
// panel of A (k×MR packed) times the B panels b[q·bs:] (rows ldb apart):
// the sweep across a row of tiles, for the last rows of a block (fewer
// than MR, with the panel's padding rows zero), which C cannot hold whole.
func kernelRow(a, b []float32, k, ldb, bs, np int, t []float32, ldt int) {
	if k <= 0 || np <= 0 {
		return
	}
	_, _, _ = a[MR*k-1], b[(np-1)*bs+(k-1)*ldb+NR-1], t[(MR-1)*ldt+np*NR-1]
	sweep4x8(unsafe.Pointer(&a[0]), 0, unsafe.Pointer(&b[0]), uintptr(ldb)*4, k,
		unsafe.Pointer(&t[0]), uintptr(ldt)*4, np, 0, nil, nil, 0, uintptr(bs)*4, NR*4)
}

// vecPackA reports that packA4 exists.
const vecPackA = true

// packA4 writes the k-major panel of four rows of a row-major A, lda bytes
// apart, over kb depths, each times the float32 whose bits are alphabits:
// packAPanel's common case, in WebAssembly (pack_wasm.s).
//
//go:noescape
func packA4(dst, a unsafe.Pointer, lda uintptr, kb int, alphabits uint64)

// sweep4x8's flags: what it does to each tile after the products.
const (
	sweepAcc       = 1 << iota // add C's old value
	sweepBias                  // add the row bias
	sweepResidual              // add the residual
	sweepRelu                  // then Relu
	sweepHardSwish             // or HardSwish
)

// sweep4x8 is the loop of kernelColumn and kernelRow, in sweep_wasm.s:
// nq tiles, tile q from A's panel at a+q·as, B's at b+q·bs, into C at
// c+q·cs (with the row bias and residual four rows on per tile); strides
// in bytes.
//
//go:noescape
func sweep4x8(a unsafe.Pointer, as uintptr, b unsafe.Pointer, ldb uintptr, k int, c unsafe.Pointer, ldc uintptr, nq int, flags int, bias, res unsafe.Pointer, ldr, bs, cs uintptr)

// directB lets the GEMM read the full panels of a plain (untransposed, not
// pre-packed) B in place, ldb apart, packing only a partial last panel:
// for a pointwise convolution, whose B is its input, packing was a copy of
// the whole input that cost a quarter of the convolution when the output
// has few channels (SqueezeNet's squeeze layers). Since the column sweep
// (sweep_wasm.s) reads a strided panel as fast as a packed one, it pays
// for any number of rows (ShuffleNet's 68-channel groups ran 6% faster
// than with B packed, ResNet-50's pointwise convolutions the same).
const directB = true

// kernel4x8s is kernel4x8 reading B rows ldb floats apart: a plain B
// read in place (see directB), and with e applying the epilogue as the
// column sweep (kernelColumn) does.
// The stride costs its loop a few percent against kernel4x8's constant
// offsets, which is why packed panels keep their own kernels.
func kernel4x8s(a, b []float32, k, ldb int, c []float32, ldc int, acc bool, e *Epilogue, row, col int) {
	if k <= 0 {
		return
	}
	// One bounds check per operand; the loop below stays inside them.
	_, _, _ = a[4*k-1], b[(k-1)*ldb+NR-1], c[3*ldc+7]
	bs := uintptr(ldb) * 4
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	var c00, c01, c10, c11, c20, c21, c30, c31 f32x4
	var ao, bo uintptr
	for ; k >= 2; k -= 2 {
		b0 := ld4(pb, bo)
		b1 := ld4(pb, bo+16)
		a0 := splat(pa, ao)
		c00 = c00.Add(a0.Mul(b0))
		c01 = c01.Add(a0.Mul(b1))
		a1 := splat(pa, ao+4)
		c10 = c10.Add(a1.Mul(b0))
		c11 = c11.Add(a1.Mul(b1))
		a2 := splat(pa, ao+8)
		c20 = c20.Add(a2.Mul(b0))
		c21 = c21.Add(a2.Mul(b1))
		a3 := splat(pa, ao+12)
		c30 = c30.Add(a3.Mul(b0))
		c31 = c31.Add(a3.Mul(b1))
		b0 = ld4(pb, bo+bs)
		b1 = ld4(pb, bo+bs+16)
		a0 = splat(pa, ao+16)
		c00 = c00.Add(a0.Mul(b0))
		c01 = c01.Add(a0.Mul(b1))
		a1 = splat(pa, ao+20)
		c10 = c10.Add(a1.Mul(b0))
		c11 = c11.Add(a1.Mul(b1))
		a2 = splat(pa, ao+24)
		c20 = c20.Add(a2.Mul(b0))
		c21 = c21.Add(a2.Mul(b1))
		a3 = splat(pa, ao+28)
		c30 = c30.Add(a3.Mul(b0))
		c31 = c31.Add(a3.Mul(b1))
		ao += 32
		bo += 2 * bs
	}
	if k > 0 {
		b0 := ld4(pb, bo)
		b1 := ld4(pb, bo+16)
		a0 := splat(pa, ao)
		c00 = c00.Add(a0.Mul(b0))
		c01 = c01.Add(a0.Mul(b1))
		a1 := splat(pa, ao+4)
		c10 = c10.Add(a1.Mul(b0))
		c11 = c11.Add(a1.Mul(b1))
		a2 := splat(pa, ao+8)
		c20 = c20.Add(a2.Mul(b0))
		c21 = c21.Add(a2.Mul(b1))
		a3 := splat(pa, ao+12)
		c30 = c30.Add(a3.Mul(b0))
		c31 = c31.Add(a3.Mul(b1))
	}
	l := uintptr(ldc) * 4
	if acc {
		c00 = c00.Add(ld4(pc, 0))
		c01 = c01.Add(ld4(pc, 16))
		c10 = c10.Add(ld4(pc, l))
		c11 = c11.Add(ld4(pc, l+16))
		c20 = c20.Add(ld4(pc, 2*l))
		c21 = c21.Add(ld4(pc, 2*l+16))
		c30 = c30.Add(ld4(pc, 3*l))
		c31 = c31.Add(ld4(pc, 3*l+16))
	}
	if e != nil {
		// epilogueRowScalar's order: the row bias, the residual, then Relu.
		if bias := e.RowBias; bias != nil {
			bias = bias[row : row+MR]
			pbias := unsafe.Pointer(unsafe.SliceData(bias))
			v := splat(pbias, 0)
			c00, c01 = c00.Add(v), c01.Add(v)
			v = splat(pbias, 4)
			c10, c11 = c10.Add(v), c11.Add(v)
			v = splat(pbias, 8)
			c20, c21 = c20.Add(v), c21.Add(v)
			v = splat(pbias, 12)
			c30, c31 = c30.Add(v), c31.Add(v)
		}
		if res := e.Residual; res != nil {
			o := row*e.LdR + col
			_ = res[o+3*e.LdR+NR-1]
			pr, lr := unsafe.Pointer(&res[o]), uintptr(e.LdR)*4
			c00, c01 = c00.Add(ld4(pr, 0)), c01.Add(ld4(pr, 16))
			c10, c11 = c10.Add(ld4(pr, lr)), c11.Add(ld4(pr, lr+16))
			c20, c21 = c20.Add(ld4(pr, 2*lr)), c21.Add(ld4(pr, 2*lr+16))
			c30, c31 = c30.Add(ld4(pr, 3*lr)), c31.Add(ld4(pr, 3*lr+16))
		}
		if e.Act == ActRelu {
			var z f32x4
			c00, c01 = z.IfElse(c00.Less(z), c00), z.IfElse(c01.Less(z), c01)
			c10, c11 = z.IfElse(c10.Less(z), c10), z.IfElse(c11.Less(z), c11)
			c20, c21 = z.IfElse(c20.Less(z), c20), z.IfElse(c21.Less(z), c21)
			c30, c31 = z.IfElse(c30.Less(z), c30), z.IfElse(c31.Less(z), c31)
		}
	}
	st4(c00, pc, 0)
	st4(c01, pc, 16)
	st4(c10, pc, l)
	st4(c11, pc, l+16)
	st4(c20, pc, 2*l)
	st4(c21, pc, 2*l+16)
	st4(c30, pc, 3*l)
	st4(c31, pc, 3*l+16)
}

// kernel1x8 stores into c[:NR] the product of row 0 of the packed A panel a
// (stride MR) with the B panel b (rows ldb apart, as in kernel4x8).
func kernel1x8(a, b []float32, k, ldb int, c []float32) {
	var c0, c1 f32x4
	if k > 0 {
		_, _ = a[4*k-1], b[(k-1)*ldb+NR-1]
		bs := uintptr(ldb) * 4
		pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
		var ao, bo uintptr
		for ; k >= 2; k -= 2 {
			a0 := splat(pa, ao)
			c0 = c0.Add(a0.Mul(ld4(pb, bo)))
			c1 = c1.Add(a0.Mul(ld4(pb, bo+16)))
			a0 = splat(pa, ao+16)
			c0 = c0.Add(a0.Mul(ld4(pb, bo+bs)))
			c1 = c1.Add(a0.Mul(ld4(pb, bo+bs+16)))
			ao += 32
			bo += 2 * bs
		}
		if k > 0 {
			a0 := splat(pa, ao)
			c0 = c0.Add(a0.Mul(ld4(pb, bo)))
			c1 = c1.Add(a0.Mul(ld4(pb, bo+16)))
		}
	}
	c0.Store(c[0:4])
	c1.Store(c[4:8])
}

// epilogueRow applies one row of an Epilogue in a single pass: per vector
// the additions in order (bias, column bias, residual), then the activation
// (the activations that are not piecewise linear, which call math32 or
// math, run scalar over the row afterwards).
// The comparisons reproduce activateScalar's results, NaNs included (Go's
// min and max and wasm's f32x4.min/max agree: NaN in, NaN out;
// min(-0, 0) = -0).
func epilogueRow(x []float32, hasBias bool, bias float32, colBias, res []float32, act Act, al, be float32) {
	if !hasBias && colBias == nil && res == nil {
		// The activation alone (a depthwise convolution's, whose bias its
		// row kernel adds): activateSimple's loops test the activation once
		// per row instead of once per vector.
		Activate(x, act, al, be)
		return
	}
	n := len(x) &^ 3
	if colBias != nil {
		colBias = colBias[:len(x)]
	}
	if res != nil {
		res = res[:len(x)]
	}
	vact := act
	if !acts[act].piecewise {
		vact = ActNone
	}
	vb := archsimd.BroadcastFloat32x4(bias)
	zero, one := archsimd.BroadcastFloat32x4(0), archsimd.BroadcastFloat32x4(1)
	va, vbe := archsimd.BroadcastFloat32x4(al), archsimd.BroadcastFloat32x4(be)
	six, half := archsimd.BroadcastFloat32x4(6), archsimd.BroadcastFloat32x4(0.5)
	i0 := 0
	if hasBias && colBias == nil && (act == ActNone || act == ActRelu) {
		biasReluRow(x[:n], vb, res, act == ActRelu)
		i0 = n
	}
	for i := i0; i < n; i += 4 {
		v := archsimd.LoadFloat32x4(x[i : i+4])
		if hasBias {
			v = v.Add(vb)
		}
		if colBias != nil {
			v = v.Add(archsimd.LoadFloat32x4(colBias[i : i+4]))
		}
		if res != nil {
			v = v.Add(archsimd.LoadFloat32x4(res[i : i+4]))
		}
		switch vact {
		case ActRelu:
			v = zero.IfElse(v.Less(zero), v)
		case ActLeakyRelu:
			v = v.Mul(va).IfElse(v.Less(zero), v)
		case ActClip:
			v = va.IfElse(v.Less(va), v)
			v = vbe.IfElse(v.Greater(vbe), v)
		case ActHardSigmoid:
			v = zero.Max(one.Min(va.Mul(v).Add(vbe)))
		case ActHardSwish:
			v = v.Mul(zero.Max(one.Min(v.Div(six).Add(half))))
		}
		v.Store(x[i : i+4])
	}
	if vact != act {
		Activate(x[:n], act, al, be)
	}
	var cb, rs []float32
	if colBias != nil {
		cb = colBias[n:]
	}
	if res != nil {
		rs = res[n:]
	}
	epilogueRowScalar(x[n:], hasBias, bias, cb, rs, act, al, be)
}

// biasReluRow is epilogueRow's loop for a convolution's usual epilogue, a
// bias, then the residual if any, then ReLU if relu (len(x) a multiple of
// 4): one branch per vector instead of five, so even V8's baseline code,
// which runs the first calls in WebAssembly, is quick.
func biasReluRow(x []float32, vb f32x4, res []float32, relu bool) {
	px := unsafe.Pointer(unsafe.SliceData(x))
	end := uintptr(len(x)) * 4
	var zero f32x4
	if res == nil {
		for o := uintptr(0); o < end; o += 16 {
			v := ld4(px, o).Add(vb)
			if relu {
				v = zero.IfElse(v.Less(zero), v)
			}
			st4(v, px, o)
		}
		return
	}
	pr := unsafe.Pointer(unsafe.SliceData(res[:len(x)]))
	for o := uintptr(0); o < end; o += 16 {
		v := ld4(px, o).Add(vb).Add(ld4(pr, o))
		if relu {
			v = zero.IfElse(v.Less(zero), v)
		}
		st4(v, px, o)
	}
}

// activateSimple vectorises the piecewise-linear activations with the
// comparisons and NaN behaviour of activateScalar (Go's min and max and
// wasm's f32x4.min/max agree: NaN in, NaN out; min(-0, 0) = -0).
func activateSimple(x []float32, act Act, al, be float32) {
	n := len(x) &^ 3
	zero := archsimd.BroadcastFloat32x4(0)
	switch act {
	case ActRelu:
		for i := 0; i < n; i += 4 {
			v := archsimd.LoadFloat32x4(x[i:])
			zero.IfElse(v.Less(zero), v).Store(x[i:])
		}
	case ActLeakyRelu:
		a := archsimd.BroadcastFloat32x4(al)
		for i := 0; i < n; i += 4 {
			v := archsimd.LoadFloat32x4(x[i:])
			v.Mul(a).IfElse(v.Less(zero), v).Store(x[i:])
		}
	case ActClip:
		lo, hi := archsimd.BroadcastFloat32x4(al), archsimd.BroadcastFloat32x4(be)
		for i := 0; i < n; i += 4 {
			v := archsimd.LoadFloat32x4(x[i:])
			v = lo.IfElse(v.Less(lo), v)
			v = hi.IfElse(v.Greater(hi), v)
			v.Store(x[i:])
		}
	case ActHardSigmoid:
		a, b, one := archsimd.BroadcastFloat32x4(al), archsimd.BroadcastFloat32x4(be), archsimd.BroadcastFloat32x4(1)
		for i := 0; i < n; i += 4 {
			v := archsimd.LoadFloat32x4(x[i:])
			zero.Max(one.Min(a.Mul(v).Add(b))).Store(x[i:])
		}
	case ActHardSwish:
		six, half, one := archsimd.BroadcastFloat32x4(6), archsimd.BroadcastFloat32x4(0.5), archsimd.BroadcastFloat32x4(1)
		for i := 0; i < n; i += 4 {
			v := archsimd.LoadFloat32x4(x[i:])
			v.Mul(zero.Max(one.Min(v.Div(six).Add(half)))).Store(x[i:])
		}
	default:
		n = 0
	}
	activateScalar(x[n:], act, al, be)
}

// dwRowS1 is dwRow for unit stride, eight then four outputs at a time (the
// taps in the same order as the scalar loop, so every lane rounds alike).
// The caller has checked every tap's extent in x, so loads go through
// unsafe pointers.
func dwRowS1(y, x []float32, offs []int, wt []float32, o0 int) {
	px := unsafe.Pointer(unsafe.SliceData(x))
	i := 0
	for ; i+8 <= len(y); i += 8 {
		var a0, a1 f32x4
		for t, off := range offs {
			w := archsimd.BroadcastFloat32x4(wt[t])
			p := unsafe.Add(px, (off+o0+i)*4)
			a0 = a0.Add(w.Mul(ld4(p, 0)))
			a1 = a1.Add(w.Mul(ld4(p, 16)))
		}
		a0.Store(y[i : i+4])
		a1.Store(y[i+4 : i+8])
	}
	for ; i+4 <= len(y); i += 4 {
		var a0 f32x4
		for t, off := range offs {
			a0 = a0.Add(archsimd.BroadcastFloat32x4(wt[t]).Mul(ld4(unsafe.Add(px, (off+o0+i)*4), 0)))
		}
		a0.Store(y[i : i+4])
	}
	if i < len(y) {
		dwRow(y[i:], x, offs, wt, 0, o0+i, 1)
	}
}

// maxWindowS1Vec computes maxWindowS1 eight, then four, outputs at a time
// (three adjacent taps unrolled; see maxRows) and returns how many it did:
// all of them, unless y holds fewer than four. The caller has checked x's
// and first's extents, and y overlaps neither.
func maxWindowS1Vec(y, x, first []float32, KW, dw int) int {
	px, pf := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(first))
	py := unsafe.Pointer(unsafe.SliceData(y))
	i := 0
	if KW == 3 && dw == 1 {
		for ; i+8 <= len(y); i += 8 {
			o := uintptr(i) * 4
			b0, b1 := ld4(px, o), ld4(px, o+16)
			b0, b1 = maxGreater(b0, ld4(px, o+4)), maxGreater(b1, ld4(px, o+20))
			b0, b1 = maxGreater(b0, ld4(px, o+8)), maxGreater(b1, ld4(px, o+24))
			st4(nanFirst(b0, ld4(pf, o)), py, o)
			st4(nanFirst(b1, ld4(pf, o+16)), py, o+16)
		}
	}
	st := uintptr(dw) * 4
	for ; i+8 <= len(y); i += 8 {
		o := uintptr(i) * 4
		b0, b1 := ld4(px, o), ld4(px, o+16)
		for kw := 1; kw < KW; kw++ {
			o += st
			b0, b1 = maxGreater(b0, ld4(px, o)), maxGreater(b1, ld4(px, o+16))
		}
		o = uintptr(i) * 4
		st4(nanFirst(b0, ld4(pf, o)), py, o)
		st4(nanFirst(b1, ld4(pf, o+16)), py, o+16)
	}
	if len(y) < 4 {
		return 0
	}
	// The rest four at a time, the last four overlapping (as in maxRows).
	for i < len(y) {
		i = min(i, len(y)-4)
		o := uintptr(i) * 4
		b := ld4(px, o)
		for kw := 1; kw < KW; kw++ {
			o += st
			b = maxGreater(b, ld4(px, o))
		}
		o = uintptr(i) * 4
		st4(nanFirst(b, ld4(pf, o)), py, o)
		i += 4
	}
	return i
}

// maxGreater is maxWindowS1's step per lane: best replaced by v where v >
// best; nanFirst puts back the first tap where it is NaN.
func maxGreater(best, v f32x4) f32x4 { return v.IfElse(v.Greater(best), best) }
func nanFirst(best, f f32x4) f32x4   { return f.IfElse(f.NotEqual(f), best) }

// copy8 and zero8 move one panel row with two v128 loads and stores (Go
// compiles an array assignment of this size to a memmove call).
func copy8(d, s *[8]float32) {
	archsimd.LoadFloat32x4((*s)[0:4]).Store((*d)[0:4])
	archsimd.LoadFloat32x4((*s)[4:8]).Store((*d)[4:8])
}

func zero8(d *[8]float32) {
	var z f32x4
	z.Store((*d)[0:4])
	z.Store((*d)[4:8])
}

// ScaleShift sets dst[i] = (src[i] - sub)·mul + add (an inference-mode
// BatchNormalization channel).
func ScaleShift(dst, src []float32, sub, mul, add float32) {
	src = src[:len(dst)]
	i := 0
	if len(dst) >= 4 {
		vs, vm, va := archsimd.BroadcastFloat32x4(sub), archsimd.BroadcastFloat32x4(mul), archsimd.BroadcastFloat32x4(add)
		for ; i+4 <= len(dst); i += 4 {
			archsimd.LoadFloat32x4(src[i:]).Sub(vs).Mul(vm).Add(va).Store(dst[i:])
		}
	}
	for ; i < len(dst); i++ {
		dst[i] = (src[i]-sub)*mul + add
	}
}

// kernel4xn writes into t (rows NR apart) the first n < NR columns of the
// MR×NR tile a·b (B rows ldb apart), one column at a time: a vector of the
// A panel times a broadcast of B per k step, the four rows in one vector.
// For an edge panel of one or two columns this does a fraction of
// kernel4x8's work (SqueezeNet's last convolution has 169 = 21·8 + 1
// columns); the sums are kernel4x8's, in the same order.
func kernel4xn(a, b []float32, k, ldb, n int, t []float32) {
	if k <= 0 || n <= 0 {
		return
	}
	_, _, _ = a[4*k-1], b[(k-1)*ldb+n-1], t[3*NR+n-1]
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	bs := uintptr(ldb) * 4
	for j := 0; j < n; j++ {
		var c0 f32x4 // one chain, k in order, as each of kernel4x8's lanes
		ao, bo := uintptr(0), uintptr(j)*4
		p := k
		for ; p >= 2; p -= 2 {
			c0 = c0.Add(ld4(pa, ao).Mul(splat(pb, bo)))
			c0 = c0.Add(ld4(pa, ao+16).Mul(splat(pb, bo+bs)))
			ao += 32
			bo += 2 * bs
		}
		if p > 0 {
			c0 = c0.Add(ld4(pa, ao).Mul(splat(pb, bo)))
		}
		t[j], t[NR+j], t[2*NR+j], t[3*NR+j] = c0.GetElem(0), c0.GetElem(1), c0.GetElem(2), c0.GetElem(3)
	}
}

// kernelEdgeColumn writes into t (rows NR apart) the first n ≤ 2 columns of
// nq stacked MR×NR tiles, tile q from the A panel a[q·as:] (k×MR packed),
// B rows ldb apart: kernel4xn for a column of edge tiles. kernel4xn's sum
// is one chain of dependent additions per column, so a tile at a time it
// waits on the adder's latency (ResNet-50's 7×7 and SqueezeNet's 13×13
// layers end in a one-column panel, over depths up to 2048); here four
// tiles' chains run side by side. Each chain is kernel4xn's, in its order.
func kernelEdgeColumn(a []float32, as int, b []float32, k, ldb, n, nq int, t []float32) {
	if k <= 0 || n <= 0 || nq <= 0 {
		return
	}
	_, _, _ = a[(nq-1)*as+4*k-1], b[(k-1)*ldb+n-1], t[(nq*MR-1)*NR+n-1]
	pa, pb, pt := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(t))
	bs, as4 := uintptr(ldb)*4, uintptr(as)*4
	full := nq &^ 3 // tiles taken four at a time
	for j := 0; j < n; j++ {
		for q := 0; q < full; q += 4 {
			p0 := unsafe.Add(pa, uintptr(q)*as4)
			p1, p2, p3 := unsafe.Add(p0, as4), unsafe.Add(p0, 2*as4), unsafe.Add(p0, 3*as4)
			var c0, c1, c2, c3 f32x4
			var ao uintptr
			bo := uintptr(j) * 4
			for p := 0; p < k; p++ {
				bv := splat(pb, bo)
				c0 = c0.Add(ld4(p0, ao).Mul(bv))
				c1 = c1.Add(ld4(p1, ao).Mul(bv))
				c2 = c2.Add(ld4(p2, ao).Mul(bv))
				c3 = c3.Add(ld4(p3, ao).Mul(bv))
				ao += 16
				bo += bs
			}
			o := uintptr(q*MR*NR+j) * 4
			for r, c := range [4]f32x4{c0, c1, c2, c3} {
				ro := o + uintptr(r*MR*NR)*4
				*(*float32)(unsafe.Add(pt, ro)) = c.GetElem(0)
				*(*float32)(unsafe.Add(pt, ro+NR*4)) = c.GetElem(1)
				*(*float32)(unsafe.Add(pt, ro+2*NR*4)) = c.GetElem(2)
				*(*float32)(unsafe.Add(pt, ro+3*NR*4)) = c.GetElem(3)
			}
		}
	}
	for q := full; q < nq; q++ {
		kernel4xn(a[q*as:], b, k, ldb, n, t[q*MR*NR:])
	}
}
