package conformance

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"testing"

	gort "github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/exec"
	"github.com/gort-dev/gort/runtime/tensor"
)

// everySplit is a cost rule under which every step that can split does.
var everySplit = exec.ThreadCost{MACsPerMicro: 1e-6, SyncMicros: 0, BytesPerMicro: 1e12, Margin: 1}

// TestNodeSuiteThreaded runs every case of the node suite that has a Conv
// on 3 threads, every convolution split as finely as it can be, and holds
// each output to the one-thread run's, bit for bit.
func TestNodeSuiteThreaded(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(suiteDir, "test_*"))
	n := 0
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
		if err != nil || !bytes.Contains(data, []byte("Conv")) {
			continue
		}
		one, err1 := gort.Load(data, nil)
		three, err3 := gort.Load(data, &gort.Options{Threads: 3, ThreadCost: everySplit})
		if err1 != nil || err3 != nil {
			continue // the suite itself holds load failures to the manifest
		}
		sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
		for _, set := range sets {
			feeds, reason := ReadFeeds(one, set)
			if reason != "" {
				continue
			}
			want, errW := one.Run(context.Background(), feeds)
			got, errG := three.Run(context.Background(), feeds)
			if (errW == nil) != (errG == nil) {
				t.Errorf("%s: one thread: %v; three: %v", filepath.Base(dir), errW, errG)
				continue
			}
			for name, w := range want {
				if d := bitDiff(got[name], w); d != "" {
					t.Errorf("%s, output %s: %s", filepath.Base(dir), name, d)
				}
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d test sets with a Conv ran; the suite has more", n)
	}
}

// TestBenchNetsThreaded: ResNet-50 and SqueezeNet on 2 threads under the
// default cost rule agree with their reference outputs.
func TestBenchNetsThreaded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs whole networks; skipped with -short")
	}
	if goruntime.GOOS == "js" {
		t.Skip("goroutines share one thread under GOOS=js (the JS package's threads are tested in js/test/threads.test.mjs)")
	}
	for _, dir := range []string{"../../testdata/bench/test_squeezenet", "../../testdata/bench/test_resnet50"} {
		if r := RunCaseOptions(dir, &gort.Options{Threads: 2}, nil); r != "" {
			t.Errorf("%s: %s", dir, r)
		}
	}
}

// bitDiff says where two values differ in any bit ("" when they do not).
func bitDiff(got, want tensor.Value) string {
	g, ok1 := got.(*tensor.Tensor)
	w, ok2 := want.(*tensor.Tensor)
	if !ok1 || !ok2 {
		return "not tensors"
	}
	if g.DType() != w.DType() || g.Len() != w.Len() {
		return "type or size differs"
	}
	if w.DType() != tensor.Float {
		if !reflect.DeepEqual(g.Data(), w.Data()) {
			return "values differ from the one-thread run"
		}
		return ""
	}
	for i, x := range w.F32() {
		if math.Float32bits(g.F32()[i]) != math.Float32bits(x) {
			return "element differs from the one-thread run"
		}
	}
	return ""
}
