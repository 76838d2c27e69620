package elementwise

import (
	"cmp"
	"math"
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Binary ops that are rarely on a model's hot path (Pow, Mod, comparisons,
// logic, bit ops, PRelu) share one broadcast walker with a function per
// element (map2), which keeps each of them a few lines per dtype.

func init() {
	op.Register("Pow", []int{1, 7, 12, 13, 15}, buildPow)
	shapes.Register("", "Pow", shapes.BroadcastAll)
	op.Register("Mod", []int{10, 13}, buildMod)
	shapes.Register("", "Mod", shapes.BroadcastAll)
	op.Register("PRelu", []int{1, 6, 7, 9, 16}, buildPRelu)
	shapes.Register("", "PRelu", shapes.BroadcastAll)
	op.Register("BitShift", []int{11}, buildBitShift)
	shapes.Register("", "BitShift", shapes.BroadcastAll)
	for _, name := range []string{"And", "Or", "Xor"} {
		op.Register(name, []int{1, 7}, buildLogic(name))
		shapes.Register("", name, shapes.BroadcastAll)
	}
	op.Register("Not", []int{1}, buildNot)
	shapes.Register("", "Not", shapes.SameAsInput0)
	for _, name := range []string{"BitwiseAnd", "BitwiseOr", "BitwiseXor"} {
		op.Register(name, []int{18}, buildBitwise(name))
		shapes.Register("", name, shapes.BroadcastAll)
	}
	op.Register("BitwiseNot", []int{18}, buildBitwiseNot)
	shapes.Register("", "BitwiseNot", shapes.SameAsInput0)
	op.Register("Equal", []int{1, 7, 11, 13, 19}, buildCompare("Equal"))
	shapes.Register("", "Equal", shapes.BroadcastAll)
	op.Register("Less", []int{1, 7, 9, 13}, buildCompare("Less"))
	shapes.Register("", "Less", shapes.BroadcastAll)
	op.Register("Greater", []int{1, 7, 9, 13}, buildCompare("Greater"))
	shapes.Register("", "Greater", shapes.BroadcastAll)
	op.Register("LessOrEqual", []int{12, 16}, buildCompare("LessOrEqual"))
	shapes.Register("", "LessOrEqual", shapes.BroadcastAll)
	op.Register("GreaterOrEqual", []int{12, 16}, buildCompare("GreaterOrEqual"))
	shapes.Register("", "GreaterOrEqual", shapes.BroadcastAll)
}

// binary is the common prologue: two present inputs, legacy broadcasting
// resolved, output allocated with dtype outDT (or a's dtype when Undefined).
type binary struct {
	name string
	lb   legacy
}

func (b binary) prep(ctx *op.Context, in []*tensor.Tensor, outDT tensor.DType) (x, y, out *tensor.Tensor, err error) {
	if len(in) != 2 || in[0] == nil || in[1] == nil {
		return nil, nil, nil, op.Errorf("%s needs two inputs", b.name)
	}
	x, y = in[0], in[1]
	y, shape, err := b.lb.shapes(x, y)
	if err != nil {
		return nil, nil, nil, err
	}
	if outDT == tensor.Undefined {
		outDT = x.DType()
	}
	return x, y, ctx.New(outDT, shape...), nil
}

func newBinary(n *op.Node) (binary, error) {
	lb, err := newLegacy(n)
	return binary{name: n.OpType, lb: lb}, err
}

// ---- Pow ----

func buildPow(n *op.Node) (any, error) {
	bin, err := newBinary(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		a, b, out, err := bin.prep(ctx, in, tensor.Undefined)
		if err != nil {
			return nil, err
		}
		if !opsutil.IsNumeric(a.DType()) || !opsutil.IsNumeric(b.DType()) {
			return nil, op.Errorf("Pow does not support %s ^ %s", a.DType(), b.DType())
		}
		if n.Version < 12 && a.DType() != b.DType() {
			return nil, op.Errorf("Pow-%d needs equal dtypes, got %s and %s", n.Version, a.DType(), b.DType())
		}
		if a.DType().IsFloat() && b.DType().IsFloat() {
			powF32(out, a, b)
			return ctx.One(out), nil
		}
		switch od := out.Data().(type) {
		case []float32:
			powT(od, out, a, b)
		case []float64:
			powT(od, out, a, b)
		case []int8:
			powT(od, out, a, b)
		case []int16:
			powT(od, out, a, b)
		case []int32:
			powT(od, out, a, b)
		case []int64:
			powT(od, out, a, b)
		case []uint8:
			powT(od, out, a, b)
		case []uint16:
			powT(od, out, a, b)
		case []uint32:
			powT(od, out, a, b)
		case []uint64:
			powT(od, out, a, b)
		}
		return ctx.One(out), nil
	}), nil
}

// powF32 special-cases the exponents that decomposed normalisation layers use
// (x^2, x^0.5) and otherwise computes in float64 so results round once.
func powF32(out, a, b *tensor.Tensor) {
	od, ad, bd := out.F32(), a.F32(), b.F32()
	if len(bd) == 1 && len(ad) == len(od) {
		switch e := bd[0]; e {
		case 2:
			for i, x := range ad {
				od[i] = x * x
			}
			return
		case 1:
			copy(od, ad)
			return
		case 0.5:
			for i, x := range ad {
				od[i] = sqrt32(x)
			}
			return
		}
	}
	map2(out, a, b, func(x, y float32) float32 { return float32(math.Pow(float64(x), float64(y))) })
}

func powT[T tensor.Number](_ []T, out, a, b *tensor.Tensor) {
	switch {
	case isInt(a.DType()) && isInt(b.DType()):
		x, _ := a.Int64s()
		e, _ := b.Int64s()
		map2(out, tensor.Of(a.Shape(), x), tensor.Of(b.Shape(), e), func(x, y int64) T { return T(ipow(x, y)) })
	case isInt(a.DType()):
		x, _ := a.Int64s()
		e, _ := b.Float64s()
		map2(out, tensor.Of(a.Shape(), x), tensor.Of(b.Shape(), e), func(x int64, y float64) T {
			return T(floatToInt(math.Pow(float64(x), y)))
		})
	default:
		x, _ := a.Float64s()
		e, _ := b.Float64s()
		map2(out, tensor.Of(a.Shape(), x), tensor.Of(b.Shape(), e), func(x, y float64) T { return T(math.Pow(x, y)) })
	}
}

// ipow is integer exponentiation with wrap-around, as numpy computes int ** int.
// Negative exponents (an error in numpy) give the truncated real result.
func ipow(x, e int64) int64 {
	if e < 0 {
		switch x {
		case 1:
			return 1
		case -1:
			if e&1 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			r *= x
		}
		x *= x
		e >>= 1
	}
	return r
}

// floatToInt truncates toward zero like C; values outside int64 saturate
// (the spec leaves them undefined, this keeps native and wasm identical).
func floatToInt(v float64) int64 {
	switch {
	case v != v:
		return 0
	case v >= 9.223372036854775807e18:
		return math.MaxInt64
	case v <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(v)
}

// ---- Mod ----

func buildMod(n *op.Node) (any, error) {
	fm, err := n.Int("fmod", 0)
	if err != nil {
		return nil, err
	}
	bin := binary{name: "Mod"}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		a, b, out, err := bin.prep(ctx, in, tensor.Undefined)
		if err != nil {
			return nil, err
		}
		if err := checkSame(a, b); err != nil {
			return nil, err
		}
		if isInt(a.DType()) && hasZero(b) {
			return nil, op.Errorf("integer modulo by zero")
		}
		f := fm != 0
		if !opsutil.IsNumeric(a.DType()) {
			return nil, badType("Mod", a.DType())
		}
		switch a.Data().(type) {
		case []float32:
			map2(out, a, b, func(x, y float32) float32 {
				return float32(fmodPy(float64(x), float64(y), f))
			})
		case []float64:
			map2(out, a, b, func(x, y float64) float64 { return fmodPy(x, y, f) })
		case []int8:
			map2(out, a, b, imodFn[int8](f))
		case []int16:
			map2(out, a, b, imodFn[int16](f))
		case []int32:
			map2(out, a, b, imodFn[int32](f))
		case []int64:
			map2(out, a, b, imodFn[int64](f))
		case []uint8:
			map2(out, a, b, imodFn[uint8](f))
		case []uint16:
			map2(out, a, b, imodFn[uint16](f))
		case []uint32:
			map2(out, a, b, imodFn[uint32](f))
		case []uint64:
			map2(out, a, b, imodFn[uint64](f))
		default:
			return nil, badType("Mod", a.DType())
		}
		return ctx.One(out), nil
	}), nil
}

// fmodPy is C fmod (sign of the dividend) when cStyle, else Python's % (sign
// of the divisor). The spec requires fmod=1 for floats; fmod=0 is accepted
// with numpy's meaning rather than rejected.
func fmodPy(x, y float64, cStyle bool) float64 {
	r := math.Mod(x, y)
	if !cStyle && r != 0 && (r < 0) != (y < 0) {
		r += y
	}
	return r
}

func imodFn[T integer](cStyle bool) func(x, y T) T {
	return func(x, y T) T {
		r := imod(x, y)
		var zero T
		if !cStyle && r != 0 && (r < zero) != (y < zero) {
			r += y
		}
		return r
	}
}

// imod is Go's truncated remainder, avoiding the overflow trap of MinInt % -1.
func imod[T integer](x, y T) T {
	if isSignedT[T]() && y == ^T(0) { // y == -1
		return 0
	}
	return x % y
}

func isSignedT[T tensor.Number]() bool {
	var z T
	return z-1 < z
}

// ---- PRelu ----

// legacySlope applies PRelu-1/6's rule, from before numpy broadcasting: "If
// Slope is of size 1, the value is shared across different channels",
// otherwise a 1-D slope holds one value per channel (axis 1, as in Caffe2,
// where the op comes from). Other slope shapes broadcast as in PRelu-7.
func legacySlope(x, s *tensor.Tensor) *tensor.Tensor {
	xs := x.Shape()
	if s.Rank() != 1 || s.Len() == 1 || len(xs) < 2 || s.Len() != xs[1] {
		return s
	}
	shape := make([]int, len(xs)-1)
	for i := range shape {
		shape[i] = 1
	}
	shape[0] = xs[1]
	return s.Reshaped(shape)
}

func buildPRelu(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) != 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("PRelu needs two inputs")
		}
		x, s := in[0], in[1]
		if err := checkSame(x, s); err != nil {
			return nil, err
		}
		if n.Version < 7 {
			s = legacySlope(x, s)
		}
		shape, err := broadcastShapes(x, s)
		if err != nil || !slices.Equal(shape, x.Shape()) {
			return nil, op.Errorf("slope of shape %v does not broadcast to X of shape %v", s.Shape(), x.Shape())
		}
		out := ctx.New(x.DType(), shape...)
		if !opsutil.IsNumeric(x.DType()) {
			return nil, badType("PRelu", x.DType())
		}
		switch x.Data().(type) {
		case []float32:
			map2(out, x, s, prelu[float32])
		case []float64:
			map2(out, x, s, prelu[float64])
		case []int8:
			map2(out, x, s, prelu[int8])
		case []int16:
			map2(out, x, s, prelu[int16])
		case []int32:
			map2(out, x, s, prelu[int32])
		case []int64:
			map2(out, x, s, prelu[int64])
		case []uint8:
			map2(out, x, s, prelu[uint8])
		case []uint16:
			map2(out, x, s, prelu[uint16])
		case []uint32:
			map2(out, x, s, prelu[uint32])
		case []uint64:
			map2(out, x, s, prelu[uint64])
		default:
			return nil, badType("PRelu", x.DType())
		}
		return ctx.One(out), nil
	}), nil
}

func prelu[T tensor.Number](x, s T) T {
	var zero T
	if x < zero {
		return s * x
	}
	return x
}

// ---- BitShift ----

func buildBitShift(n *op.Node) (any, error) {
	dir, err := n.String("direction", "")
	if err != nil {
		return nil, err
	}
	left := false
	switch dir {
	case "LEFT":
		left = true
	case "RIGHT":
	default:
		return nil, n.Errorf("BitShift direction must be LEFT or RIGHT, got %q", dir)
	}
	bin := binary{name: "BitShift"}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		a, b, out, err := bin.prep(ctx, in, tensor.Undefined)
		if err != nil {
			return nil, err
		}
		if err := checkSame(a, b); err != nil {
			return nil, err
		}
		if a.DType() != tensor.Uint8 && a.DType() != tensor.Uint16 && a.DType() != tensor.Uint32 && a.DType() != tensor.Uint64 {
			return nil, badType("BitShift", a.DType())
		}
		switch a.Data().(type) {
		case []uint8:
			map2(out, a, b, shiftFn[uint8](left))
		case []uint16:
			map2(out, a, b, shiftFn[uint16](left))
		case []uint32:
			map2(out, a, b, shiftFn[uint32](left))
		case []uint64:
			map2(out, a, b, shiftFn[uint64](left))
		default:
			return nil, badType("BitShift", a.DType())
		}
		return ctx.One(out), nil
	}), nil
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | unsigned
}

// shiftFn relies on Go's defined result (0) for shifts past the width.
func shiftFn[T unsigned](left bool) func(x, y T) T {
	if left {
		return func(x, y T) T { return x << y }
	}
	return func(x, y T) T { return x >> y }
}

// ---- logic ----

func buildLogic(name string) op.Builder {
	var f func(x, y bool) bool
	switch name {
	case "And":
		f = func(x, y bool) bool { return x && y }
	case "Or":
		f = func(x, y bool) bool { return x || y }
	default:
		f = func(x, y bool) bool { return x != y }
	}
	return func(n *op.Node) (any, error) {
		bin, err := newBinary(n)
		if err != nil {
			return nil, err
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			a, b, out, err := bin.prep(ctx, in, tensor.Bool)
			if err != nil {
				return nil, err
			}
			if a.DType() != tensor.Bool || b.DType() != tensor.Bool {
				return nil, op.Errorf("%s needs bool inputs, got %s and %s", name, a.DType(), b.DType())
			}
			map2(out, a, b, f)
			return ctx.One(out), nil
		}), nil
	}
}

func buildNot(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		if x.DType() != tensor.Bool {
			return nil, badType("Not", x.DType())
		}
		out := ctx.New(tensor.Bool, x.Shape()...)
		od := out.Bools()
		for i, v := range x.Bools() {
			od[i] = !v
		}
		return ctx.One(out), nil
	}), nil
}

func buildBitwise(name string) op.Builder {
	return func(n *op.Node) (any, error) {
		bin := binary{name: name}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			a, b, out, err := bin.prep(ctx, in, tensor.Undefined)
			if err != nil {
				return nil, err
			}
			if err := checkSame(a, b); err != nil {
				return nil, err
			}
			if !isInt(a.DType()) {
				return nil, badType(name, a.DType())
			}
			switch a.Data().(type) {
			case []int8:
				map2(out, a, b, bitFn[int8](name))
			case []int16:
				map2(out, a, b, bitFn[int16](name))
			case []int32:
				map2(out, a, b, bitFn[int32](name))
			case []int64:
				map2(out, a, b, bitFn[int64](name))
			case []uint8:
				map2(out, a, b, bitFn[uint8](name))
			case []uint16:
				map2(out, a, b, bitFn[uint16](name))
			case []uint32:
				map2(out, a, b, bitFn[uint32](name))
			case []uint64:
				map2(out, a, b, bitFn[uint64](name))
			default:
				return nil, badType(name, a.DType())
			}
			return ctx.One(out), nil
		}), nil
	}
}

func bitFn[T integer](name string) func(x, y T) T {
	switch name {
	case "BitwiseAnd":
		return func(x, y T) T { return x & y }
	case "BitwiseOr":
		return func(x, y T) T { return x | y }
	}
	return func(x, y T) T { return x ^ y }
}

func buildBitwiseNot(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		if !isInt(x.DType()) {
			return nil, badType("BitwiseNot", x.DType())
		}
		out := ctx.New(x.DType(), x.Shape()...)
		switch d := x.Data().(type) {
		case []int8:
			bitNot(tensor.Data[int8](out), d)
		case []int16:
			bitNot(tensor.Data[int16](out), d)
		case []int32:
			bitNot(tensor.Data[int32](out), d)
		case []int64:
			bitNot(tensor.Data[int64](out), d)
		case []uint8:
			bitNot(tensor.Data[uint8](out), d)
		case []uint16:
			bitNot(tensor.Data[uint16](out), d)
		case []uint32:
			bitNot(tensor.Data[uint32](out), d)
		case []uint64:
			bitNot(tensor.Data[uint64](out), d)
		}
		return ctx.One(out), nil
	}), nil
}

func bitNot[T integer](dst, src []T) {
	for i, v := range src {
		dst[i] = ^v
	}
}

// ---- comparisons ----

// buildCompare returns the builder of the comparison op name.
// Not inlined: each inlined call (one per registered op) would carry its
// own copy of the kernel closure, kilobytes each in gort.wasm.
//
//go:noinline
func buildCompare(name string) op.Builder {
	return func(n *op.Node) (any, error) {
		bin, err := newBinary(n)
		if err != nil {
			return nil, err
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			a, b, out, err := bin.prep(ctx, in, tensor.Bool)
			if err != nil {
				return nil, err
			}
			if err := checkSame(a, b); err != nil {
				return nil, err
			}
			dt := a.DType()
			ok := opsutil.IsNumeric(dt) || (name == "Equal" && (dt == tensor.Bool || dt == tensor.String))
			if !ok {
				return nil, badType(name, dt)
			}
			switch a.Data().(type) {
			case []float32:
				compare[float32](name, out, a, b)
			case []float64:
				compare[float64](name, out, a, b)
			case []int8:
				compare[int8](name, out, a, b)
			case []int16:
				compare[int16](name, out, a, b)
			case []int32:
				compare[int32](name, out, a, b)
			case []int64:
				compare[int64](name, out, a, b)
			case []uint8:
				compare[uint8](name, out, a, b)
			case []uint16:
				compare[uint16](name, out, a, b)
			case []uint32:
				compare[uint32](name, out, a, b)
			case []uint64:
				compare[uint64](name, out, a, b)
			case []string:
				compare[string](name, out, a, b)
			case []bool:
				map2(out, a, b, func(x, y bool) bool { return x == y })
			}
			return ctx.One(out), nil
		}), nil
	}
}

func compare[T cmp.Ordered](name string, out, a, b *tensor.Tensor) {
	switch name {
	case "Equal":
		map2(out, a, b, func(x, y T) bool { return x == y })
	case "Less":
		map2(out, a, b, func(x, y T) bool { return x < y })
	case "Greater":
		map2(out, a, b, func(x, y T) bool { return x > y })
	case "LessOrEqual":
		map2(out, a, b, func(x, y T) bool { return x <= y })
	case "GreaterOrEqual":
		map2(out, a, b, func(x, y T) bool { return x >= y })
	}
}
