package nn

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestConstB runs Gemm (transB 0 and 1, alpha and a bias) and MatMul built
// with a constant B against a naive reference: with one row of A (B read
// in place), then more rows (B packed on that run), then one row again
// (still in place), and with a B that is not the constant the kernel was
// built with (an overridden initializer: neither path may use the
// constant's form).
func TestConstB(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	const k, n = 37, 21
	for _, c := range []struct {
		op    string
		trans bool
	}{{"Gemm", false}, {"Gemm", true}, {"MatMul", false}} {
		t.Run(fmt.Sprintf("%s/transB=%v", c.op, c.trans), func(t *testing.T) {
			bshape := []int{k, n}
			if c.trans {
				bshape = []int{n, k}
			}
			b, other, bias := kt(r, tensor.Float, bshape...), kt(r, tensor.Float, bshape...), kt(r, tensor.Float, n)
			at := attrs{}
			consts := []bool{false, true}
			in := func(a, b *tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{a, b} }
			if c.op == "Gemm" {
				at = attrs{"alpha": float32(0.5), "transB": btoi(c.trans)}
				consts = []bool{false, true, true}
				in = func(a, b *tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{a, b, bias} }
			}
			a1 := kt(r, tensor.Float, 1, k)
			kern := kspec{opType: c.op, opset: 13, at: at, consts: consts}.build(t, in(a1, b))
			for _, step := range []struct {
				m int
				b *tensor.Tensor
			}{{1, b}, {5, b}, {1, b}, {1, other}, {6, other}} {
				a := a1
				if step.m != 1 {
					a = kt(r, tensor.Float, step.m, k)
				}
				out, err := kern.Run(&op.Context{Ctx: context.Background()}, in(a, step.b))
				if err != nil {
					t.Fatal(err)
				}
				got, ad, bd := out[0].F32(), a.F32(), step.b.F32()
				for i := 0; i < step.m; i++ {
					for j := 0; j < n; j++ {
						var w float64
						for p := 0; p < k; p++ {
							bv := bd[p*n+j]
							if c.trans {
								bv = bd[j*k+p]
							}
							w += float64(ad[i*k+p]) * float64(bv)
						}
						if c.op == "Gemm" {
							w = 0.5*w + float64(bias.F32()[j])
						}
						if g := float64(got[i*n+j]); math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
							t.Fatalf("m=%d: y[%d,%d] = %v, want %v", step.m, i, j, g, w)
						}
					}
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestConstBConcurrentPacking: a session's runs share the kernel, so the
// first runs with several rows may pack the constant B at the same time;
// each must get the one packing and the right product (run it under -race
// to see the lock at work).
func TestConstBConcurrentPacking(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	const m, k, n = 6, 29, 19
	b := kt(r, tensor.Float, n, k)
	at := attrs{"transB": 1}
	kern := kspec{opType: "Gemm", opset: 13, at: at, consts: []bool{false, true}}.build(t, []*tensor.Tensor{kt(r, tensor.Float, m, k), b})
	as := make([]*tensor.Tensor, 8)
	for i := range as {
		as[i] = kt(r, tensor.Float, m, k)
	}
	got := make([][]float32, len(as))
	errs := make([]error, len(as))
	var wg sync.WaitGroup
	for i := range as {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := kern.Run(&op.Context{Ctx: context.Background()}, []*tensor.Tensor{as[i], b})
			if err == nil {
				got[i] = out[0].F32()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	bd := b.F32()
	for g, a := range as {
		if errs[g] != nil {
			t.Fatal(errs[g])
		}
		ad := a.F32()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var w float64
				for p := 0; p < k; p++ {
					w += float64(ad[i*k+p]) * float64(bd[j*k+p])
				}
				if v := float64(got[g][i*n+j]); math.Abs(v-w) > 1e-4*(1+math.Abs(w)) {
					t.Fatalf("run %d: y[%d,%d] = %v, want %v", g, i, j, v, w)
				}
			}
		}
	}
}
