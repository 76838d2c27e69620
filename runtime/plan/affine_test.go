package plan_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	gort "github.com/gort-dev/gort/runtime"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestChannelAffineRewrites runs models with rewrites off and on, as
// TestRewrites does, for foldChannelAffine and fuseBatchNormActivation:
// x is float32[2,3,5,7] (N>1, C=3, H≠W); want lists a substring of each
// report line the rewrite must produce (nil: no fusion at all).
func TestChannelAffineRewrites(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randTensor(r, 2, 3, 5, 7)
	bn := func(m *tm.Model, in, out string) {
		v := randTensor(r, 3)
		for i := range v.F32() {
			v.F32()[i] = v.F32()[i]*v.F32()[i] + 0.1
		}
		m.Init(out+"_scale", randTensor(r, 3))
		m.Init(out+"_bias", randTensor(r, 3))
		m.Init(out+"_mean", randTensor(r, 3))
		m.Init(out+"_var", v)
		m.Node("BatchNormalization", []string{in, out + "_scale", out + "_bias", out + "_mean", out + "_var"}, []string{out}, tm.Float("epsilon", 1e-3))
	}
	// caffe2 is the exporter's BatchNormalization → Mul → Add by [C,1,1].
	caffe2 := func(m *tm.Model, in, out string) {
		bn(m, in, out+"_bn")
		m.Init(out+"_w", randTensor(r, 3, 1, 1))
		m.Init(out+"_b", randTensor(r, 3, 1, 1))
		m.Node("Mul", []string{out + "_bn", out + "_w"}, []string{out + "_m"})
		m.Node("Add", []string{out + "_b", out + "_m"}, []string{out})
	}
	cases := []struct {
		name  string
		build func(m *tm.Model)
		want  []string
	}{
		{"Conv + Mul + Add + Relu", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 3, 3, 2))
			m.Init("k", randTensor(r, 1, 3, 1, 1))
			m.Init("a", randTensor(r, 1))
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("Mul", []string{"c", "k"}, []string{"m"})
			m.Node("Add", []string{"m", "a"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, []string{"Mul/Add folded into Conv", "Relu#"}},
		{"grouped Conv + BatchNormalization + Mul + Add + Relu (Caffe2)", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 1, 3, 3))
			m.Init("b", randTensor(r, 3))
			m.Node("Conv", []string{"x", "w", "b"}, []string{"c"}, tm.Int("group", 3))
			caffe2(m, "c", "s")
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, []string{"BatchNormalization folded", "Mul/Add folded into Conv", "Relu#"}},
		{"BatchNormalization + Mul + Add + Relu (pre-activation)", func(m *tm.Model) {
			caffe2(m, "x", "s")
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, []string{"Mul/Add folded into BatchNormalization", "fused into BatchNormalization"}},
		{"BatchNormalization + LeakyRelu", func(m *tm.Model) {
			bn(m, "x", "b")
			m.Node("LeakyRelu", []string{"b"}, []string{"y"}, tm.Float("alpha", 0.2))
		}, []string{"fused into BatchNormalization"}},
		{"BatchNormalization read twice keeps its Relu apart", func(m *tm.Model) {
			bn(m, "x", "b")
			m.Node("Relu", []string{"b"}, []string{"r"})
			m.Node("Add", []string{"r", "b"}, []string{"y"})
		}, nil},
		{"Mul by a non-channel constant is not folded", func(m *tm.Model) {
			bn(m, "x", "b")
			m.Init("k", randTensor(r, 5, 1))
			m.Node("Mul", []string{"b", "k"}, []string{"y"})
		}, nil},
		{"Mul by a batch-wide constant is not folded", func(m *tm.Model) {
			bn(m, "x", "b")
			m.Init("k", randTensor(r, 2, 3, 1, 1))
			m.Node("Mul", []string{"b", "k"}, []string{"y"})
		}, nil},
		{"Add of a computed value is not folded", func(m *tm.Model) {
			bn(m, "x", "b")
			m.Node("Add", []string{"b", "x"}, []string{"y"})
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := tm.New(13)
			m.Input("x", tensor.Float, 2, 3, 5, 7)
			c.build(m)
			m.Output("y", tensor.Float)
			feeds := map[string]tensor.Value{"x": x}
			want, _ := run(t, m.Bytes(), gort.OptimizeDisabled, feeds)
			got, s := run(t, m.Bytes(), gort.OptimizeAll, feeds)
			checkFused(t, s.Plan().Report, c.want)
			if d := maxDiff(t, got["y"], want["y"]); d > 1e-5 {
				t.Errorf("optimised result differs by %g", d)
			}
		})
	}
}

// checkFused checks that the report has one fusion line per wanted
// substring, in order.
func checkFused(t *testing.T, rep plan.Report, want []string) {
	t.Helper()
	if len(rep.Fused) != len(want) {
		t.Fatalf("fused %q, want %q", rep.Fused, want)
	}
	for i, w := range want {
		if !strings.Contains(rep.Fused[i], w) {
			t.Errorf("fused %q, want %q", rep.Fused, want)
		}
	}
}

// TestBatchNormActivationOtherTypes fuses Relu into BatchNormalization-15
// on float16 and float64 data with float32 parameters: the kernel applies
// the activation as a separate pass there (float16 rounded first).
func TestBatchNormActivationOtherTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randTensor(r, 2, 3, 5, 7)
	for _, dt := range []tensor.DType{tensor.Float16, tensor.Double} {
		t.Run(dt.String(), func(t *testing.T) {
			m := tm.New(15)
			m.Input("x", tensor.Float, 2, 3, 5, 7)
			v := randTensor(r, 3)
			for i := range v.F32() {
				v.F32()[i] = v.F32()[i]*v.F32()[i] + 0.1
			}
			m.Init("scale", randTensor(r, 3))
			m.Init("bias", randTensor(r, 3))
			m.Init("mean", randTensor(r, 3))
			m.Init("var", v)
			m.Node("Cast", []string{"x"}, []string{"h"}, tm.Int("to", int64(dt)))
			m.Node("BatchNormalization", []string{"h", "scale", "bias", "mean", "var"}, []string{"b"})
			m.Node("Relu", []string{"b"}, []string{"a"})
			m.Node("Cast", []string{"a"}, []string{"y"}, tm.Int("to", int64(tensor.Float)))
			m.Output("y", tensor.Float)
			feeds := map[string]tensor.Value{"x": x}
			want, _ := run(t, m.Bytes(), gort.OptimizeDisabled, feeds)
			got, s := run(t, m.Bytes(), gort.OptimizeAll, feeds)
			checkFused(t, s.Plan().Report, []string{"fused into BatchNormalization"})
			if d := maxDiff(t, got["y"], want["y"]); d != 0 {
				t.Errorf("optimised result differs by %g", d)
			}
		})
	}
}
