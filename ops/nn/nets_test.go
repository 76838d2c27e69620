package nn_test

import (
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/conformance"
)

// TestBenchNets runs the bundled benchmark networks end to end against their
// expected outputs. Until every op they use exists (some live in other
// packages) an unsupported-op result is only logged.
func TestBenchNets(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for _, dir := range []string{"../../testdata/bench/test_squeezenet", "../../testdata/bench/test_resnet50"} {
		r := conformance.RunCase(dir)
		switch {
		case r == "":
			t.Logf("%s: pass", dir)
		case strings.Contains(r, "GORT_UNSUPPORTED_OP"):
			t.Logf("%s: skipped: %s", dir, r)
		default:
			t.Errorf("%s: %s", dir, r)
		}
	}
}
