package exec_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/gort-dev/gort"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestLoadMemory: loading a float32 model of MatMul weights adds almost
// nothing to the file itself: the weights are read in place from the file's
// bytes (no decoded copy), and at batch 1 the GEMM reads a constant B in
// place too (kernels.SgemvB), packing nothing.
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
	s, allocated := loadCountingAllocs(t, data)
	extra := float64(allocated)
	t.Logf("file %d bytes; Load allocated %.0f bytes (%.2f× the file)", len(data), extra, extra/float64(len(data)))
	if extra > 0.25*float64(len(data)) {
		t.Errorf("Load allocated %.2f× the file size; the bound is 0.25× (bookkeeping, no copy of the weights)", extra/float64(len(data)))
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
// (16/9 of their weights). Fully connected layers: TestLoadPeakFC.
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
	s := loadBelowFileAndAHalf(t, data)
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

// TestLoadPeakFC is the bar (TestLoadPeakConv) on a model of fully
// connected layers at batch 1, 35 MB of weights: Gemm with B n×k (transB,
// the usual export) and k×n, and MatMul, all with constant B. At batch 1
// the GEMM reads B where the file holds it (kernels.SgemvB) instead of
// packing it at load, which made such models peak at 2× the file. The model
// is then run, and must give the naive product.
func TestLoadPeakFC(t *testing.T) {
	const k0, n0, n1, n2 = 2048, 2048, 1536, 1024
	m := tm.New(13)
	m.Input("x", tensor.Float, 1, k0)
	fill := func(w *tensor.Tensor, seed int) {
		for j := range w.F32() {
			w.F32()[j] = float32((seed+j)%61-30) / 512
		}
	}
	w0 := tensor.New(tensor.Float, n0, k0) // Gemm, transB: n×k
	w1 := tensor.New(tensor.Float, n0, n1) // Gemm: k×n
	w2 := tensor.New(tensor.Float, n1, n2) // MatMul: k×n
	bias := tensor.New(tensor.Float, n0)
	fill(w0, 1)
	fill(w1, 2)
	fill(w2, 3)
	fill(bias, 4)
	m.Init("w0", w0)
	m.Init("w1", w1)
	m.Init("w2", w2)
	m.Init("b0", bias)
	m.Node("Gemm", []string{"x", "w0", "b0"}, []string{"h0"}, tm.Int("transB", 1))
	m.Node("Relu", []string{"h0"}, []string{"r0"})
	m.Node("Gemm", []string{"r0", "w1"}, []string{"h1"})
	m.Node("MatMul", []string{"h1", "w2"}, []string{"y"})
	m.Output("y", tensor.Float, 1, n2)
	data := m.Bytes()
	if len(data) < 32<<20 {
		t.Fatalf("the model has %d bytes, the test wants ≥ 32 MB of weights", len(data))
	}
	s := loadBelowFileAndAHalf(t, data)
	// The run: a naive float64 reference.
	x := tensor.New(tensor.Float, 1, k0)
	fill(x, 5)
	xs := make([]float64, k0)
	for i, v := range x.F32() {
		xs[i] = float64(v)
	}
	layer := func(in []float64, w []float32, k, n int, trans bool, b []float32, relu bool) []float64 {
		out := make([]float64, n)
		for j := range out {
			for p := 0; p < k; p++ {
				wv := w[p*n+j]
				if trans {
					wv = w[j*k+p]
				}
				out[j] += in[p] * float64(wv)
			}
			if b != nil {
				out[j] += float64(b[j])
			}
			if relu {
				out[j] = max(out[j], 0)
			}
		}
		return out
	}
	want := layer(layer(layer(xs, w0.F32(), k0, n0, true, bias.F32(), true), w1.F32(), n0, n1, false, nil, false), w2.F32(), n1, n2, false, nil, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": x})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(data))/10 {
		t.Errorf("the batch-1 run allocated %d bytes: it packed weights", grew)
	}
	got := out["y"].(*tensor.Tensor).F32()
	for j, w := range want {
		if d := math.Abs(float64(got[j]) - w); d > 1e-3*(1+math.Abs(w)) {
			t.Fatalf("y[%d] = %v, want %v", j, got[j], w)
		}
	}
	runtime.KeepAlive(s)
}

// loadCountingAllocs loads data with the collector off (so nothing Load
// allocates is reused: an upper bound on its heap's peak) and returns the
// session and the bytes Load allocated.
func loadCountingAllocs(t *testing.T, data []byte) (*gort.Session, uint64) {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := gort.Load(data, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return s, after.TotalAlloc - before.TotalAlloc
}

// loadBelowFileAndAHalf loads data and fails the test unless the file's
// bytes (which the caller holds and the session reads its weights from)
// plus everything Load allocated stay below 1.5× the file: the bar.
func loadBelowFileAndAHalf(t *testing.T, data []byte) *gort.Session {
	t.Helper()
	s, allocated := loadCountingAllocs(t, data)
	peak := float64(len(data)) + float64(allocated)
	t.Logf("file %d bytes; file + Load's allocations %.0f bytes (%.2f× the file)", len(data), peak, peak/float64(len(data)))
	if peak >= 1.5*float64(len(data)) {
		t.Errorf("loading peaks at %.2f× the file size; the bar is below 1.5×", peak/float64(len(data)))
	}
	return s
}
