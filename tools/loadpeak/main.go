// Command loadpeak measures what loading a model costs in memory: the bytes
// Load allocates (with the collector off, an upper bound on its peak), the
// heap still in use after Load and a collection, and the runtime's memory
// from the system (under WebAssembly, the linear memory). For models whose
// weights are built at load (ConstantOfShape), the constants' bytes stand in
// for the file size.
//
//	go run ./tools/loadpeak testdata/bench/test_resnet50/model.onnx ...
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/gort-dev/gort"
	"github.com/gort-dev/gort/runtime/tensor"
)

func main() {
	gcOff := flag.Bool("gcoff", false, "turn the collector off during Load (its allocations then bound its peak)")
	gcPercent := flag.Int("gcpercent", 100, "GOGC during Load (what the JS package's load sets: wasm/main.go)")
	flag.Parse()
	paths := flag.Args()
	const mib = 1 << 20
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		runtime.GC()
		var before, after, gc runtime.MemStats
		runtime.ReadMemStats(&before)
		debug.SetGCPercent(*gcPercent)
		if *gcOff {
			debug.SetGCPercent(-1)
		}
		s, err := gort.Load(data, nil)
		runtime.ReadMemStats(&after)
		debug.SetGCPercent(100)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		runtime.GC()
		runtime.ReadMemStats(&gc)
		var consts int64
		for _, v := range s.Plan().Consts {
			if t, ok := v.(*tensor.Tensor); ok {
				consts += int64(t.Len() * t.DType().ElemBytes())
			}
		}
		fmt.Printf("%s: file %.1f MiB, plan consts %.1f MiB; Load allocated %.1f MiB; heap in use after GC %.1f MiB (before %.1f); sys %.1f MiB\n",
			p, float64(len(data))/mib, float64(consts)/mib, float64(after.TotalAlloc-before.TotalAlloc)/mib,
			float64(gc.HeapInuse)/mib, float64(before.HeapInuse)/mib, float64(gc.Sys)/mib)
		runtime.KeepAlive(s)
		runtime.KeepAlive(data)
	}
}
