package exec_test

import (
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/gort-dev/gort"
	"github.com/gort-dev/gort/runtime/tensor"
)

// steadyBytes loads a bench model and returns the bytes and allocations
// one run costs once the buffer pool is warm.
func steadyBytes(t *testing.T, path string) (bytesPerRun, allocsPerRun float64, steps int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gort.Load(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := s.Inputs()[0]
	shape := make([]int, len(in.Type.Shape))
	for i, d := range in.Type.Shape {
		shape[i] = int(d.Value)
	}
	feeds := map[string]tensor.Value{in.Name: tensor.New(tensor.Float, shape...)}
	run := func() {
		if _, err := s.Run(context.Background(), feeds); err != nil {
			t.Fatal(err)
		}
	}
	// One P, as in WebAssembly: kernels keep their scratch in sync.Pools,
	// whose caches are per P, and a goroutine that moved to another P under
	// a loaded machine would miss its cache and allocate anew.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	run()
	run()
	// Kernels keep their scratch in sync.Pools, which every collection
	// empties: with the collector off, the runs below show what a run
	// itself allocates (after a collection, each kernel refills its
	// scratch once).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// The least of five windows: other goroutines of the test binary (and
	// a collection that was already under way) can add to a window.
	const runs = 3
	bytesPerRun, allocsPerRun = math.Inf(1), math.Inf(1)
	for w := 0; w < 5; w++ {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < runs; i++ {
			run()
		}
		runtime.ReadMemStats(&after)
		bytesPerRun = min(bytesPerRun, float64(after.TotalAlloc-before.TotalAlloc)/runs)
		allocsPerRun = min(allocsPerRun, float64(after.Mallocs-before.Mallocs)/runs)
	}
	return bytesPerRun, allocsPerRun, len(s.Plan().Steps)
}

// TestSteadyStateAllocations: once the pool is warm, a run allocates a
// fixed handful of objects whatever the model's size: its own bookkeeping
// (the runner, the value slots, the result map) and each output's fresh
// buffer and header. Steps allocate nothing: the executor reuses its
// argument slices and Context, kernels return results through Context.One,
// and tensor headers come back with their recycled buffers (op.Headers).
// The models span 39 to 246 steps with one bound, so a bound that grew with
// the steps would fail. SqueezeNet's activations are megabytes per run; a
// run that allocated even one of them would fail. Inception v2's and
// DenseNet's values come in many sizes, which the pool also serves from
// buffers up to twice as large: that reuse must settle after one run.
// ShuffleNet's channel shuffles (Reshape, Transpose) make views and
// strided copies.
func TestSteadyStateAllocations(t *testing.T) {
	const maxAllocs, maxBytes = 32, 48 << 10
	for _, m := range []string{"test_squeezenet", "test_inception_v2", "test_shufflenet", "test_densenet121"} {
		b, a, steps := steadyBytes(t, "../../testdata/bench/"+m+"/model.onnx")
		t.Logf("%s: %.0f bytes, %.0f allocations per run, %d steps", m, b, a, steps)
		if b > maxBytes {
			t.Errorf("%s: a steady-state run allocates %.0f bytes; the bound is %d", m, b, maxBytes)
		}
		if a > maxAllocs {
			t.Errorf("%s: a steady-state run makes %.0f allocations; the bound is %d", m, a, maxAllocs)
		}
	}
}
