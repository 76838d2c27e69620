//go:build js && wasm

package webgpu_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestOpTimes prints per-op run times with WebGPU placement and on the
// CPU (Go compiled to wasm, one thread) in the same host. It is a
// measurement, not a check, and runs only with GORT_WEBGPU_BENCH=1
// (GORT_WEBGPU_RUNS sets the number of timed runs). On SwiftShader the
// "GPU" is the CPU running Vulkan in software: the figures say nothing
// about GPU speed. The small Relu shows the fixed cost of a device round
// trip (upload, submit, read-back), which the cost rule weighs.
func TestOpTimes(t *testing.T) {
	if os.Getenv("GORT_WEBGPU_BENCH") == "" {
		t.Skip("set GORT_WEBGPU_BENCH=1 to measure")
	}
	r := &rng{s: 5}
	cases := []struct {
		name  string
		build func() *graphModel
	}{
		{"Conv 3x3 1x32x56x56 -> 32", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 32, 56, 56)).init("w", r.tensor(32, 32, 3, 3)).init("b", r.tensor(32)).
				node("Conv", []string{"x", "w", "b"}, []string{"y"}, aInts("pads", 1, 1, 1, 1)).output("y")
		}},
		{"Conv 1x1 1x64x56x56 -> 64", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 64, 56, 56)).init("w", r.tensor(64, 64, 1, 1)).
				node("Conv", []string{"x", "w"}, []string{"y"}).output("y")
		}},
		{"Conv depthwise 3x3 1x64x56x56", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 64, 56, 56)).init("w", r.tensor(64, 1, 3, 3)).
				node("Conv", []string{"x", "w"}, []string{"y"}, aInt("group", 64), aInts("pads", 1, 1, 1, 1)).output("y")
		}},
		{"ConvTranspose 4x4/2 1x32x28x28 -> 16", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 32, 28, 28)).init("w", r.tensor(32, 16, 4, 4)).
				node("ConvTranspose", []string{"x", "w"}, []string{"y"}, aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1)).output("y")
		}},
		{"Resize linear x2 1x32x56x56", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 32, 56, 56)).init("s", tensor.Of([]int{4}, []float32{1, 1, 2, 2})).
				node("Resize", []string{"x", "", "s"}, []string{"y"}, aStr("mode", "linear")).output("y")
		}},
		{"Resize nearest x2 1x32x56x56", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 32, 56, 56)).init("s", tensor.Of([]int{4}, []float32{1, 1, 2, 2})).
				node("Resize", []string{"x", "", "s"}, []string{"y"}, aStr("mode", "nearest")).output("y")
		}},
		{"MaxPool 3x3/2 1x64x112x112", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 64, 112, 112)).
				node("MaxPool", []string{"x"}, []string{"y"}, aInts("kernel_shape", 3, 3), aInts("strides", 2, 2), aInts("pads", 1, 1, 1, 1)).output("y")
		}},
		{"Add broadcast 1x64x56x56 + 1x64x1x1", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 64, 56, 56)).init("b", r.tensor(1, 64, 1, 1)).
				node("Add", []string{"x", "b"}, []string{"y"}).output("y")
		}},
		{"Relu 1x1x64x64 (4096 elements: the round-trip floor)", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 1, 64, 64)).node("Relu", []string{"x"}, []string{"y"}).output("y")
		}},
		{"Conv+Relu+MaxPool+Resize+Concat segment", func() *graphModel {
			return newModel(19).feed("x", r.tensor(1, 32, 56, 56)).init("w", r.tensor(32, 32, 3, 3)).
				init("s", tensor.Of([]int{4}, []float32{1, 1, 2, 2})).
				node("Conv", []string{"x", "w"}, []string{"c"}, aInts("pads", 1, 1, 1, 1)).
				node("Relu", []string{"c"}, []string{"r"}).
				node("MaxPool", []string{"r"}, []string{"p"}, aInts("kernel_shape", 2, 2), aInts("strides", 2, 2)).
				node("Resize", []string{"p", "", "s"}, []string{"u"}, aStr("mode", "linear")).
				node("Concat", []string{"u", "r"}, []string{"y"}, aInt("axis", 1)).output("y")
		}},
	}
	fmt.Printf("WebGPU per-op times on %s; median of %d runs after a warm-up, uploads and read-back included\n", acc.Info(), benchRuns(5))
	fmt.Println("(tiled: the tiled matrix product and implicit-GEMM Conv, what hardware adapters use; simple: the per-element kernels, what software adapters use)")
	fmt.Println("| op | WebGPU tiled (ms) | WebGPU simple (ms) | CPU wasm (ms) |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, c := range cases {
		g := c.build()
		var row []float64
		for _, dev := range []*webgpu.Accelerator{accTiled, accSimple, nil} {
			d, err := medianRun(g, dev, benchRuns(5))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			row = append(row, ms(d))
		}
		fmt.Printf("| %s | %.2f | %.2f | %.2f |\n", c.name, row[0], row[1], row[2])
	}
}

// benchRuns is the number of timed runs: GORT_WEBGPU_RUNS, else def.
func benchRuns(def int) int {
	if n, err := strconv.Atoi(os.Getenv("GORT_WEBGPU_RUNS")); err == nil && n > 0 {
		return n
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// medianRun loads g (on dev, or on the CPU when dev is nil), runs it once
// to warm the pools and returns the median of runs timed runs.
func medianRun(g *graphModel, dev *webgpu.Accelerator, runs int) (time.Duration, error) {
	opts := &runtime.Options{}
	if dev != nil {
		opts.Accelerator = dev
	}
	s, err := runtime.Load(g.bytes(), opts)
	if err != nil {
		return 0, err
	}
	feeds := map[string]tensor.Value{}
	for n, t := range g.feeds {
		feeds[n] = t
	}
	return medianOf(runs, func() error {
		_, err := s.Run(context.Background(), feeds)
		return err
	})
}

// medianOf calls run once untimed (the warm-up: pipelines, pools), then
// runs times, and returns the median time.
func medianOf(runs int, run func() error) (time.Duration, error) {
	if err := run(); err != nil {
		return 0, err
	}
	times := make([]time.Duration, runs)
	for i := range times {
		start := time.Now()
		if err := run(); err != nil {
			return 0, err
		}
		times[i] = time.Since(start)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2], nil
}
