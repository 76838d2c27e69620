package contrib_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestBiasSplitGelu against the formula in float64 (onnxruntime has no CPU
// kernel to compare with).
func TestBiasSplitGelu(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, s := range [][]int{{2, 3, 8}, {1, 5, 2}, {3, 1, 14}} {
		x, b := randT(r, 3, 0, s...), randT(r, 1, 0, s[2])
		xv, bv := f64(x), f64(b)
		d, h := s[2], s[2]/2
		want := make([]float64, len(xv)/2)
		for i := range want {
			row, j := i/h, i%h
			l := float64(float32(xv[row*d+j]) + float32(bv[j]))
			rt := float64(float32(xv[row*d+h+j]) + float32(bv[h+j]))
			want[i] = l * refGelu(rt)
		}
		got := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "BiasSplitGelu", Opset: 1, In: []*tensor.Tensor{x, b}})
		optest.Expect(t, "BiasSplitGelu", got[0], of([]int{s[0], s[1], h}, want))
	}
}

// TestMSLayerNorm: com.microsoft's LayerNormalization is ONNX
// LayerNormalization-17, outputs and all.
func TestMSLayerNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	x, sc, b := randT(r, 2, 0.3, 2, 3, 7), randT(r, 1, 1, 3, 7), randT(r, 1, 0, 3, 7)
	attrs := optest.A{"axis": 1, "epsilon": float32(1e-3)}
	ms := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "LayerNormalization", Opset: 1, Attrs: attrs, NOut: 3, In: []*tensor.Tensor{x, sc, b}})
	onnx := optest.MustRun(t, optest.Call{Op: "LayerNormalization", Opset: 17, Attrs: attrs, NOut: 3, In: []*tensor.Tensor{x, sc, b}})
	for i := range onnx {
		optest.Expect(t, "LayerNormalization", ms[i], onnx[i])
	}
}
