package exec_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/gort-dev/gort"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestLoadMemory: loading a float32 model of MatMul weights adds at most
// one packed copy of the weights to the file itself: the weights are read in
// place from the file's bytes (no decoded copy), and the GEMM packs a
// constant B once (its few-row GEMV path reads the packed panels). Known
// gap: with the file that is 2× the file, above the 1.5× bar
// (TestLoadPeakConv), which MatMul and Gemm meet only once they read B in
// place.
func TestLoadMemory(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 1024)
	for i, name := range []string{"w1", "w2", "w3", "w4"} {
		w := tensor.New(tensor.Float, 1024, 1024)
		for j := range w.F32() {
			w.F32()[j] = float32(i*j%97) / 97
		}
		m.Init(name, w)
	}
	m.Node("MatMul", []string{"x", "w1"}, []string{"a"})
	m.Node("MatMul", []string{"a", "w2"}, []string{"b"})
	m.Node("MatMul", []string{"b", "w3"}, []string{"c"})
	m.Node("MatMul", []string{"c", "w4"}, []string{"y"})
	m.Output("y", tensor.Float, 1024)
	data := m.Bytes()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := gort.Load(data, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	extra := float64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("file %d bytes; Load allocated %.0f bytes (%.2f× the file)", len(data), extra, extra/float64(len(data)))
	if extra > 1.25*float64(len(data)) {
		t.Errorf("Load allocated %.2f× the file size; the bound is 1.25× (one packed copy of the weights, and bookkeeping)", extra/float64(len(data)))
	}
	runtime.KeepAlive(s)
}

// TestLoadPeakConv is the issue's bar, "loading a float32 model peaks below
// 1.5× its file size", on a model of convolutions with large weights. The
// peak counted is the file's bytes, which the caller holds and the session
// reads its weights from, plus everything Load allocates (the collector is
// off, so nothing allocated is reused: an upper bound on the heap's peak).
// The convolutions read their weights in place (the GEMM packs them block by
// block on each run), so Load adds little beyond bookkeeping. Not covered:
// 3×3 unit-stride layers with ≥ 64 channels keep their Winograd transform
// (16/9 of their weights), and MatMul/Gemm their packed B (TestLoadMemory).
func TestLoadPeakConv(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 1, 256, 14, 12)
	layers := []struct {
		in, out, k, stride int64
	}{
		{256, 1024, 1, 1}, {1024, 256, 1, 1}, {256, 512, 3, 2}, {512, 512, 5, 1}, {512, 2048, 1, 1},
	}
	prev := "x"
	for i, l := range layers {
		w := tensor.New(tensor.Float, int(l.out), int(l.in), int(l.k), int(l.k))
		for j := range w.F32() {
			w.F32()[j] = float32((i+j)%89) / 89
		}
		wn, y := fmt.Sprintf("w%d", i), fmt.Sprintf("y%d", i)
		m.Init(wn, w)
		p := l.k / 2
		m.Node("Conv", []string{prev, wn}, []string{y}, tm.Ints("strides", l.stride, l.stride), tm.Ints("pads", p, p, p, p))
		prev = y
	}
	m.Node("Relu", []string{prev}, []string{"y"})
	m.Output("y", tensor.Float, 1, 2048, 7, 6)
	data := m.Bytes()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := gort.Load(data, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	peak := float64(len(data)) + float64(after.TotalAlloc-before.TotalAlloc)
	t.Logf("file %d bytes; file + Load's allocations %.0f bytes (%.2f× the file)", len(data), peak, peak/float64(len(data)))
	if peak >= 1.5*float64(len(data)) {
		t.Errorf("loading peaks at %.2f× the file size; the bar is below 1.5×", peak/float64(len(data)))
	}
	runtime.KeepAlive(s)
}

// TestLoadKeepsWeightsOnce: ResNet-50 (testdata/bench, whose weights
// ConstantOfShape builds at load, so the session owns them) keeps its
// weights about once: BatchNormalization folding rescales them in place,
// the 1×1 and strided convolutions read them in place, and the
// Winograd-transformed 3×3 filters and the Gemm's packed B replace the
// constants they came from (op.ConstReleaser). Before, the session held the
// weights 3.2 times (folded, BatchNormalization-folded, packed). The bound
// leaves the Winograd form's 16/9 of the 3×3 filters.
func TestLoadKeepsWeightsOnce(t *testing.T) {
	data, err := os.ReadFile("../../testdata/bench/test_resnet50/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := gort.Load(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// The weights: what the ConstantOfShape nodes build.
	g := s.Model().Graph
	var weights int64
	for _, n := range g.Nodes {
		if n.OpType == "ConstantOfShape" {
			if shape := g.Initializers[n.Inputs[0]]; shape != nil {
				size := int64(4)
				for _, d := range shape.I64() {
					size *= d
				}
				weights += size
			}
		}
	}
	kept := float64(after.HeapInuse) - float64(before.HeapInuse)
	t.Logf("weights %.1f MiB; the session keeps %.1f MiB (%.2f×)", float64(weights)/(1<<20), kept/(1<<20), kept/float64(weights))
	if kept > 1.4*float64(weights) {
		t.Errorf("the session keeps %.2f× the weights; the bound is 1.4×", kept/float64(weights))
	}
	runtime.KeepAlive(s)
}
