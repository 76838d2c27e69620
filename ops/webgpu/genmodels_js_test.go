//go:build js && wasm

package webgpu_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestGeneratedModelsOnGPU runs the project's generated models (the small
// variants of tools/genmodels: U²-Net-style, MobileNetV3-style, the LSTM
// VAD, the transformer encoder and the GPT-2-style decoder with its KV
// cache, prefill and one step), which tools/webgpu/ci-webgpu.sh writes into
// GORT_GENMODELS, with WebGPU placement at optimisation disabled and all,
// against the CPU with the rewrites off: every float32 output within
// atol 1e-4 + rtol 1e-3. The transformer layers' MatMuls must be on the
// device.
func TestGeneratedModelsOnGPU(t *testing.T) {
	root := os.Getenv("GORT_GENMODELS")
	if root == "" {
		t.Skip("GORT_GENMODELS is not set (tools/webgpu/ci-webgpu.sh sets it)")
	}
	dirs, err := filepath.Glob(filepath.Join(root, "*", "model.onnx"))
	if err != nil || len(dirs) < 7 {
		t.Fatalf("%d generated models under %s (%v), want the 7 small variants", len(dirs), root, err)
	}
	for _, m := range dirs {
		dir := filepath.Dir(m)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := runFile(t, data, dir, nil, plan.Disabled)
			for _, levelName := range []string{"disabled", "all"} {
				level, _ := plan.ParseLevel(levelName)
				got, s := runFile(t, data, dir, acc, level)
				onDevice := map[string]int{}
				var off []string
				for _, st := range s.Plan().Steps {
					if st.Transfer != plan.NoTransfer {
						continue
					}
					if st.Device == webgpu.Device {
						onDevice[st.Node.OpType]++
					} else if st.Reason != "" && !strings.Contains(st.Reason, "WebGPU kernels are float32") {
						off = append(off, st.Node.OpType+": "+st.Reason)
					}
				}
				if strings.HasPrefix(filepath.Base(dir), "transformer") || strings.HasPrefix(filepath.Base(dir), "decoder") {
					if onDevice["MatMul"] == 0 {
						t.Errorf("level %s: no MatMul on the device", levelName)
					}
				}
				sort.Strings(off)
				t.Logf("level %s: on WebGPU %v; declined: %s", levelName, onDevice, strings.Join(slices.Compact(off), "; "))
				for name, w := range want {
					if w.DType() != tensor.Float {
						continue
					}
					if d := closeEnough(got[name], w, 1e-4, 1e-3); d != "" {
						t.Errorf("level %s, output %s: %s", levelName, name, d)
					}
				}
			}
		})
	}
}

// runFile runs a model directory's test_data_set_0 inputs (graph input
// order) with accelerator a (nil: the CPU) at a level.
func runFile(t *testing.T, data []byte, dir string, a *webgpu.Accelerator, level plan.Level) (map[string]*tensor.Tensor, *runtime.Session) {
	t.Helper()
	opts := &runtime.Options{Optimization: level}
	if a != nil {
		opts.Accelerator = a
	}
	s, err := runtime.Load(data, opts)
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]tensor.Value{}
	for i, in := range s.Inputs() {
		b, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			t.Fatal(err)
		}
		v, err := protoconv.DecodeValue(b, protoconv.TensorValue, 0)
		if err != nil {
			t.Fatal(err)
		}
		feeds[in.Name] = v
	}
	out, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]*tensor.Tensor{}
	for k, v := range out {
		res[k] = v.(*tensor.Tensor)
	}
	return res, s
}
