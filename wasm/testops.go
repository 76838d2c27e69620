//go:build js && wasm && gorttest

package main

import (
	"time"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Test-only operators, compiled in with -tags gorttest (js/test.sh builds a
// separate gort-test.wasm with them; the shipped gort.wasm never has them).
// They give the JS tests graphs with a known, controllable cost whatever
// operators the real build has at the moment:
//
//	gort.test.Spin(x) -> x, busy for attribute ms milliseconds (a slow node
//	that does not check for cancellation itself, like a big Conv)
//	gort.test.Panic(x) -> panics (the bridge must turn it into GORT_INTERNAL)
func init() {
	op.Default.Register("gort.test", "Spin", []int{1}, func(n *op.Node) (any, error) {
		ms, err := n.Int("ms", 1)
		if err != nil {
			return nil, err
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			end := time.Now().Add(time.Duration(ms) * time.Millisecond)
			x := 0
			for time.Now().Before(end) {
				for i := 0; i < 1000; i++ {
					x += i
				}
			}
			_ = x
			return []*tensor.Tensor{in[0]}, nil
		}), nil
	})
	op.Default.Register("gort.test", "Panic", []int{1}, func(n *op.Node) (any, error) {
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			var m map[string]int
			m["boom"] = 1 // a genuine runtime panic, not a panic(err)
			return nil, nil
		}), nil
	})
}
