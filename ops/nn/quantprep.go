package nn

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// What the quantized ops (ConvInteger, QLinearConv, MatMulInteger,
// QLinearMatMul) prepare when the kernel is built, from constant inputs
// (op.Node.ConstInput): the weights minus their zero points as the int16
// operand kernels.GemmI16 reads (QLinearConv's and ConvInteger's (M,
// C/group·k…) rows, the matrix product's B), and the requantization's
// per-channel multipliers. A run then converts only the activations. The
// prepared values are the ones each run computed before, by the same
// operations, so results keep their bits.

// quantWeights are constant int8/uint8 weights minus their zero points.
type quantWeights struct {
	src   *tensor.Tensor // the constant; nil once the plan released it
	shape []int
	dt    tensor.DType
	ws    []int16
}

// constOrAbsent returns input i's constant value and true when the input
// is constant or absent (nil, true), false when it is fed at run time.
func constOrAbsent(n *op.Node, i int) (*tensor.Tensor, bool) {
	if i >= len(n.Inputs) || n.Inputs[i] == "" {
		return nil, true
	}
	c := n.ConstInput(i)
	return c, c != nil
}

// is reports whether w, a run's weight input, is the prepared constant
// (nil: the plan released it). An input that is some other tensor takes
// the per-run path.
func (q *quantWeights) is(w *tensor.Tensor) bool {
	if q == nil {
		return false
	}
	if w == nil {
		return q.src == nil
	}
	return q.src != nil && sameQuant(w, q.src)
}

// sameQuant reports whether a and b are the same int8/uint8 storage.
func sameQuant(a, b *tensor.Tensor) bool {
	if a == b {
		return true
	}
	if a.DType() != b.DType() || a.Len() != b.Len() || a.Len() == 0 {
		return false
	}
	switch ad := a.Data().(type) {
	case []uint8:
		bd, ok := b.Data().([]uint8)
		return ok && &ad[0] == &bd[0]
	case []int8:
		bd, ok := b.Data().([]int8)
		return ok && &ad[0] == &bd[0]
	}
	return false
}

// quantReleaser is a quantized op's kernel that keeps its constant
// weights (input idx) prepared, so the plan may drop the constant
// (op.ConstReleaser); release is nil when nothing was prepared.
type quantReleaser struct {
	op.Kernel
	idx     int
	release func()
}

// CanRelease implements op.ConstReleaser.
func (k quantReleaser) CanRelease(i int) bool { return i == k.idx && k.release != nil }

// Release implements op.ConstReleaser.
func (k quantReleaser) Release(i int) {
	if k.CanRelease(i) {
		k.release()
	}
}

// requant is a QLinear op's requantization: y = sat(round(v·mult + yz))
// with v the int32 accumulator (plus the bias), per output channel (conv)
// or column (matrix product).
type requant struct {
	mult   []float64
	yz     float64
	lo, hi float64
	outDT  tensor.DType
}

// requantize writes acc (plus bias, when given) requantized with sc and
// yz into dst, rounding half to even and saturating as storeQuantized.
// Written as storeQuantized's caller wrote it (v*sc+yz), so that a
// compiler fusing the multiply-add does so on both paths alike.
func requantize[T int8 | uint8](dst []T, acc []int32, bias, sc, yz, lo, hi float64, addBias bool) {
	dst = dst[:len(acc)]
	for i, a := range acc {
		v := float64(a)
		if addBias {
			v += bias
		}
		r := math.RoundToEven(v*sc + yz)
		if r < lo {
			r = lo
		} else if r > hi {
			r = hi
		}
		dst[i] = T(r)
	}
}

// requantRow requantizes acc (one output channel's values, with its
// multiplier sc and bias) into y's storage from offset off.
func requantRow(y *tensor.Tensor, off int, acc []int32, bias, sc, yz, lo, hi float64, addBias bool) {
	switch d := y.Data().(type) {
	case []uint8:
		requantize(d[off:off+len(acc)], acc, bias, sc, yz, lo, hi, addBias)
	case []int8:
		requantize(d[off:off+len(acc)], acc, bias, sc, yz, lo, hi, addBias)
	}
}

// releaser wraps k so that the plan may release the constant weights
// (input i) that q holds prepared; k itself when nothing was prepared.
func (q *quantWeights) releaser(k op.Kernel, i int) op.Kernel {
	if q == nil {
		return k
	}
	return quantReleaser{Kernel: k, idx: i, release: func() { q.src = nil }}
}

// requantCols is requantize over rows of len(r.mult) columns, column j
// with multiplier r.mult[j] (QLinearMatMul).
func requantCols[T int8 | uint8](dst []T, acc []int32, r *requant) {
	n := len(r.mult)
	if n == 0 {
		return
	}
	dst = dst[:len(acc)]
	for off := 0; off+n <= len(acc); off += n {
		row, out := acc[off:off+n], dst[off:off+n]
		for j, a := range row {
			v := float64(a)
			x := math.RoundToEven(v*r.mult[j] + r.yz)
			if x < r.lo {
				x = r.lo
			} else if x > r.hi {
				x = r.hi
			}
			out[j] = T(x)
		}
	}
}
