package check_test

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	"github.com/gort-dev/gort/runtime/check"
)

// TestNoErrorsOnSuite: the checker finds no error in any node-suite or bench
// model (models the ONNX checker accepts).
func TestNoErrorsOnSuite(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/onnx-node/node/test_*")
	bench, _ := filepath.Glob("../../testdata/bench/test_*")
	if len(dirs) < 1800 {
		t.Fatalf("%d node-suite cases found", len(dirs))
	}
	warnings := map[string]int{}
	for _, d := range append(dirs, bench...) {
		data, err := os.ReadFile(filepath.Join(d, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		r := check.Bytes(data, nil)
		for _, f := range r.Findings {
			if f.Severity == check.Error {
				t.Errorf("%s: %s", filepath.Base(d), f)
			} else {
				warnings[f.Code]++
			}
		}
	}
	t.Logf("%d models, warnings by code: %v", len(dirs)+len(bench), warnings)
}
