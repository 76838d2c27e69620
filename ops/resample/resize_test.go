package resample_test

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/resample"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The output-size rule: floor(input * scale) with the float32 scale's exact
// value, in every version: 5 x 1.799 = 8.995 -> 8 (not rounded to 9).
func TestOutputSizeFloor(t *testing.T) {
	x := iota32(2, 5)
	for _, tc := range []struct {
		op    string
		opset int64
		attrs []*pb.AttributeProto
		ins   []in
	}{
		{"Upsample", 7, []*pb.AttributeProto{aFloats("scales", 1, 1.799)}, []in{x}},
		{"Upsample", 9, nil, []in{x, vec(1, 1.799)}},
		{"Resize", 10, nil, []in{x, vec(1, 1.799)}},
		{"Resize", 11, nil, []in{x, empty(), vec(1, 1.799)}},
		{"Resize", 13, nil, []in{x, nil, vec(1, 1.799)}},
		{"Resize", 19, nil, []in{x, nil, vec(1, 1.799)}},
		{"Resize", 19, []*pb.AttributeProto{aInts("axes", 1)}, []in{x, nil, vec(1.799)}},
	} {
		y := mustRun(t, tc.opset, tc.op, tc.attrs, tc.ins...)
		checkShape(t, y, 2, 8)
	}
}

// At output length 1 the coordinate modes differ: half_pixel samples the
// middle (x_original = 0.5*4 - 0.5 = 1.5), pytorch_half_pixel and
// align_corners the first element (x_original = 0).
func TestCoordModesAtOutputOne(t *testing.T) {
	x := f32([]int{2, 4}, 0, 1, 2, 3, 10, 20, 30, 40)
	for _, tc := range []struct {
		mode, coord string
		want        []float32
	}{
		{"linear", "half_pixel", []float32{1.5, 25}},
		{"linear", "half_pixel_symmetric", []float32{1.5, 25}},
		{"linear", "pytorch_half_pixel", []float32{0, 10}},
		{"linear", "align_corners", []float32{0, 10}},
		{"linear", "asymmetric", []float32{0, 10}},
		{"cubic", "pytorch_half_pixel", []float32{0, 10}},
		{"cubic", "align_corners", []float32{0, 10}},
		{"nearest", "half_pixel", []float32{1, 20}}, // 1.5 rounds half down
	} {
		y := mustRun(t, 19, "Resize", []*pb.AttributeProto{aStr("mode", tc.mode), aStr("coordinate_transformation_mode", tc.coord)},
			x, nil, nil, i64(2, 1))
		checkShape(t, y, 2, 1)
		checkF32(t, y, tc.want...)
	}
}

// Nearest modes at exact ties: half_pixel 4 -> 2 gives x_original 0.5 and 2.5.
func TestNearestModesAtHalf(t *testing.T) {
	x := f32([]int{1, 4}, 10, 20, 30, 40)
	for _, tc := range []struct {
		mode string
		want []float32
	}{
		{"round_prefer_floor", []float32{10, 30}},
		{"round_prefer_ceil", []float32{20, 40}},
		{"floor", []float32{10, 30}},
		{"ceil", []float32{20, 40}},
	} {
		y := mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("nearest_mode", tc.mode)}, x, nil, nil, i64(1, 2))
		checkF32(t, y, tc.want...)
	}
}

// Asymmetric shapes, N>1 and C>1, every mode: compare with a direct,
// non-separable evaluation of the spec formulas.
func TestResizeMatchesDirectFormula(t *testing.T) {
	x := iota32(2, 3, 4, 5)
	for _, v := range x.F32() {
		_ = v
	}
	for i, v := range x.F32() {
		x.F32()[i] = float32(math.Sin(float64(v)*0.7) * 10)
	}
	type cfg struct {
		mode, coord string
		excl        int64
		scales      []float32
	}
	for _, c := range []cfg{
		{"linear", "half_pixel", 0, []float32{1, 1, 1.7, 0.6}},
		{"cubic", "align_corners", 0, []float32{1, 1, 0.8, 2.3}},
		{"cubic", "asymmetric", 1, []float32{1, 1, 2.5, 0.9}},
		{"nearest", "pytorch_half_pixel", 0, []float32{1.5, 0.7, 1.3, 0.5}},
	} {
		y := mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("mode", c.mode), aStr("coordinate_transformation_mode", c.coord), aInt("exclude_outside", c.excl)},
			x, nil, vec(c.scales...))
		want := directResize(x, c.scales, c.mode, c.coord, c.excl != 0)
		if !sameShape(y.Shape(), want.Shape()) {
			t.Fatalf("%v: shape %v, want %v", c, y.Shape(), want.Shape())
		}
		checkF32(t, y, want.F32()...)
	}
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// directResize evaluates every output element as the full tensor product of
// per-axis 1-D weights, computed from the spec text without the plan code.
func directResize(x *tensor.Tensor, scales []float32, mode, coord string, excl bool) *tensor.Tensor {
	in := x.Shape()
	r := len(in)
	out := make([]int, r)
	for d := range in {
		out[d] = int(math.Floor(float64(in[d]) * float64(scales[d])))
	}
	y := tensor.New(tensor.Float, out...)
	cub := func(t float64) float64 {
		a := -0.75
		t = math.Abs(t)
		if t <= 1 {
			return (a+2)*t*t*t - (a+3)*t*t + 1
		}
		if t < 2 {
			return a*t*t*t - 5*a*t*t + 8*a*t - 4*a
		}
		return 0
	}
	weights := func(d, o int) map[int]float64 {
		s := float64(scales[d])
		lr := float64(in[d]) * s
		var c float64
		switch coord {
		case "half_pixel":
			c = (float64(o)+0.5)/s - 0.5
		case "pytorch_half_pixel":
			if out[d] > 1 {
				c = (float64(o)+0.5)/s - 0.5
			}
		case "align_corners":
			if o > 0 {
				c = float64(o) * float64(in[d]-1) / (lr - 1)
			}
		case "asymmetric":
			c = float64(o) / s
		}
		w := map[int]float64{}
		clamp := func(i int) int { return min(max(i, 0), in[d]-1) }
		switch mode {
		case "nearest":
			w[clamp(int(math.Ceil(c-0.5)))] = 1
		case "linear":
			f := math.Floor(c)
			w[clamp(int(f))] += 1 - (c - f)
			w[clamp(int(f)+1)] += c - f
		case "cubic":
			f := math.Floor(c)
			raw := map[int]float64{}
			sum := 0.0
			for k := -1; k <= 2; k++ {
				i := int(f) + k
				wt := cub(c - float64(i))
				if excl && (i < 0 || i >= in[d]) {
					continue
				}
				raw[i] += wt
				sum += wt
			}
			for i, wt := range raw {
				if excl {
					wt /= sum
				}
				w[clamp(i)] += wt
			}
		}
		return w
	}
	per := make([][]map[int]float64, r)
	for d := range per {
		per[d] = make([]map[int]float64, out[d])
		for o := range per[d] {
			per[d][o] = weights(d, o)
		}
	}
	idx := make([]int, r)
	for i := range y.F32() {
		var rec func(d, off int, w float64) float64
		rec = func(d, off int, w float64) float64 {
			if d == r {
				return w * float64(x.F32()[off])
			}
			s := 0.0
			for j, wt := range per[d][idx[d]] {
				s += rec(d+1, off*in[d]+j, w*wt)
			}
			return s
		}
		y.F32()[i] = float32(rec(0, 0, 1))
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < out[d] {
				break
			}
			idx[d] = 0
		}
	}
	return y
}

// tf_crop_and_resize with an extrapolation value, roi over chosen axes
// (Resize-18 axes), and an int input in nearest mode.
func TestCropAndResizeExtrapolation(t *testing.T) {
	x := iota32(1, 1, 3, 4)
	// roi on axes [3]: start -0.5, end 1; sizes 4: x_original = -1.5 + x*1.5*3/3
	y := mustRun(t, 18, "Resize", []*pb.AttributeProto{aStr("coordinate_transformation_mode", "tf_crop_and_resize"),
		aStr("mode", "linear"), aFloat("extrapolation_value", -7), aInts("axes", 3)},
		x, vec(-0.5, 1), nil, i64(4))
	checkShape(t, y, 1, 1, 3, 4)
	// coordinates -1.5, 0, 1.5, 3 -> extrapolated, 0, 1.5, 3 on each row
	checkF32(t, y, -7, 0, 1.5, 3, -7, 4, 5.5, 7, -7, 8, 9.5, 11)
}

// keep_aspect_ratio_policy: sizes [3, 3] on 2x4: not_larger takes scale
// min(3/2, 3/4) = 0.75 -> [round(1.5), 3] = [2, 3]; not_smaller 1.5 -> [3, 6].
func TestKeepAspectRatio(t *testing.T) {
	x := iota32(2, 4)
	y := mustRun(t, 18, "Resize", []*pb.AttributeProto{aStr("keep_aspect_ratio_policy", "not_larger")}, x, nil, nil, i64(3, 3))
	checkShape(t, y, 2, 3)
	y = mustRun(t, 18, "Resize", []*pb.AttributeProto{aStr("keep_aspect_ratio_policy", "not_smaller")}, x, nil, nil, i64(3, 3))
	checkShape(t, y, 3, 6)
}

// Every dtype moves through nearest mode; strings too.
func TestNearestStrings(t *testing.T) {
	x := tensor.Of([]int{1, 2}, []string{"a", "b"})
	y := mustRun(t, 13, "Resize", nil, x, nil, vec(1, 2))
	got := y.Strings()
	if len(got) != 4 || got[0] != "a" || got[1] != "a" || got[2] != "b" || got[3] != "b" {
		t.Fatalf("got %v", got)
	}
}

// Plan invariants: indices in range, antialias weights normalised.
func TestPlanAxisInvariants(t *testing.T) {
	for _, mode := range []resample.Mode{resample.Linear, resample.Cubic} {
		for _, in := range []int{1, 2, 7, 20} {
			for _, out := range []int{1, 3, 8, 41} {
				p, err := resample.PlanAxis(resample.AxisSpec{In: in, Out: out, Scale: float64(out) / float64(in), Ratio: true},
					resample.Options{Mode: mode, CubicA: -0.75, Antialias: true})
				if err != nil {
					t.Fatal(err)
				}
				for o := 0; o < out; o++ {
					s := 0.0
					for k := 0; k < p.Taps; k++ {
						if i := p.Index[o*p.Taps+k]; i < 0 || int(i) >= in {
							t.Fatalf("index %d out of [0,%d)", i, in)
						}
						s += p.Weight[o*p.Taps+k]
					}
					if math.Abs(s-1) > 1e-12 {
						t.Fatalf("mode %d %d->%d: weights of %d sum to %v", mode, in, out, o, s)
					}
				}
			}
		}
	}
}

func TestResizeErrors(t *testing.T) {
	x := iota32(2, 2)
	for name, ins := range map[string][]in{
		"both scales and sizes": {x, nil, vec(1, 2), i64(2, 4)},
		"neither":               {x, nil, nil, nil},
		"wrong count":           {x, nil, vec(2)},
		"zero scale":            {x, nil, vec(1, 0)},
	} {
		if _, err := runOp(13, "Resize", nil, ins...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := runOp(9, "Upsample", nil, x, vec(1, 0.5)); err == nil {
		t.Errorf("Upsample with scale < 1: no error")
	}
}
