//go:build js && wasm

package webgpu_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/conformance"
	"github.com/gort-dev/gort/runtime/plan"
)

// testdata is the repository's testdata directory. The browser host
// (wasmbrowsertest) reads files through its server with the working
// directory "/fs", so tools/webgpu/ci-webgpu.sh passes the absolute path in
// GORT_TESTDATA; under Node the relative path works too.
func testdata() string {
	if d := os.Getenv("GORT_TESTDATA"); d != "" {
		return d
	}
	return "../../testdata"
}

func init() {
	conformance.TolerancesFile = filepath.Join(testdata(), "conformance", "tolerances.txt")
}

// TestNodeSuiteEveryNodeOnGPU runs the whole ONNX node suite with every
// node the accelerator accepts placed on the device (acc has the cost rule
// off), with the plan's rewrites off and on, and holds the results to the
// CPU's manifest: a case that passes on the CPU and fails here is a WebGPU
// defect. (A case whose plan puts no step on the device is the CPU's run,
// which runtime/conformance already holds to the manifest; it is counted
// but not run again.) It also checks that every op the accelerator claims
// (webgpu.Ops) reached the device in some case, so that a claim no case
// exercises cannot hide.
func TestNodeSuiteEveryNodeOnGPU(t *testing.T) {
	dir := filepath.Join(testdata(), "onnx-node", "node")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("node suite: %v", err)
	}
	want, err := conformance.ReadManifest(filepath.Join(testdata(), "conformance", "manifest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, levelName := range []string{"disabled", "all"} {
		level, _ := plan.ParseLevel(levelName)
		t.Run(levelName, func(t *testing.T) {
			placed := map[string]int{} // op type → nodes placed on the device
			cases, onDevice := 0, 0
			for _, e := range entries {
				name := e.Name()
				if !strings.HasPrefix(name, "test_") {
					continue
				}
				cases++
				opts := &runtime.Options{Accelerator: acc, Optimization: level}
				// A case with no step on the device runs exactly as on the
				// CPU, which runtime/conformance holds to the manifest: only
				// the model is read for it (the browser host reads files
				// through its server, slowly).
				if data, err := os.ReadFile(filepath.Join(dir, name, "model.onnx")); err == nil {
					if s, err := runtime.Load(data, opts); err == nil && !slices.ContainsFunc(s.Plan().Steps, func(st *plan.Step) bool { return st.Device == webgpu.Device && st.Transfer == plan.NoTransfer }) {
						continue
					}
				}
				gpuSteps := 0
				inspect := func(s *runtime.Session) string {
					for _, st := range s.Plan().Steps {
						if st.Device == webgpu.Device && st.Transfer == plan.NoTransfer {
							gpuSteps++
							placed[st.Node.OpType]++
						}
					}
					return ""
				}
				got := conformance.RunCaseOptions(filepath.Join(dir, name), opts, inspect)
				if gpuSteps > 0 {
					onDevice++
				}
				w, listed := want[name]
				switch {
				case !listed:
					t.Errorf("%s: not in the manifest", name)
				case w == "pass" && got != "":
					t.Errorf("%s (%d steps on WebGPU): passes on the CPU, fails with WebGPU: %s", name, gpuSteps, got)
				case w != "pass" && got == "":
					t.Errorf("%s: listed %q, but passes with WebGPU", name, w)
				}
			}
			var ops []string
			for o, n := range placed {
				ops = append(ops, fmt.Sprintf("%s %d", o, n))
			}
			sort.Strings(ops)
			t.Logf("%d cases, %d with steps on WebGPU; nodes placed: %s", cases, onDevice, strings.Join(ops, ", "))
			if cases < 1800 {
				t.Errorf("%d cases found, want the whole suite (1802)", cases)
			}
			for _, o := range webgpu.Ops() {
				if placed[o] == 0 {
					t.Errorf("%s is accepted by the accelerator but no case placed it on the device", o)
				}
			}
		})
	}
}
