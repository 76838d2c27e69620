//go:build js && wasm

package webgpu_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/conformance"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestWholeModels runs the bench CNNs with WebGPU placement against their
// expected outputs: SqueezeNet always, ResNet-50 (slow on a software
// adapter) with GORT_WEBGPU_BENCH=1, all nine bench CNNs with
// GORT_WEBGPU_MODELS=all (meant for hardware adapters). Every Conv must be
// on the device.
func TestWholeModels(t *testing.T) {
	models := []string{"test_squeezenet"}
	if os.Getenv("GORT_WEBGPU_MODELS") == "all" {
		models = []string{"test_squeezenet", "test_resnet50", "test_bvlc_alexnet", "test_zfnet512", "test_vgg19",
			"test_inception_v1", "test_inception_v2", "test_densenet121", "test_shufflenet"}
	} else if os.Getenv("GORT_WEBGPU_BENCH") != "" {
		models = append(models, "test_resnet50")
	}
	for _, m := range models {
		t.Run(m, func(t *testing.T) {
			dir := filepath.Join(testdata(), "bench", m)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("bench model: %v", err)
			}
			var summary string
			inspect := func(s *runtime.Session) string {
				count := map[string]int{}
				var off []string
				for _, st := range s.Plan().Steps {
					if st.Transfer != plan.NoTransfer {
						continue
					}
					count[string(st.Device)]++
					if st.Device != webgpu.Device {
						off = append(off, fmt.Sprintf("%s (%s)", st.Node.OpType, st.Reason))
						if st.Node.OpType == "Conv" {
							return "a Conv is on the CPU: " + st.Reason
						}
					}
				}
				sort.Strings(off)
				summary = fmt.Sprintf("%d steps on webgpu, %d on the CPU: %s", count[string(webgpu.Device)], count["cpu"], strings.Join(off, ", "))
				return ""
			}
			before := acc.Dispatches.Load()
			start := time.Now()
			if r := conformance.RunCaseOptions(dir, &runtime.Options{Accelerator: acc}, inspect); r != "" {
				t.Fatal(r)
			}
			t.Logf("%s: %s; load and run %v, %d dispatches", m, summary, time.Since(start).Round(time.Millisecond), acc.Dispatches.Load()-before)
			if os.Getenv("GORT_WEBGPU_BENCH") != "" {
				wholeModelTimes(t, dir)
			}
		})
	}
}

// wholeModelTimes prints the median run time (after a warm-up run) of a
// bench model with WebGPU placement, tiled and simple kernels, and on the
// CPU: 3 timed runs, or GORT_WEBGPU_RUNS.
func wholeModelTimes(t *testing.T, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := protoconv.DecodeValue(in, protoconv.TensorValue, 0)
	if err != nil {
		t.Fatal(err)
	}
	var row []float64
	for _, dev := range []*webgpu.Accelerator{accTiled, accSimple, nil} {
		opts := &runtime.Options{}
		if dev != nil {
			opts.Accelerator = dev
		}
		s, err := runtime.Load(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		feeds := map[string]tensor.Value{s.Inputs()[0].Name: x}
		d, err := medianOf(benchRuns(3), func() error {
			_, err := s.Run(context.Background(), feeds)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		row = append(row, ms(d))
	}
	fmt.Printf("| %s (whole model) | %.1f | %.1f | %.1f |\n", filepath.Base(dir), row[0], row[1], row[2])
}
