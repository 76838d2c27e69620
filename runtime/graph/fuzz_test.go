package graph_test

import (
	"context"
	"errors"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// fuzzMaxBytes keeps every tensor the fuzzer can make small: the property
// under test is that hostile dims are refused, not that big ones fit.
const fuzzMaxBytes = 1 << 20

// fuzzSeeds returns a sample of the node suite's models (every 8th, sorted
// for a stable corpus) and the bench models.
func fuzzSeeds(tb testing.TB) [][]byte {
	paths, _ := filepath.Glob("../../testdata/onnx-node/node/*/model.onnx")
	sort.Strings(paths)
	var sample []string
	for i := 0; i < len(paths); i += 8 {
		sample = append(sample, paths[i])
	}
	bench, _ := filepath.Glob("../../testdata/bench/*/model.onnx")
	sample = append(sample, bench...)
	var out [][]byte
	for _, p := range sample {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzLoad checks that no model bytes make the loader or a run panic, and
// that every error is an *errs.Error with a code.
func FuzzLoad(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte("not a model"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkLoadAndRun(t, data)
	})
}

func checkLoadAndRun(t *testing.T, data []byte) {
	m, err := func() (m *graph.Model, err error) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("graph.Load panicked: %v", p)
			}
		}()
		return graph.Load(data, graph.Options{MaxTensorBytes: fuzzMaxBytes})
	}()
	if err != nil {
		mustBeGortError(t, err)
		return
	}
	if m.Graph == nil {
		t.Fatal("Load succeeded without a graph")
	}
	s, err := runtime.Load(data, &runtime.Options{MaxTensorBytes: fuzzMaxBytes})
	if err != nil {
		t.Fatalf("graph.Load accepted the model but runtime.Load refused it: %v", err)
	}
	feeds := zeroFeeds(s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := s.Run(ctx, feeds); err != nil {
		mustBeGortError(t, err)
		if errs.CodeOf(err) == errs.Internal {
			noteInternal(err)
		}
	}
}

// noteInternal appends GORT_INTERNAL errors (a recovered panic in a kernel:
// a bug, but one the API contains) to the file named by
// GORT_FUZZ_INTERNAL_LOG, so that a fuzz run can report them to the ops'
// owners without stopping.
func noteInternal(err error) {
	path := os.Getenv("GORT_FUZZ_INTERNAL_LOG")
	if path == "" {
		return
	}
	f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	msg := err.Error()
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	fmt.Fprintf(f, "%s\n----\n", msg)
}

func mustBeGortError(t *testing.T, err error) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, not *errs.Error: %v", err, err)
	}
	if e.Code == "" {
		t.Fatalf("error without a code: %v", err)
	}
}

// zeroFeeds builds zero tensors of the declared input types, with unknown
// and symbolic dims set to 1; inputs whose type cannot be fed that way (or
// whose size is large) are left out, which Run must report as an error.
func zeroFeeds(s *runtime.Session) map[string]tensor.Value {
	feeds := map[string]tensor.Value{}
	for _, in := range s.Inputs() {
		if in.Type.Kind != graph.KindTensor || !in.Type.Elem.Valid() {
			continue
		}
		shape := make([]int, len(in.Type.Shape))
		total := 1
		for i, d := range in.Type.Shape {
			shape[i] = 1
			if d.Known() {
				shape[i] = int(min(d.Value, 1<<16))
			}
			total *= shape[i]
			if total > 1<<16 {
				break
			}
		}
		if total > 1<<16 {
			continue
		}
		feeds[in.Name] = tensor.New(in.Type.Elem, shape...)
	}
	return feeds
}
