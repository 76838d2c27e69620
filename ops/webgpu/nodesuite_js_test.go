//go:build js && wasm

package webgpu_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/conformance"
)

// nodeSuiteOps are the ops whose every node-suite case must run on the
// device and match the expected outputs (with the manifest's tolerances).
var nodeSuiteOps = map[string]bool{"Conv": true, "ConvTranspose": true, "Resize": true, "Upsample": true}

func TestNodeSuiteOnGPU(t *testing.T) {
	dir := filepath.Join(testdata(), "onnx-node", "node")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("node suite: %v", err)
	}
	ran := 0
	for _, e := range entries {
		name := e.Name()
		if !(strings.HasPrefix(name, "test_conv_") || strings.HasPrefix(name, "test_convtranspose") ||
			strings.HasPrefix(name, "test_resize_") || strings.HasPrefix(name, "test_upsample")) {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			before := acc.Dispatches.Load()
			inspect := func(s *runtime.Session) string {
				var off []string
				for _, st := range s.Plan().Steps {
					if nodeSuiteOps[st.Node.OpType] && st.Device != webgpu.Device {
						off = append(off, fmt.Sprintf("%s on %s: %s", st.Node.OpType, st.Device, st.Reason))
					}
				}
				return strings.Join(off, "; ")
			}
			if r := conformance.RunCaseOptions(filepath.Join(dir, name), &runtime.Options{Accelerator: acc}, inspect); r != "" {
				t.Error(r)
			}
			if acc.Dispatches.Load() == before {
				t.Error("no dispatch reached the device")
			}
		})
	}
	if ran < 55 {
		t.Errorf("%d cases found, want the 55 Conv/ConvTranspose/Resize/Upsample cases", ran)
	}
}
