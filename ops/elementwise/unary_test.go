package elementwise

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

func TestUnaryFloat(t *testing.T) {
	xs := []float64{-2.5, -0.5, 0, 0.25, 0.5, 1.5, 2.5, 3}
	in := make([]float32, len(xs))
	for i, v := range xs {
		in[i] = float32(v)
	}
	ref := map[string]func(float64) float64{
		"Abs": math.Abs, "Neg": func(x float64) float64 { return -x }, "Exp": math.Exp,
		"Floor": math.Floor, "Ceil": math.Ceil, "Sin": math.Sin, "Cos": math.Cos, "Tan": math.Tan,
		"Atan": math.Atan, "Sinh": math.Sinh, "Cosh": math.Cosh, "Asinh": math.Asinh, "Erf": math.Erf,
		"Tanh": math.Tanh, "Sigmoid": func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
		"Softsign": func(x float64) float64 { return x / (1 + math.Abs(x)) },
		"Softplus": func(x float64) float64 { return math.Log(1 + math.Exp(x)) },
		"Relu":     func(x float64) float64 { return math.Max(x, 0) },
		"Sign": func(x float64) float64 {
			if x == 0 {
				return 0
			}
			return math.Copysign(1, x)
		},
		"HardSwish": func(x float64) float64 { return x * math.Max(0, math.Min(1, x/6+0.5)) },
		"Mish":      func(x float64) float64 { return x * math.Tanh(math.Log(1+math.Exp(x))) },
	}
	for name, f := range ref {
		want := make([]float64, len(xs))
		for i, v := range xs {
			want[i] = f(v)
		}
		checkTensor(t, name, mustRun(t, name, 22, nil, f32([]int{2, 4}, in...)), tensor.Float, []int{2, 4}, want)
		checkTensor(t, name+" f64", mustRun(t, name, 22, nil, tensor.Of([]int{8}, xs)), tensor.Double, []int{8}, want)
	}
	pos := f32([]int{3}, 0.25, 1, 4)
	checkTensor(t, "Sqrt", mustRun(t, "Sqrt", 13, nil, pos), tensor.Float, []int{3}, []float64{0.5, 1, 2})
	checkTensor(t, "Log", mustRun(t, "Log", 13, nil, pos), tensor.Float, []int{3}, []float64{math.Log(0.25), 0, math.Log(4)})
	checkTensor(t, "Reciprocal", mustRun(t, "Reciprocal", 13, nil, pos), tensor.Float, []int{3}, []float64{4, 1, 0.25})
	unit := f32([]int{2}, -0.5, 0.5)
	checkTensor(t, "Asin", mustRun(t, "Asin", 22, nil, unit), tensor.Float, []int{2}, []float64{-math.Pi / 6, math.Pi / 6})
	checkTensor(t, "Acos", mustRun(t, "Acos", 22, nil, unit), tensor.Float, []int{2}, []float64{2 * math.Pi / 3, math.Pi / 3})
	checkTensor(t, "Atanh", mustRun(t, "Atanh", 22, nil, unit), tensor.Float, []int{2}, []float64{-math.Atanh(0.5), math.Atanh(0.5)})
	checkTensor(t, "Acosh", mustRun(t, "Acosh", 22, nil, f32([]int{1}, 2)), tensor.Float, []int{1}, []float64{math.Acosh(2)})
	if _, err := runOp("Exp", 13, nil, tensor.Of([]int{1}, []int32{1})); err == nil {
		t.Error("Exp accepted int32")
	}
}

func TestRoundHalfEven(t *testing.T) {
	in := f32([]int{9}, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -2.6)
	checkTensor(t, "Round", mustRun(t, "Round", 22, nil, in), tensor.Float, []int{9},
		[]float64{0, 2, 2, 0, -2, -2, 2, 3, -3})
}

func TestUnaryInts(t *testing.T) {
	x := tensor.Of([]int{4}, []int32{-3, 0, 5, math.MinInt32})
	checkTensor(t, "Abs", mustRun(t, "Abs", 13, nil, x), tensor.Int32, []int{4}, []int32{3, 0, 5, math.MinInt32})
	checkTensor(t, "Neg", mustRun(t, "Neg", 13, nil, x), tensor.Int32, []int{4}, []int32{3, 0, -5, math.MinInt32})
	checkTensor(t, "Sign", mustRun(t, "Sign", 13, nil, x), tensor.Int32, []int{4}, []int32{-1, 0, 1, -1})
	checkTensor(t, "Relu-14", mustRun(t, "Relu", 14, nil, x), tensor.Int32, []int{4}, []int32{0, 0, 5, 0})
	if _, err := runOp("Relu", 13, nil, x); err == nil {
		t.Error("Relu-13 accepted int32")
	}
	u := tensor.Of([]int{2}, []uint16{0, 7})
	checkTensor(t, "Abs uint", mustRun(t, "Abs", 13, nil, u), tensor.Uint16, []int{2}, []uint16{0, 7})
	checkTensor(t, "Sign uint", mustRun(t, "Sign", 13, nil, u), tensor.Uint16, []int{2}, []uint16{0, 1})
	if _, err := runOp("Neg", 13, nil, u); err == nil {
		t.Error("Neg accepted uint16")
	}
}

func TestIsNaNIsInf(t *testing.T) {
	inf := float32(math.Inf(1))
	x := f32([]int{4}, 1, float32(math.NaN()), inf, -inf)
	checkTensor(t, "IsNaN", mustRun(t, "IsNaN", 20, nil, x), tensor.Bool, []int{4}, []bool{false, true, false, false})
	checkTensor(t, "IsInf", mustRun(t, "IsInf", 20, nil, x), tensor.Bool, []int{4}, []bool{false, false, true, true})
	checkTensor(t, "IsInf neg only", mustRun(t, "IsInf", 20, map[string]any{"detect_positive": 0}, x), tensor.Bool, []int{4}, []bool{false, false, false, true})
	checkTensor(t, "IsInf pos only", mustRun(t, "IsInf", 20, map[string]any{"detect_negative": 0}, x), tensor.Bool, []int{4}, []bool{false, false, true, false})
	e5 := tensor.Must(tensor.FromSlice(tensor.Float8E5M2, []int{3}, []uint8{0x7C, 0x7E, 0x3C}))
	checkTensor(t, "IsInf e5m2", mustRun(t, "IsInf", 20, nil, e5), tensor.Bool, []int{3}, []bool{true, false, false})
	checkTensor(t, "IsNaN e5m2", mustRun(t, "IsNaN", 20, nil, e5), tensor.Bool, []int{3}, []bool{false, true, false})
}

func TestActivations(t *testing.T) {
	x := f32([]int{5}, -2, -0.5, 0, 0.5, 2)
	xs := []float64{-2, -0.5, 0, 0.5, 2}
	apply := func(f func(float64) float64) []float64 {
		out := make([]float64, len(xs))
		for i, v := range xs {
			out[i] = f(v)
		}
		return out
	}
	cases := []struct {
		name  string
		attrs map[string]any
		f     func(float64) float64
	}{
		{"LeakyRelu", nil, func(v float64) float64 { return map[bool]float64{true: 0.01 * v, false: v}[v < 0] }},
		{"LeakyRelu", map[string]any{"alpha": float32(0.5)}, func(v float64) float64 { return map[bool]float64{true: 0.5 * v, false: v}[v < 0] }},
		{"Elu", map[string]any{"alpha": float32(2)}, func(v float64) float64 {
			if v < 0 {
				return 2 * (math.Exp(v) - 1)
			}
			return v
		}},
		{"Selu", nil, func(v float64) float64 {
			const a, g = 1.67326319217681884765625, 1.05070102214813232421875
			if v <= 0 {
				return g * a * (math.Exp(v) - 1)
			}
			return g * v
		}},
		{"Celu", map[string]any{"alpha": float32(2)}, func(v float64) float64 {
			return math.Max(0, v) + math.Min(0, 2*(math.Exp(v/2)-1))
		}},
		{"HardSigmoid", map[string]any{"alpha": float32(0.5), "beta": float32(0.6)}, func(v float64) float64 {
			return math.Max(0, math.Min(1, 0.5*v+0.6))
		}},
		{"ThresholdedRelu", map[string]any{"alpha": float32(0.4)}, func(v float64) float64 {
			if v > 0.4 {
				return v
			}
			return 0
		}},
		{"Gelu", nil, func(v float64) float64 { return v * 0.5 * (1 + math.Erf(v/math.Sqrt2)) }},
		{"Gelu", map[string]any{"approximate": "tanh"}, func(v float64) float64 {
			return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
		}},
		{"Swish", map[string]any{"alpha": float32(2)}, func(v float64) float64 { return v / (1 + math.Exp(-2*v)) }},
	}
	for _, c := range cases {
		checkTensor(t, c.name, mustRun(t, c.name, 28, c.attrs, x), tensor.Float, []int{5}, apply(c.f))
	}
	// Large inputs must not overflow to NaN.
	big := f32([]int{2}, -200, 200)
	checkTensor(t, "Sigmoid extreme", mustRun(t, "Sigmoid", 13, nil, big), tensor.Float, []int{2}, []float64{0, 1})
	checkTensor(t, "Softplus extreme", mustRun(t, "Softplus", 22, nil, big), tensor.Float, []int{2}, []float64{0, 200})
}

func TestClip(t *testing.T) {
	x := f32([]int{5}, -3, -1, 0, 1, float32(math.NaN()))
	checkTensor(t, "Clip-6 attrs", mustRun(t, "Clip", 6, map[string]any{"min": float32(-2), "max": float32(0.5)}, x),
		tensor.Float, []int{5}, []float64{-2, -1, 0, 0.5, math.NaN()})
	checkTensor(t, "Clip-6 default", mustRun(t, "Clip", 6, map[string]any{"max": float32(0)}, x),
		tensor.Float, []int{5}, []float64{-3, -1, 0, 0, math.NaN()})
	checkTensor(t, "Clip-13 inputs", mustRun(t, "Clip", 13, nil, x, f32([]int{}, -1), f32([]int{}, 0.5)),
		tensor.Float, []int{5}, []float64{-1, -1, 0, 0.5, math.NaN()})
	checkTensor(t, "Clip-13 max only", mustRun(t, "Clip", 13, nil, x, nil, f32([]int{1}, 0)),
		tensor.Float, []int{5}, []float64{-3, -1, 0, 0, math.NaN()})
	checkTensor(t, "Clip min>max", mustRun(t, "Clip", 13, nil, x, f32([]int{}, 2), f32([]int{}, 1)),
		tensor.Float, []int{5}, []float64{1, 1, 1, 1, math.NaN()})
	i8 := tensor.Of([]int{4}, []int8{-128, -5, 5, 127})
	checkTensor(t, "Clip int8", mustRun(t, "Clip", 13, nil, i8, tensor.Scalar(int8(-10))),
		tensor.Int8, []int{4}, []int8{-10, -5, 5, 127})
	if _, err := runOp("Clip", 11, nil, i8); err == nil {
		t.Error("Clip-11 accepted int8")
	}
}
