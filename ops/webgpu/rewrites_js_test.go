//go:build js && wasm

package webgpu_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// rewriteCase is a model in which one plan rewrite applies (report names
// the line it writes in the plan's report) and the rewritten node must land
// on the device (gpu lists op types that must run there) or, where the
// device does not implement the rewritten form, be declined (cpu lists op
// types that must stay on the CPU, with the reason containing declined).
type rewriteCase struct {
	name     string
	model    func(r *rng) *graphModel
	report   string
	gpu      []string
	cpu      []string
	declined string
}

// positive is a float32 tensor of the given shape with values in
// [0.5, 1.5] drawn by r (BatchNormalization variances).
func (r *rng) positive(shape ...int) *tensor.Tensor {
	t := r.tensor(shape...)
	for i, v := range t.F32() {
		t.F32()[i] = 0.5 + v*v
	}
	return t
}

var rewriteCases = []rewriteCase{
	{name: "bias Add into a 3-D MatMul (the transformer's Linear)", report: "bias Add fused into MatMul", gpu: []string{"MatMul"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(1, 3, 8)).init("w", r.tensor(8, 8)).init("b", r.tensor(8)).
				node("MatMul", []string{"x", "w"}, []string{"xw"}).node("Add", []string{"xw", "b"}, []string{"y"}).output("y")
		}},
	{name: "bias [1, 1, N] first into a 4-D MatMul", report: "bias Add fused into MatMul", gpu: []string{"MatMul"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 3, 5, 7)).init("w", r.tensor(7, 6)).init("b", r.tensor(1, 1, 6)).
				node("MatMul", []string{"x", "w"}, []string{"xw"}).node("Add", []string{"b", "xw"}, []string{"y"}).output("y")
		}},
	{name: "bias and an activation into a MatMul", report: "fused into MatMul", gpu: []string{"MatMul"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 4, 9)).init("w", r.tensor(9, 5)).init("b", r.tensor(5)).
				node("MatMul", []string{"x", "w"}, []string{"xw"}).node("Add", []string{"xw", "b"}, []string{"z"}).
				node("HardSigmoid", []string{"z"}, []string{"y"}, aFloat("alpha", 0.3), aFloat("beta", 0.4)).output("y")
		}},
	{name: "a bias and a residual Add into a MatMul", report: "fused into MatMul", gpu: []string{"MatMul"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(1, 4, 6)).feed("res", r.tensor(1, 4, 6)).init("w", r.tensor(6, 6)).init("b", r.tensor(6)).
				node("MatMul", []string{"x", "w"}, []string{"xw"}).node("Add", []string{"xw", "b"}, []string{"z"}).
				node("Add", []string{"z", "res"}, []string{"y"}).output("y")
		}},
	{name: "MatMul and Add as Gemm", report: "MatMul and Add as Gemm", gpu: []string{"Gemm"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(5, 8)).init("w", r.tensor(8, 3)).init("b", r.tensor(3)).
				node("MatMul", []string{"x", "w"}, []string{"xw"}).node("Add", []string{"xw", "b"}, []string{"y"}).output("y")
		}},
	{name: "a residual Add into a Gemm", report: "fused into Gemm", gpu: []string{"Gemm"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(4, 6)).feed("res", r.tensor(4, 5)).init("w", r.tensor(6, 5)).init("c", r.tensor(5)).
				node("Gemm", []string{"x", "w", "c"}, []string{"z"}, aFloat("beta", 0.5)).
				node("Add", []string{"res", "z"}, []string{"y"}).output("y")
		}},
	{name: "an activation into a Gemm", report: "fused into Gemm", gpu: []string{"Gemm"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(4, 6)).init("w", r.tensor(5, 6)).init("c", r.tensor(1, 5)).
				node("Gemm", []string{"x", "w", "c"}, []string{"z"}, aInt("transB", 1), aFloat("alpha", 0.7), aFloat("beta", 1.5)).
				node("Tanh", []string{"z"}, []string{"y"}).output("y")
		}},
	{name: "BatchNormalization, Mul and Add folded into a Conv's weights", report: "folded into the weights", gpu: []string{"Conv"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 3, 6, 5)).init("w", r.tensor(4, 3, 3, 3)).init("cb", r.tensor(4)).
				init("s", r.tensor(4)).init("bb", r.tensor(4)).init("m", r.tensor(4)).init("v", r.positive(4)).
				init("k", r.tensor(4, 1, 1)).init("t", r.tensor(4, 1, 1)).
				node("Conv", []string{"x", "w", "cb"}, []string{"c"}, aInts("pads", 1, 0, 1, 2)).
				node("BatchNormalization", []string{"c", "s", "bb", "m", "v"}, []string{"n"}).
				node("Mul", []string{"n", "k"}, []string{"nk"}).node("Add", []string{"nk", "t"}, []string{"y"}).output("y")
		}},
	{name: "Mul and Add folded into a BatchNormalization", report: "folded into the BatchNormalization", gpu: []string{"BatchNormalization"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 3, 4, 5)).
				init("s", r.tensor(3)).init("bb", r.tensor(3)).init("m", r.tensor(3)).init("v", r.positive(3)).
				init("k", r.tensor(3, 1, 1)).init("t", r.tensor(1)).
				node("BatchNormalization", []string{"x", "s", "bb", "m", "v"}, []string{"n"}, aFloat("epsilon", 1e-3)).
				node("Mul", []string{"n", "k"}, []string{"nk"}).node("Add", []string{"nk", "t"}, []string{"y"}).output("y")
		}},
	{name: "a residual Add and Relu into a Conv", report: "fused into Conv", gpu: []string{"Conv"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 4, 5, 7)).feed("res", r.tensor(2, 6, 3, 4)).init("w", r.tensor(6, 2, 3, 2)).init("b", r.tensor(6)).
				node("Conv", []string{"x", "w", "b"}, []string{"c"}, aInt("group", 2), aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1)).
				node("Add", []string{"res", "c"}, []string{"z"}).node("Relu", []string{"z"}, []string{"y"}).output("y")
		}},
	{name: "a two-input Sum as the residual and Clip into a Conv", report: "fused into Conv", gpu: []string{"Conv"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(1, 3, 6, 4)).feed("res", r.tensor(1, 5, 6, 4)).init("w", r.tensor(5, 3, 1, 1)).
				init("lo", tensor.Scalar(float32(-0.2))).init("hi", tensor.Scalar(float32(0.3))).
				node("Conv", []string{"x", "w"}, []string{"c"}).
				node("Sum", []string{"c", "res"}, []string{"z"}).node("Clip", []string{"z", "lo", "hi"}, []string{"y"}).output("y")
		}},
	{name: "LeakyRelu into a ConvTranspose", report: "fused into ConvTranspose", gpu: []string{"ConvTranspose"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 3, 4, 3)).init("w", r.tensor(3, 4, 3, 2)).init("b", r.tensor(4)).
				node("ConvTranspose", []string{"x", "w", "b"}, []string{"c"}, aInts("strides", 2, 1), aInts("output_padding", 1, 0)).
				node("LeakyRelu", []string{"c"}, []string{"y"}, aFloat("alpha", 0.2)).output("y")
		}},
	// The CPU's BatchNormalization takes no residual, so the plan fuses only
	// an activation into it.
	{name: "Sigmoid into a BatchNormalization", report: "fused into BatchNormalization", gpu: []string{"BatchNormalization"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 3, 4, 5)).
				init("s", r.tensor(3)).init("bb", r.tensor(3)).init("m", r.tensor(3)).init("v", r.positive(3)).
				node("BatchNormalization", []string{"x", "s", "bb", "m", "v"}, []string{"n"}).
				node("Sigmoid", []string{"n"}, []string{"y"}).output("y")
		}},
	{name: "a Conv's weights folded from constants", report: "", gpu: []string{"Conv"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(1, 2, 5, 6)).init("w0", r.tensor(3, 2, 2, 2)).init("k", tensor.Scalar(float32(1.5))).
				node("Mul", []string{"w0", "k"}, []string{"w"}).node("Conv", []string{"x", "w"}, []string{"y"}).output("y")
		}},
	{name: "Identity and inference Dropout removed between device steps", report: "", gpu: []string{"Conv", "Softmax"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(1, 2, 5, 6)).init("w", r.tensor(3, 2, 2, 2)).
				node("Conv", []string{"x", "w"}, []string{"c"}).node("Identity", []string{"c"}, []string{"i"}).
				node("Dropout", []string{"i"}, []string{"d"}).node("Softmax", []string{"d"}, []string{"y"}, aInt("axis", 1)).output("y")
		}},
	{name: "x·Clip(x+3, 0, 6)/6 as HardSwish, fused into a Conv", report: "as HardSwish", gpu: []string{"Conv"},
		model: func(r *rng) *graphModel {
			return newModel(17).feed("x", r.tensor(2, 3, 5, 6)).init("w", r.tensor(4, 3, 3, 3)).
				init("three", tensor.Scalar(float32(3))).init("zero", tensor.Scalar(float32(0))).init("six", tensor.Scalar(float32(6))).
				node("Conv", []string{"x", "w"}, []string{"c"}, aInts("pads", 1, 1, 1, 1)).
				node("Add", []string{"c", "three"}, []string{"a"}).node("Clip", []string{"a", "zero", "six"}, []string{"k"}).
				node("Mul", []string{"c", "k"}, []string{"p"}).node("Div", []string{"p", "six"}, []string{"y"}).output("y")
		}},
	{name: "a QDQ Conv as QLinearConv (declined: no integer kernels on the device)", report: "as QLinearConv",
		cpu: []string{"QLinearConv"}, declined: "no WebGPU kernel",
		model: func(r *rng) *graphModel {
			w := make([]int8, 4*3*3*3)
			for i := range w {
				w[i] = int8(i*37%255 - 127)
			}
			return newModel(17).feed("x", r.tensor(1, 3, 6, 5)).init("w", tensor.Of([]int{4, 3, 3, 3}, w)).
				init("sx", tensor.Scalar(float32(0.01))).init("zx", tensor.Scalar(uint8(128))).
				init("sw", tensor.Scalar(float32(0.002))).init("zw", tensor.Scalar(int8(0))).
				init("sy", tensor.Scalar(float32(0.05))).init("zy", tensor.Scalar(uint8(120))).
				node("QuantizeLinear", []string{"x", "sx", "zx"}, []string{"xq"}).
				node("DequantizeLinear", []string{"xq", "sx", "zx"}, []string{"xd"}).
				node("DequantizeLinear", []string{"w", "sw", "zw"}, []string{"wd"}).
				node("Conv", []string{"xd", "wd"}, []string{"c"}, aInts("pads", 1, 1, 1, 1)).
				node("QuantizeLinear", []string{"c", "sy", "zy"}, []string{"yq"}).
				node("DequantizeLinear", []string{"yq", "sy", "zy"}, []string{"y"}).output("y")
		}},
	{name: "a QDQ MatMul as QLinearMatMul (declined: no integer kernels on the device)", report: "as QLinearMatMul",
		cpu: []string{"QLinearMatMul"}, declined: "no WebGPU kernel",
		model: func(r *rng) *graphModel {
			w := make([]int8, 8*5)
			for i := range w {
				w[i] = int8(i*53%255 - 127)
			}
			return newModel(17).feed("x", r.tensor(2, 3, 8)).init("w", tensor.Of([]int{8, 5}, w)).
				init("sx", tensor.Scalar(float32(0.01))).init("zx", tensor.Scalar(uint8(128))).
				init("sw", tensor.Scalar(float32(0.003))).init("zw", tensor.Scalar(int8(0))).
				init("sy", tensor.Scalar(float32(0.02))).init("zy", tensor.Scalar(uint8(128))).
				node("QuantizeLinear", []string{"x", "sx", "zx"}, []string{"xq"}).
				node("DequantizeLinear", []string{"xq", "sx", "zx"}, []string{"xd"}).
				node("DequantizeLinear", []string{"w", "sw", "zw"}, []string{"wd"}).
				node("MatMul", []string{"xd", "wd"}, []string{"m"}).
				node("QuantizeLinear", []string{"m", "sy", "zy"}, []string{"yq"}).
				node("DequantizeLinear", []string{"yq", "sy", "zy"}, []string{"y"}).output("y")
		}},
	{name: "a Cast pair removed around Relu (declined: the chain runs on float16)", report: "",
		cpu: []string{"Relu"}, declined: "float16",
		model: func(r *rng) *graphModel {
			x := r.tensor(2, 3, 4).F32()
			for i, v := range x {
				x[i] = float32(math.Round(float64(v)*8)) / 8 // exact in float16
			}
			return newModel(17).feed("x", tensor.WrapF32(tensor.Float16, []int{2, 3, 4}, x)).
				node("Cast", []string{"x"}, []string{"f"}, aInt("to", int64(tensor.Float))).node("Relu", []string{"f"}, []string{"r"}).
				node("Cast", []string{"r"}, []string{"h"}, aInt("to", int64(tensor.Float16))).
				node("Cast", []string{"h"}, []string{"y"}, aInt("to", int64(tensor.Float))).output("y")
		}},
}

// TestRewritesOnGPU runs each plan rewrite with the rewritten node on the
// device (all rewrites on, the cost rule off) against the CPU with the
// rewrites off: the same values within atol 1e-4 + rtol 1e-3, and the
// rewritten node placed as the case says.
func TestRewritesOnGPU(t *testing.T) {
	for i, c := range rewriteCases {
		t.Run(c.name, func(t *testing.T) {
			g := c.model(&rng{s: uint64(1000 + i)})
			want, err := runModelAt(g, nil, plan.Disabled)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runModelAt(g, acc, plan.All)
			if err != nil {
				t.Fatal(err)
			}
			if c.report != "" && !slices.ContainsFunc(got.report.Fused, func(s string) bool { return strings.Contains(s, c.report) }) {
				t.Fatalf("the rewrite did not apply: report %+v, want a line with %q", got.report, c.report)
			}
			for _, st := range got.steps {
				switch {
				case slices.Contains(c.gpu, st.Node.OpType) && st.Device != webgpu.Device:
					t.Errorf("%s on %s (%s), want it on the device", st.Node.Name, st.Device, st.Reason)
				case slices.Contains(c.cpu, st.Node.OpType) && (st.Device == webgpu.Device || !strings.Contains(st.Reason, c.declined)):
					t.Errorf("%s on %s (%q), want it declined with %q", st.Node.Name, st.Device, st.Reason, c.declined)
				}
			}
			if len(got.steps) == 0 {
				t.Fatal("no steps")
			}
			for name, w := range want.out {
				if d := closeEnough(got.out[name], w, 1e-4, 1e-3); d != "" {
					t.Errorf("output %s: %s (placements %v)", name, d, got.placements)
				}
			}
		})
	}
}

// TestRewriteCasesCoverEveryRewrite keeps the table above in step with the
// plan: every kind of report line the rewrites write has a case.
func TestRewriteCasesCoverEveryRewrite(t *testing.T) {
	for _, line := range []string{"bias Add fused into MatMul", "MatMul and Add as Gemm", "folded into the weights",
		"folded into the BatchNormalization", "fused into Conv", "fused into ConvTranspose", "fused into Gemm",
		"fused into MatMul", "fused into BatchNormalization", "as HardSwish", "as QLinearConv", "as QLinearMatMul"} {
		if !slices.ContainsFunc(rewriteCases, func(c rewriteCase) bool { return strings.Contains(c.report, line) }) {
			t.Errorf("no rewrite case for %q", line)
		}
	}
}
