// Command bench measures model load time and inference time of the bundled
// benchmark networks. Built natively or for GOOS=js GOARCH=wasm (run in Node
// with go_js_wasm_exec), it prints the same figures for both.
//
//	go run ./tools/bench testdata/bench/test_squeezenet [more model dirs]
package main

import (
	"context"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"time"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench model-dir...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		if err := bench(dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func bench(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return err
	}
	var loads []time.Duration
	var s *runtime.Session
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		s, err = runtime.Load(b, nil)
		if err != nil {
			return err
		}
		loads = append(loads, time.Since(t0))
	}
	feeds := map[string]tensor.Value{}
	for i, in := range s.Inputs() {
		raw, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			return err
		}
		v, err := protoconv.DecodeValue(raw, protoconv.TensorValue, 0)
		if err != nil {
			return err
		}
		feeds[in.Name] = v
	}
	if _, err := s.Run(context.Background(), feeds); err != nil { // warm-up
		return err
	}
	var runs []time.Duration
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 10 && (i < 3 || time.Now().Before(deadline)); i++ {
		t0 := time.Now()
		if _, err := s.Run(context.Background(), feeds); err != nil {
			return err
		}
		runs = append(runs, time.Since(t0))
	}
	fmt.Printf("%s [%s/%s]: model %d bytes, load %.2f ms, inference %.1f ms (median of %d)\n",
		filepath.Base(dir), goruntime.GOOS, goruntime.GOARCH, len(b),
		float64(median(loads).Microseconds())/1000, float64(median(runs).Microseconds())/1000, len(runs))
	return nil
}
