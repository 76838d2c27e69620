package elementwise

import (
	"math"

	"github.com/chewxy/math32"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Unary math. Each op is a pair of scalar functions (float32 via math32 for
// float32/float16/bfloat16 storage, float64 via math); ops whose type
// constraint includes integers (Abs, Neg, Sign) add a generic integer path.

// sqrt32 is the correctly rounded float32 square root, through float64
// (exact: a float64 square root rounded to float32 is never double-rounded
// wrong). math32.Sqrt gives the same values but in WebAssembly, where it has
// no assembly, runs a bit-by-bit loop: 250 µs for a voice-activity model's
// spectrogram magnitude, a fifth of its run.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// floatFn is an elementwise function with a float32 and a float64 form.
type floatFn struct {
	f32 func(float32) float32
	f64 func(float64) float64
}

func init() {
	reg := func(name string, versions []int, f floatFn) {
		op.Register(name, versions, func(n *op.Node) (any, error) { return floatKernel(name, f, nil), nil })
		shapes.Register("", name, shapes.SameAsInput0)
	}
	reg("Exp", []int{1, 6, 13}, floatFn{math32.Exp, math.Exp})
	reg("Log", []int{1, 6, 13}, floatFn{math32.Log, math.Log})
	reg("Sqrt", []int{1, 6, 13}, floatFn{sqrt32, math.Sqrt})
	reg("Reciprocal", []int{1, 6, 13}, floatFn{func(x float32) float32 { return 1 / x }, func(x float64) float64 { return 1 / x }})
	reg("Floor", []int{1, 6, 13}, floatFn{math32.Floor, math.Floor})
	reg("Ceil", []int{1, 6, 13}, floatFn{math32.Ceil, math.Ceil})
	reg("Round", []int{11, 22}, floatFn{func(x float32) float32 { return float32(math.RoundToEven(float64(x))) }, math.RoundToEven})
	reg("Sin", []int{7, 22}, floatFn{math32.Sin, math.Sin})
	reg("Cos", []int{7, 22}, floatFn{math32.Cos, math.Cos})
	reg("Tan", []int{7, 22}, floatFn{math32.Tan, math.Tan})
	reg("Asin", []int{7, 22}, floatFn{math32.Asin, math.Asin})
	reg("Acos", []int{7, 22}, floatFn{math32.Acos, math.Acos})
	reg("Atan", []int{7, 22}, floatFn{math32.Atan, math.Atan})
	reg("Sinh", []int{9, 22}, floatFn{math32.Sinh, math.Sinh})
	reg("Cosh", []int{9, 22}, floatFn{math32.Cosh, math.Cosh})
	reg("Asinh", []int{9, 22}, floatFn{math32.Asinh, math.Asinh})
	reg("Acosh", []int{9, 22}, floatFn{math32.Acosh, math.Acosh})
	reg("Atanh", []int{9, 22}, floatFn{math32.Atanh, math.Atanh})
	// float32 erf: erf32, within 1.5 ulp (math32.Erf loses a few ulps near 0
	// that the reference keeps; math.Erf through float64 is 10× slower).
	op.Register("Erf", []int{9, 13}, func(n *op.Node) (any, error) {
		return floatKernelVec("Erf", floatFn{erf32, math.Erf}, erfF32, intErf), nil
	})
	shapes.Register("", "Erf", shapes.SameAsInput0)

	op.Register("Abs", []int{1, 6, 13}, func(n *op.Node) (any, error) {
		return floatKernel("Abs", floatFn{math32.Abs, math.Abs}, intAbs), nil
	})
	shapes.Register("", "Abs", shapes.SameAsInput0)
	op.Register("Neg", []int{1, 6, 13}, func(n *op.Node) (any, error) {
		return floatKernel("Neg", floatFn{func(x float32) float32 { return -x }, func(x float64) float64 { return -x }}, intNeg), nil
	})
	shapes.Register("", "Neg", shapes.SameAsInput0)
	op.Register("Sign", []int{9, 13}, func(n *op.Node) (any, error) {
		return floatKernel("Sign", floatFn{sign[float32], sign[float64]}, intSign), nil
	})
	shapes.Register("", "Sign", shapes.SameAsInput0)
	op.Register("IsNaN", []int{9, 13, 20}, buildIsNaN)
	shapes.Register("", "IsNaN", shapes.SameAsInput0)
	op.Register("IsInf", []int{10, 20}, buildIsInf)
	shapes.Register("", "IsInf", shapes.SameAsInput0)
}

// intKernel computes an integer-typed unary op into out (same dtype as x);
// it returns false for dtypes it does not accept.
type intKernel func(out, x *tensor.Tensor) bool

// floatKernel runs f over float tensors and ints over integer ones (nil: floats only).
func floatKernel(name string, f floatFn, ints intKernel) op.Kernel {
	return floatKernelVec(name, f, nil, ints)
}

// floatKernelVec is floatKernel with vec32, when not nil, a whole-slice
// form of f.f32 (a vectorised loop) used in its place.
//
// Not inlined: each inlined call (one per registered op) would carry its
// own copy of the kernel closure, kilobytes each in gort.wasm.
//
//go:noinline
func floatKernelVec(name string, f floatFn, vec32 func(dst, src []float32), ints intKernel) op.Kernel {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("%s needs an input", name)
		}
		x := in[0]
		dt := x.DType()
		switch {
		case dt.IsFloat():
			out := ctx.NewOver(in[:1], dt, x.Shape()...)
			if vec32 != nil {
				vec32(out.F32(), x.F32())
			} else {
				mapF32(out.F32(), x.F32(), f.f32)
			}
			return ctx.One(out), nil
		case dt == tensor.Double:
			out := ctx.New(dt, x.Shape()...)
			od := out.F64()
			for i, v := range x.F64() {
				od[i] = f.f64(v)
			}
			return ctx.One(out), nil
		case ints != nil && isInt(dt):
			out := ctx.New(dt, x.Shape()...)
			if ints(out, x) {
				return ctx.One(out), nil
			}
		}
		return nil, badType(name, dt)
	})
}

func mapF32(dst, src []float32, f func(float32) float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = f(v)
	}
}

func sign[T tensor.Number](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return T(0) - 1
	}
	return x // 0, -0 and NaN map to themselves
}

// eachInt dispatches a generic integer loop over the storage type of x.
func eachInt(out, x *tensor.Tensor, signedOnly bool, f8 func([]int8, []int8), f16 func([]int16, []int16),
	f32 func([]int32, []int32), f64 func([]int64, []int64), u func(out, x *tensor.Tensor)) bool {
	switch d := x.Data().(type) {
	case []int8:
		f8(tensor.Data[int8](out), d)
	case []int16:
		f16(tensor.Data[int16](out), d)
	case []int32:
		f32(tensor.Data[int32](out), d)
	case []int64:
		f64(tensor.Data[int64](out), d)
	default:
		if signedOnly || u == nil {
			return false
		}
		u(out, x)
	}
	return true
}

func mapSlice[T any](dst, src []T, f func(T) T) {
	for i, v := range src {
		dst[i] = f(v)
	}
}

func absT[T tensor.Number](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

func negT[T tensor.Number](x T) T { return -x }

// intErf: Erf's type constraint includes the integer types. erf of an
// integer, truncated back to it as a float-to-int cast does, is 0 for
// |x| ≤ 5 and ±1 from |x| = 6, where erf rounds to ±1 in float64.
func intErf(out, x *tensor.Tensor) bool {
	v, err := x.Float64s()
	if err != nil {
		return false
	}
	for i := range v {
		v[i] = math.Erf(v[i])
	}
	return tensor.StoreFloat64s(out, v) == nil
}

func intAbs(out, x *tensor.Tensor) bool {
	return eachInt(out, x, false,
		func(d, s []int8) { mapSlice(d, s, absT[int8]) },
		func(d, s []int16) { mapSlice(d, s, absT[int16]) },
		func(d, s []int32) { mapSlice(d, s, absT[int32]) },
		func(d, s []int64) { mapSlice(d, s, absT[int64]) },
		copyStorage) // |u| = u
}

func intNeg(out, x *tensor.Tensor) bool {
	return eachInt(out, x, true,
		func(d, s []int8) { mapSlice(d, s, negT[int8]) },
		func(d, s []int16) { mapSlice(d, s, negT[int16]) },
		func(d, s []int32) { mapSlice(d, s, negT[int32]) },
		func(d, s []int64) { mapSlice(d, s, negT[int64]) },
		nil)
}

func intSign(out, x *tensor.Tensor) bool {
	return eachInt(out, x, false,
		func(d, s []int8) { mapSlice(d, s, sign[int8]) },
		func(d, s []int16) { mapSlice(d, s, sign[int16]) },
		func(d, s []int32) { mapSlice(d, s, sign[int32]) },
		func(d, s []int64) { mapSlice(d, s, sign[int64]) },
		func(out, x *tensor.Tensor) {
			switch d := x.Data().(type) {
			case []uint8:
				mapSlice(tensor.Data[uint8](out), d, sign[uint8])
			case []uint16:
				mapSlice(tensor.Data[uint16](out), d, sign[uint16])
			case []uint32:
				mapSlice(tensor.Data[uint32](out), d, sign[uint32])
			case []uint64:
				mapSlice(tensor.Data[uint64](out), d, sign[uint64])
			}
		})
}

// copyStorage copies x's elements into out (same dtype and size).
func copyStorage(out, x *tensor.Tensor) {
	for i := 0; i < x.Len(); i++ {
		tensor.SetFrom(out, i, x, i)
	}
}

// ---- IsNaN / IsInf ----

// floatValues returns x's elements as float64 for the predicates, decoding
// the 8-bit float codes that IsNaN-20/IsInf-20 accept.
func floatValues(x *tensor.Tensor) ([]float64, bool) {
	if x.DType().IsCodeType() {
		v, err := decodeCodes(x)
		return v, err == nil
	}
	if !isFloatish(x.DType()) {
		return nil, false
	}
	v, _ := x.Float64s()
	return v, true
}

func buildIsNaN(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		out := ctx.New(tensor.Bool, x.Shape()...)
		od := out.Bools()
		if x.DType().IsFloat() {
			for i, v := range x.F32() {
				od[i] = v != v
			}
			return ctx.One(out), nil
		}
		v, ok := floatValues(x)
		if !ok {
			return nil, badType("IsNaN", x.DType())
		}
		for i, f := range v {
			od[i] = f != f
		}
		return ctx.One(out), nil
	}), nil
}

func buildIsInf(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	neg, pos := a.Int("detect_negative", 1) != 0, a.Int("detect_positive", 1) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		v, ok := floatValues(x)
		if !ok {
			return nil, badType("IsInf", x.DType())
		}
		out := ctx.New(tensor.Bool, x.Shape()...)
		od := out.Bools()
		for i, f := range v {
			od[i] = (pos && math.IsInf(f, 1)) || (neg && math.IsInf(f, -1))
		}
		return ctx.One(out), nil
	}), nil
}
