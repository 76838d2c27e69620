package elementwise

import (
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Add, Sub, Mul, Div and the variadic Max, Min, Sum, Mean are the hot
// elementwise ops of most models, so they get explicit loops per row shape
// (vector-vector, vector-scalar, scalar-vector) selected once per row instead
// of a function call per element. The generic instantiation for float32 is
// compiled with float32 arithmetic directly.

type arithOp int

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv
	opMax
	opMin
)

// symArith is k on symbolic dims, for the shape computations inference follows.
func symArith(k arithOp) func(x, y graph.Dim) graph.Dim {
	switch k {
	case opAdd:
		return shapes.DimAdd
	case opSub:
		return shapes.DimSub
	case opMul:
		return shapes.DimMul
	}
	return shapes.DimDiv
}

func init() {
	for name, k := range map[string]arithOp{"Add": opAdd, "Sub": opSub, "Mul": opMul, "Div": opDiv} {
		k, name := k, name
		shapes.Register("", name, shapes.BroadcastArith(symArith(k)))
		op.Register(name, []int{1, 6, 7, 13, 14}, func(n *op.Node) (any, error) {
			lb, err := newLegacy(n)
			if err != nil {
				return nil, err
			}
			return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
				if len(in) != 2 || in[0] == nil || in[1] == nil {
					return nil, op.Errorf("%s needs two inputs", name)
				}
				a, b := in[0], in[1]
				if err := checkSame(a, b); err != nil {
					return nil, err
				}
				if !opsutil.IsNumeric(a.DType()) {
					return nil, badType(name, a.DType())
				}
				b, shape, err := lb.shapes(a, b)
				if err != nil {
					return nil, err
				}
				if k == opDiv && isInt(a.DType()) && hasZero(b) {
					return nil, op.Errorf("integer division by zero")
				}
				out := ctx.NewOver([]*tensor.Tensor{a, b}, a.DType(), shape...)
				arithInto(k, out, a, b)
				return ctx.One(out), nil
			}), nil
		})
	}
}

// legacy holds the pre-7 `broadcast`/`axis` attributes: with broadcast=1, B's
// shape is matched against a contiguous run of A's dims starting at axis (or
// ending at the last dim when axis is absent); otherwise shapes must agree.
type legacy struct {
	on        bool // the op version has the legacy attributes
	broadcast bool
	axis      int64
	hasAxis   bool
}

func newLegacy(n *op.Node) (legacy, error) {
	if n.Version >= 7 {
		return legacy{}, nil
	}
	a := &op.Attribs{N: n}
	l := legacy{on: true, broadcast: a.Int("broadcast", 0) != 0, axis: a.Int("axis", 0), hasAxis: n.Has("axis")}
	return l, a.Err
}

// shapes returns b (reshaped for legacy broadcasting) and the output shape.
func (l legacy) shapes(a, b *tensor.Tensor) (*tensor.Tensor, []int, error) {
	if !l.on {
		s, err := broadcastShapes(a, b)
		return b, s, err
	}
	as, bs := a.Shape(), b.Shape()
	if !l.broadcast {
		if !slices.Equal(as, bs) {
			return nil, nil, op.Errorf("shapes %v and %v differ and broadcast is 0", as, bs)
		}
		return b, as, nil
	}
	if b.Len() == 1 {
		return b.Reshaped(nil), as, nil
	}
	axis := int64(len(as) - len(bs))
	if l.hasAxis {
		axis = l.axis
		if axis < 0 {
			axis += int64(len(as))
		}
	}
	if axis < 0 || int(axis)+len(bs) > len(as) {
		return nil, nil, op.Errorf("cannot broadcast %v into %v at axis %d", bs, as, l.axis)
	}
	eff := make([]int, len(as))
	for i := range eff {
		eff[i] = 1
	}
	for i, d := range bs {
		if d != as[int(axis)+i] && d != 1 {
			return nil, nil, op.Errorf("cannot broadcast %v into %v at axis %d", bs, as, axis)
		}
		eff[int(axis)+i] = d
	}
	return b.Reshaped(eff), as, nil
}

func hasZero(t *tensor.Tensor) bool {
	switch d := t.Data().(type) {
	case []int8:
		return anyZero(d)
	case []int16:
		return anyZero(d)
	case []int32:
		return anyZero(d)
	case []int64:
		return anyZero(d)
	case []uint8:
		return anyZero(d)
	case []uint16:
		return anyZero(d)
	case []uint32:
		return anyZero(d)
	case []uint64:
		return anyZero(d)
	}
	return false
}

func anyZero[T tensor.Number](s []T) bool {
	for _, v := range s {
		if v == 0 {
			return true
		}
	}
	return false
}

// arithInto computes out = a (k) b with broadcasting; out may alias a when
// they have the same shape (the variadic ops accumulate in place).
func arithInto(k arithOp, out, a, b *tensor.Tensor) {
	switch od := out.Data().(type) {
	case []float32:
		arithTWith(k, od, out.Shape(), a, b, arithRowF32) // SIMD128 rows in the wasm SIMD build
	case []float64:
		arithT(k, od, out.Shape(), a, b)
	case []int8:
		arithT(k, od, out.Shape(), a, b)
	case []int16:
		arithT(k, od, out.Shape(), a, b)
	case []int32:
		arithT(k, od, out.Shape(), a, b)
	case []int64:
		arithT(k, od, out.Shape(), a, b)
	case []uint8:
		arithT(k, od, out.Shape(), a, b)
	case []uint16:
		arithT(k, od, out.Shape(), a, b)
	case []uint32:
		arithT(k, od, out.Shape(), a, b)
	case []uint64:
		arithT(k, od, out.Shape(), a, b)
	default:
		op.Fail("arithmetic on %s", out.DType())
	}
}

func arithT[T tensor.Number](k arithOp, od []T, shape []int, a, b *tensor.Tensor) {
	arithTWith(k, od, shape, a, b, arithRow[T])
}

// arithTWith is arithT with the row kernel given.
func arithTWith[T tensor.Number](k arithOp, od []T, shape []int, a, b *tensor.Tensor, arithRow func(k arithOp, d, a, b []T)) {
	ad, bd := tensor.Data[T](a), tensor.Data[T](b)
	aFull, bFull := sameLayout(a.Shape(), shape), sameLayout(b.Shape(), shape)
	if aFull && (bFull || len(bd) == 1) || len(ad) == 1 && bFull {
		arithRow(k, od, ad, bd)
		return
	}
	// One operand repeats along the leading dims (a bias over the last
	// axis, a norm's weight): row by row, with no broadcast plan.
	if m := len(bd); aFull && m > 0 && len(od)%m == 0 && suffixOf(b.Shape(), shape) {
		for o := 0; o < len(od); o += m {
			arithRow(k, od[o:o+m], ad[o:o+m], bd)
		}
		return
	}
	if m := len(ad); bFull && m > 0 && len(od)%m == 0 && suffixOf(a.Shape(), shape) {
		for o := 0; o < len(od); o += m {
			arithRow(k, od[o:o+m], ad, bd[o:o+m])
		}
		return
	}
	p := newPlan(shape, a.Shape(), b.Shape())
	sa, sb := p.inner[0], p.inner[1]
	p.each(func(o int, offs []int, n int) {
		arithRow(k, od[o:o+n], seg(ad, offs[0], sa, n), seg(bd, offs[1], sb, n))
	})
}

// sameLayout reports whether a tensor of shape s holds its elements as one
// of shape out does: the same dims once leading 1s are dropped.
func sameLayout(s, out []int) bool {
	return slices.Equal(trimOnes(s), trimOnes(out))
}

// suffixOf reports whether s, without its leading 1s, is a suffix of out:
// broadcasting s to out repeats it whole.
func suffixOf(s, out []int) bool {
	t := trimOnes(s)
	return len(t) <= len(out) && slices.Equal(t, out[len(out)-len(t):])
}

func trimOnes(s []int) []int {
	for len(s) > 0 && s[0] == 1 {
		s = s[1:]
	}
	return s
}

// arithRow computes d = a (k) b where a and b each have len(d) elements or one.
func arithRow[T tensor.Number](k arithOp, d, a, b []T) {
	n := len(d)
	switch {
	case len(a) == n && len(b) == n:
		a, b = a[:n], b[:n]
		switch k {
		case opAdd:
			for i := range d {
				d[i] = a[i] + b[i]
			}
		case opSub:
			for i := range d {
				d[i] = a[i] - b[i]
			}
		case opMul:
			for i := range d {
				d[i] = a[i] * b[i]
			}
		case opDiv:
			for i := range d {
				d[i] = a[i] / b[i]
			}
		case opMax:
			for i := range d {
				d[i] = maxOf(a[i], b[i])
			}
		case opMin:
			for i := range d {
				d[i] = minOf(a[i], b[i])
			}
		}
	case len(a) == n:
		a = a[:n]
		y := b[0]
		switch k {
		case opAdd:
			for i := range d {
				d[i] = a[i] + y
			}
		case opSub:
			for i := range d {
				d[i] = a[i] - y
			}
		case opMul:
			for i := range d {
				d[i] = a[i] * y
			}
		case opDiv:
			for i := range d {
				d[i] = a[i] / y
			}
		case opMax:
			for i := range d {
				d[i] = maxOf(a[i], y)
			}
		case opMin:
			for i := range d {
				d[i] = minOf(a[i], y)
			}
		}
	case len(b) == n:
		b = b[:n]
		x := a[0]
		switch k {
		case opAdd:
			for i := range d {
				d[i] = x + b[i]
			}
		case opSub:
			for i := range d {
				d[i] = x - b[i]
			}
		case opMul:
			for i := range d {
				d[i] = x * b[i]
			}
		case opDiv:
			for i := range d {
				d[i] = x / b[i]
			}
		case opMax:
			for i := range d {
				d[i] = maxOf(x, b[i])
			}
		case opMin:
			for i := range d {
				d[i] = minOf(x, b[i])
			}
		}
	default: // both broadcast along the row
		var v T
		x, y := a[0], b[0]
		switch k {
		case opAdd:
			v = x + y
		case opSub:
			v = x - y
		case opMul:
			v = x * y
		case opDiv:
			v = x / y
		case opMax:
			v = maxOf(x, y)
		case opMin:
			v = minOf(x, y)
		}
		for i := range d {
			d[i] = v
		}
	}
}

// maxOf and minOf propagate NaN like numpy's maximum/minimum (which the ONNX
// reference uses); Go's built-in max does too, but these inline into the
// integer instantiations without the float checks.
func maxOf[T tensor.Number](x, y T) T {
	if x > y || x != x {
		return x
	}
	return y
}

func minOf[T tensor.Number](x, y T) T {
	if x < y || x != x {
		return x
	}
	return y
}
