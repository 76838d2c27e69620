package resample_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/resample"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestPlanesMatchGeneric proves resizePlanes32 bit-identical to the
// generic float64 path: every mode and coordinate transform it takes,
// up- and downsampling, one or both image axes, N>1 and C>1, H≠W, with
// negative zeros and a NaN in the data.
func TestPlanesMatchGeneric(t *testing.T) {
	x := iota32(2, 3, 5, 7)
	for i, v := range x.F32() {
		x.F32()[i] = float32(math.Sin(float64(v)*0.9) * 7)
	}
	x.F32()[3] = float32(math.Copysign(0, -1))
	x.F32()[40] = float32(math.NaN())
	type cfg struct {
		mode, coord string
		antialias   int64
		scales      []float32
	}
	for _, c := range []cfg{
		{"linear", "half_pixel", 0, []float32{1, 1, 2, 2}},
		{"linear", "half_pixel", 0, []float32{1, 1, 1.7, 0.6}},
		{"linear", "align_corners", 0, []float32{1, 1, 3, 1}},
		{"linear", "asymmetric", 0, []float32{1, 1, 1, 2.5}},
		{"linear", "pytorch_half_pixel", 1, []float32{1, 1, 0.4, 0.7}},
		{"cubic", "half_pixel", 0, []float32{1, 1, 2.3, 0.8}},
		{"cubic", "align_corners", 1, []float32{1, 1, 0.5, 1.9}},
	} {
		attrs := []*pb.AttributeProto{aStr("mode", c.mode), aStr("coordinate_transformation_mode", c.coord), aInt("antialias", c.antialias)}
		if !resample.PlanesFast(x, plansFor(t, x, c.scales, c.mode), modeOf(c.mode)) {
			t.Fatalf("%v: fast path not taken", c)
		}
		sameBits(t, c, mustRun(t, 18, "Resize", attrs, x, nil, vec(c.scales...)), func() *tensor.Tensor {
			return mustRun(t, 18, "Resize", attrs, x, nil, vec(c.scales...))
		})
	}
	// An all negative-zero input: every sum is +0 + (−0)… = +0 on both paths.
	z := iota32(1, 2, 3, 4)
	for i := range z.F32() {
		z.F32()[i] = float32(math.Copysign(0, -1))
	}
	// Height-only resizing feeds the −0 values straight to the height pass.
	for _, mode := range []string{"linear", "cubic"} {
		for _, sc := range [][]float32{{1, 1, 2, 1.5}, {1, 1, 2, 1}, {1, 1, 1, 2}} {
			attrs := []*pb.AttributeProto{aStr("mode", mode)}
			run := func() *tensor.Tensor { return mustRun(t, 18, "Resize", attrs, z, nil, vec(sc...)) }
			sameBits(t, fmt.Sprint("negative zeros ", mode, sc), run(), run)
		}
	}
	// sizes rather than scales (U²-Net's form): Scale is exactly Out/In.
	attrs := []*pb.AttributeProto{aStr("mode", "linear"), aStr("coordinate_transformation_mode", "half_pixel")}
	run := func() *tensor.Tensor { return mustRun(t, 18, "Resize", attrs, x, nil, nil, i64(2, 3, 11, 13)) }
	sameBits(t, "sizes", run(), run)
}

// sameBits compares fast, the plane path's result, with gen run on the
// generic path, bit for bit.
func sameBits(t *testing.T, c any, fast *tensor.Tensor, gen func() *tensor.Tensor) {
	t.Helper()
	resample.SetForceGeneric(true)
	g := gen()
	resample.SetForceGeneric(false)
	if !sameShape(fast.Shape(), g.Shape()) {
		t.Fatalf("%v: shape %v, generic %v", c, fast.Shape(), g.Shape())
	}
	for i, v := range fast.F32() {
		if math.Float32bits(v) != math.Float32bits(g.F32()[i]) {
			t.Fatalf("%v: element %d is %v, generic %v", c, i, v, g.F32()[i])
		}
	}
}

// TestPlanesFastScope checks the cases the plane path must leave alone.
func TestPlanesFastScope(t *testing.T) {
	x := iota32(2, 3, 5, 7)
	if resample.PlanesFast(x, plansFor(t, x, []float32{1, 2, 2, 2}, "linear"), resample.Linear) {
		t.Error("a resampled channel axis took the plane path")
	}
	if resample.PlanesFast(x, plansFor(t, x, []float32{1, 1, 2, 2}, "nearest"), resample.Nearest) {
		t.Error("nearest took the plane path")
	}
	d := tensor.New(tensor.Double, 2, 3, 5, 7)
	if resample.PlanesFast(d, plansFor(t, x, []float32{1, 1, 2, 2}, "linear"), resample.Linear) {
		t.Error("float64 took the plane path")
	}
}

func modeOf(s string) resample.Mode {
	switch s {
	case "linear":
		return resample.Linear
	case "cubic":
		return resample.Cubic
	}
	return resample.Nearest
}

// plansFor builds the per-axis plans of scales on x (half_pixel).
func plansFor(t *testing.T, x *tensor.Tensor, scales []float32, mode string) []*resample.AxisPlan {
	t.Helper()
	specs := make([]resample.AxisSpec, x.Rank())
	for d, n := range x.Shape() {
		specs[d] = resample.AxisSpec{In: n, Out: int(float32(n) * scales[d]), Scale: float64(scales[d])}
	}
	plans, err := resample.PlanAll(specs, resample.Options{Mode: modeOf(mode)})
	if err != nil {
		t.Fatal(err)
	}
	return plans
}

// BenchmarkResizeLinear2x is U²-Net's largest Resize scaled down: linear
// half_pixel, 16×128×128 → 16×256×256 (model build included).
func BenchmarkResizeLinear2x(b *testing.B) {
	x := iota32(1, 16, 128, 128)
	attrs := []*pb.AttributeProto{aStr("mode", "linear"), aStr("coordinate_transformation_mode", "half_pixel")}
	for b.Loop() {
		if _, err := runOp(13, "Resize", attrs, x, nil, nil, i64(1, 16, 256, 256)); err != nil {
			b.Fatal(err)
		}
	}
}
