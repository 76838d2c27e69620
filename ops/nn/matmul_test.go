package nn

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

// TestGemmOp covers every transpose combination, odd sizes (N = 1 too),
// each way C can broadcast, and β = 1 (the bias fast paths) or not, against
// a triple loop.
func TestGemmOp(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, sz := range [][3]int{{1, 1, 1}, {6, 1, 11}, {7, 13, 5}, {65, 33, 129}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, ta := range []int{0, 1} {
			for _, beta := range []float32{-2, 1} {
				for _, tb := range []int{0, 1} {
					for _, cshape := range [][]int{nil, {}, {n}, {m, 1}, {1, n}, {m, n}} {
						t.Run(fmt.Sprint(sz, ta, tb, cshape, beta), func(t *testing.T) {
							as, bs := []int{m, k}, []int{k, n}
							if ta == 1 {
								as = []int{k, m}
							}
							if tb == 1 {
								bs = []int{n, k}
							}
							A, B := randT(r, as...), randT(r, bs...)
							in := []*tensor.Tensor{A, B}
							var C *tensor.Tensor
							if cshape != nil {
								C = randT(r, cshape...)
								in = append(in, C)
							}
							alpha := float32(0.5)
							want := make([]float32, m*n)
							for i := 0; i < m; i++ {
								for j := 0; j < n; j++ {
									var s float32
									for p := 0; p < k; p++ {
										av, bv := A.F32()[i*k+p], B.F32()[p*n+j]
										if ta == 1 {
											av = A.F32()[p*m+i]
										}
										if tb == 1 {
											bv = B.F32()[j*k+p]
										}
										s += av * bv
									}
									v := alpha * s
									if C != nil {
										ci := 0
										switch len(cshape) {
										case 1:
											ci = j
										case 2:
											if cshape[0] == m {
												ci += i * cshape[1]
											}
											if cshape[1] == n {
												ci += j
											}
										}
										v += beta * C.F32()[ci]
									}
									want[i*n+j] = v
								}
							}
							opset := 13
							if C == nil {
								opset = 11
							}
							got := runOp(t, "Gemm", opset, attrs{"transA": ta, "transB": tb, "alpha": alpha, "beta": beta}, 1, in...)[0]
							assertClose(t, got, []int{m, n}, want, 1e-5)
						})
					}
				}
			}
		}
	}
}

func TestMatMulBroadcast(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	for _, tc := range []struct{ a, b, out []int }{
		{[]int{3}, []int{3}, []int{}},
		{[]int{4}, []int{2, 4, 5}, []int{2, 5}},
		{[]int{2, 3, 4}, []int{4}, []int{2, 3}},
		{[]int{2, 1, 3, 4}, []int{5, 4, 6}, []int{2, 5, 3, 6}},
		{[]int{3, 5, 7}, []int{7, 2}, []int{3, 5, 2}},
		{[]int{1, 5, 7}, []int{3, 7, 2}, []int{3, 5, 2}},
	} {
		t.Run(fmt.Sprint(tc.a, tc.b), func(t *testing.T) {
			A, B := randT(r, tc.a...), randT(r, tc.b...)
			// Reference: promote, broadcast with explicit index arithmetic.
			a, b := tc.a, tc.b
			if len(a) == 1 {
				a = []int{1, a[0]}
			}
			if len(b) == 1 {
				b = []int{b[0], 1}
			}
			m, k, n := a[len(a)-2], a[len(a)-1], b[len(b)-1]
			rank := max(len(a), len(b))
			pad := func(s []int) []int {
				o := make([]int, rank-len(s))
				for i := range o {
					o[i] = 1
				}
				return append(o, s...)
			}
			pa, pb := pad(a), pad(b)
			batch := make([]int, rank-2)
			nb := 1
			for i := range batch {
				batch[i] = max(pa[i], pb[i])
				nb *= batch[i]
			}
			var want []float32
			idx := make([]int, len(batch))
			for bi := 0; bi < nb; bi++ {
				rem := bi
				for d := len(batch) - 1; d >= 0; d-- {
					idx[d] = rem % batch[d]
					rem /= batch[d]
				}
				ao, bo := 0, 0
				for d := range batch {
					ao = ao*pa[d] + idx[d]%pa[d]
					bo = bo*pb[d] + idx[d]%pb[d]
				}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						var s float32
						for p := 0; p < k; p++ {
							s += A.F32()[ao*m*k+i*k+p] * B.F32()[bo*k*n+p*n+j]
						}
						want = append(want, s)
					}
				}
			}
			got := runOp(t, "MatMul", 13, nil, 1, A, B)[0]
			assertClose(t, got, tc.out, want, 1e-5)
		})
	}
}

func TestMatMulInteger(t *testing.T) {
	a := tensor.Of([]int{2, 3}, []uint8{11, 7, 3, 10, 6, 2})
	b := tensor.Of([]int{3, 2}, []uint8{1, 4, 2, 5, 3, 6})
	azp := tensor.Of([]int{2}, []uint8{1, 2}) // per-row
	bzp := tensor.Scalar(uint8(2))
	y := runOp(t, "MatMulInteger", 10, nil, 1, a, b, azp, bzp)[0]
	// (a-azp) = [10 6 2; 8 4 0], (b-2) = [-1 2; 0 3; 1 4]
	want := []int32{-10 + 2, 20 + 18 + 8, -8, 16 + 12}
	for i, v := range y.I32() {
		if v != want[i] {
			t.Fatalf("MatMulInteger = %v, want %v", y.I32(), want)
		}
	}
}

func TestQuantizeRoundTrip(t *testing.T) {
	x := tensor.Of([]int{2, 3}, []float32{0, 1.5, 2.5, -3, 300, -300})
	scale := tensor.Of([]int{3}, []float32{1, 1, 2})
	zp := tensor.Of([]int{3}, []int8{0, 1, -1})
	q := runOp(t, "QuantizeLinear", 13, attrs{"axis": 1}, 1, x, scale, zp)[0]
	// 0/1+0=0; 1.5→2(+1)=3; 2.5/2=1.25→1(-1)=0; -3+0; 300+1→127; -300/2=-150-1→-128
	want := []int8{0, 3, 0, -3, 127, -128}
	for i, v := range tensor.Data[int8](q) {
		if v != want[i] {
			t.Fatalf("QuantizeLinear = %v, want %v", tensor.Data[int8](q), want)
		}
	}
	d := runOp(t, "DequantizeLinear", 13, attrs{"axis": 1}, 1, q, scale, zp)[0]
	assertClose(t, d, []int{2, 3}, []float32{0, 2, 2, -3, 126, -254}, 0)
}
