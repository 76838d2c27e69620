//go:build js && wasm

package webgpu_test

import (
	"fmt"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

var (
	resizeModes    = []string{"nearest", "linear", "cubic"}
	coordModes     = []string{"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"}
	nearestModes   = []string{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}
	resizeScales   = []float32{0.34, 0.5, 0.6, 0.75, 1, 1.3, 1.5, 1.799, 2, 2.5, 3}
	upsampleScales = []float32{1, 1.5, 2, 2.7, 3}
)

// randomResize builds one Resize (or Upsample) model and says whether
// its output must match bit for bit (nearest mode).
func randomResize(r *rng) (*graphModel, bool, string) {
	rank := 1 + r.intn(4)
	if r.intn(2) == 0 {
		rank = 4
	}
	shape := make([]int, rank)
	for i := range shape {
		shape[i] = 1 + r.intn(7)
	}
	x := r.tensor(shape...)
	if r.intn(8) == 0 { // signed zeros must survive nearest mode
		x.F32()[0] = float32(negZero())
	}
	if r.intn(8) == 0 { // the legacy op
		g := newModel(9)
		mode := []string{"nearest", "linear"}[r.intn(2)]
		sc := make([]float32, rank)
		for i := range sc {
			sc[i] = upsampleScales[r.intn(len(upsampleScales))]
		}
		g.feed("x", x).init("scales", tensor.Of([]int{rank}, sc))
		g.node("Upsample", []string{"x", "scales"}, []string{"y"}, aStr("mode", mode))
		return g.output("y"), mode == "nearest", fmt.Sprintf("Upsample-9 x=%v mode=%s scales=%v", shape, mode, sc)
	}
	opset := []int64{11, 13, 19, 19, 19}[r.intn(5)]
	g := newModel(opset)
	mode := resizeModes[r.intn(3)]
	cm := coordModes[r.intn(len(coordModes))]
	attrs := []*pb.AttributeProto{aStr("mode", mode), aStr("coordinate_transformation_mode", cm),
		aStr("nearest_mode", nearestModes[r.intn(4)])}
	if mode == "cubic" {
		attrs = append(attrs, aFloat("cubic_coeff_a", []float32{-0.75, -0.5, -0.6}[r.intn(3)]))
	}
	if r.intn(3) == 0 {
		attrs = append(attrs, aInt("exclude_outside", 1))
	}
	axes := make([]int, rank)
	for i := range axes {
		axes[i] = i
	}
	if opset >= 18 {
		if r.intn(3) == 0 && mode != "nearest" {
			attrs = append(attrs, aInt("antialias", 1))
		}
		if r.intn(3) == 0 && rank > 1 { // the last axes, in either order
			k := 1 + r.intn(rank-1)
			axes = axes[rank-k:]
			if r.intn(2) == 0 {
				for i, j := 0, len(axes)-1; i < j; i, j = i+1, j-1 {
					axes[i], axes[j] = axes[j], axes[i]
				}
			}
			attrs = append(attrs, aInts("axes", int64s(axes)...))
		}
	}
	g.feed("x", x)
	constIn := r.intn(2) == 0
	add := func(name string, t *tensor.Tensor) {
		if constIn {
			g.init(name, t)
		} else {
			g.feed(name, t)
		}
	}
	in := []string{"x", "", ""}
	if cm == "tf_crop_and_resize" {
		roi := make([]float32, 2*len(axes))
		for i := range axes {
			roi[i] = float32(r.intn(5)) / 10
			roi[len(axes)+i] = 0.6 + float32(r.intn(7))/10
		}
		add("roi", tensor.Of([]int{len(roi)}, roi))
		in[1] = "roi"
		attrs = append(attrs, aFloat("extrapolation_value", float32(r.intn(100))/7))
	} else if opset < 13 {
		add("roi", tensor.New(tensor.Float, 0))
		in[1] = "roi"
	}
	desc := ""
	if r.intn(2) == 0 {
		sc := make([]float32, len(axes))
		for i := range sc {
			sc[i] = resizeScales[r.intn(len(resizeScales))]
		}
		add("scales", tensor.Of([]int{len(sc)}, sc))
		in[2] = "scales"
		desc = fmt.Sprintf("scales=%v", sc)
	} else {
		sz := make([]int64, len(axes))
		for i := range sz {
			sz[i] = int64(1 + r.intn(12))
		}
		if opset < 13 {
			add("scales", tensor.New(tensor.Float, 0))
			in[2] = "scales"
		}
		add("sizes", tensor.Of([]int{len(sz)}, sz))
		in = append(in, "sizes")
		desc = fmt.Sprintf("sizes=%v", sz)
		if opset >= 18 && r.intn(3) == 0 {
			p := []string{"not_larger", "not_smaller"}[r.intn(2)]
			attrs = append(attrs, aStr("keep_aspect_ratio_policy", p))
		}
	}
	g.node("Resize", in, []string{"y"}, attrs...)
	return g.output("y"), mode == "nearest", fmt.Sprintf("Resize-%d x=%v %s const=%v%s", opset, shape, desc, constIn, attrText(attrs))
}

func negZero() float64 {
	z := 0.0
	return -z
}

func TestRandomResize(t *testing.T) {
	r := &rng{s: 0x2545f4914f6cdd1d}
	failed, done, skipped := 0, 0, 0
	for i := 0; done < configs() && failed < 5; i++ {
		g, exact, desc := randomResize(r)
		cpu, err := runModel(g, false)
		if err != nil {
			if i > 20*configs() {
				t.Fatalf("too many invalid configurations: %v", err)
			}
			skipped++
			continue // a configuration the op rejects (a size of 0, say)
		}
		done++
		gpu, err := runModel(g, true)
		if err != nil {
			t.Errorf("config %d (%s): %v", i, desc, err)
			failed++
			continue
		}
		if off := gpu.offGPU(); off != "" {
			t.Errorf("config %d (%s): not on the device: %s", i, desc, off)
			failed++
			continue
		}
		var d string
		if exact {
			d = bitExact(gpu.out["y"], cpu.out["y"])
		} else {
			d = closeEnough(gpu.out["y"], cpu.out["y"], 1e-5, 1e-4)
		}
		if d != "" {
			t.Errorf("config %d (%s): %s", i, desc, d)
			failed++
		}
	}
	t.Logf("%d configurations compared (%d generated)", done, done+skipped)
}
