package conformance

import "testing"

// TestBenchNets runs the bundled benchmark networks (testdata/bench) end to
// end against their reference outputs: a smoke test that whole real
// architectures load, run and agree, beyond the single-node suite.
func TestBenchNets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs whole networks; skipped with -short")
	}
	for _, dir := range []string{"../../testdata/bench/test_squeezenet", "../../testdata/bench/test_resnet50"} {
		if r := RunCase(dir); r != "" {
			t.Errorf("%s: %s", dir, r)
		}
	}
}
