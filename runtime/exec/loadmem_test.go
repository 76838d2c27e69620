package exec_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/gort-dev/gort"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestLoadMemory: loading a float32 model adds at most the weights' packed
// copies to the file itself: the weights are read in place from the file's
// bytes (no decoded copy), and the GEMM kernels pack them once (one copy,
// 1.0× for a model of MatMul weights). Known gap: the bar is a peak
// below 1.5× the file, which needs kernels that read weights in place too.
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
