package ops_test

import (
	"slices"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	"github.com/gort-dev/gort/runtime/op"
)

// TestRegisteredVersionsExistInSpec guards the registry's promise: a model
// resolves to the newest *spec* version ≤ its opset, so an op registered at a
// version the spec does not define would be chosen for the wrong opsets.
// It also lists the spec's ops that gort does not implement.
func TestRegisteredVersionsExistInSpec(t *testing.T) {
	domains := []string{"", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"}
	missing := 0
	for _, d := range domains {
		for _, name := range op.Default.Ops(d) {
			spec := op.SpecVersions(d, name)
			for _, v := range op.Default.Versions(d, name) {
				if !slices.Contains(spec, v) {
					t.Errorf("%s %s-%d is registered, but the spec defines versions %v", d, name, v, spec)
				}
			}
		}
		for _, name := range op.SpecOps(d) {
			if len(op.Default.Versions(d, name)) == 0 {
				missing++
				t.Logf("not implemented: %q %s %v", d, name, op.SpecVersions(d, name))
			}
		}
	}
	t.Logf("%d spec ops not implemented", missing)
}
