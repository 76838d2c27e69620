package kernels

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

func BenchmarkKernel4x8(bm *testing.B) {
	const kc = 256
	np := 32
	a := make([]float32, np*MR*kc)
	b := make([]float32, NR*kc)
	c := make([]float32, np*MR*NR)
	for i := range a {
		a[i] = float32(i%7) * 0.1
	}
	for i := range b {
		b[i] = float32(i%5) * 0.1
	}
	bm.ResetTimer()
	for it := 0; it < bm.N; it++ {
		for p := 0; p < np; p++ {
			kernel4x8(a[p*MR*kc:(p+1)*MR*kc], b, kc, c[p*MR*NR:(p+1)*MR*NR], NR, true)
		}
	}
	bm.ReportMetric(2*float64(np*MR*NR*kc)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// TestKernel4x8Stride: the micro-kernels (4×8, 1×8 and 4×n) reading B rows ldb apart (a plain
// B, as the GEMM passes in the SIMD build) gives the bits it gives on the
// same rows packed NR apart, storing and accumulating, odd and even depths.
func TestKernel4x8Stride(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, k := range []int{1, 2, 5, 16} {
		const ldb, ldc = NR + 5, NR + 3
		a, b := randSlice(r, MR*k), randSlice(r, (k-1)*ldb+NR)
		packed := make([]float32, NR*k)
		for p := 0; p < k; p++ {
			copy(packed[p*NR:(p+1)*NR], b[p*ldb:p*ldb+NR])
		}
		for _, acc := range []bool{false, true} {
			c0 := randSlice(r, (MR-1)*ldc+NR)
			got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
			kernel4x8s(a, b, k, ldb, got, ldc, acc, nil, 0, 0)
			kernel4x8(a, packed, k, want, ldc, acc)
			sameF32(t, fmt.Sprint("kernel4x8/", k, "/", acc), got, want)
		}
		got, want := make([]float32, NR), make([]float32, NR)
		kernel1x8(a, b, k, ldb, got)
		kernel1x8(a, packed, k, NR, want)
		sameF32(t, fmt.Sprint("kernel1x8/", k), got, want)
		// The first n columns alone, against the full tile's.
		full := make([]float32, MR*NR)
		kernel4x8(a, packed, k, full, NR, false)
		for n := 1; n < NR; n++ {
			cols := make([]float32, MR*NR)
			kernel4xn(a, b, k, ldb, n, cols)
			for i := 0; i < MR; i++ {
				sameF32(t, fmt.Sprint("kernel4xn/", k, "/", n, "/row", i), cols[i*NR:i*NR+n], full[i*NR:i*NR+n])
			}
		}
	}
}

// TestKernelColumn: a column sweep (nq tiles, sweep_wasm.s in the SIMD
// build) gives, bit for bit, a plain loop's sums in the kernels' order —
// the products over k (each rounded, then added), C's old value when
// accumulating, the row bias, the residual, then Relu — for packed and
// strided B, A panels further apart than their depth, odd and even depths,
// and every combination of the epilogue's parts.
func TestKernelColumn(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	const ldc, ldr, row, col = NR + 3, NR + 7, 4, 2
	for _, k := range []int{1, 2, 3, 16, 33} {
		for _, nq := range []int{1, 3} {
			for _, ldb := range []int{NR, NR + 5} {
				for _, as := range []int{MR * k, MR*k + 12} {
					a, b := randSlice(r, (nq-1)*as+MR*k), randSlice(r, (k-1)*ldb+NR)
					bias := randSlice(r, row+nq*MR)
					res := randSlice(r, (row+nq*MR)*ldr)
					c0 := randSlice(r, (nq*MR-1)*ldc+NR)
					for flags := 0; flags < 16; flags++ {
						acc := flags&1 != 0
						var e *Epilogue
						if flags&^1 != 0 {
							e = &Epilogue{LdR: ldr}
							if flags&2 != 0 {
								e.RowBias = bias
							}
							if flags&4 != 0 {
								e.Residual = res
							}
							if flags&8 != 0 {
								e.Act = ActRelu
							}
						}
						got, want := slices.Clone(c0), slices.Clone(c0)
						kernelColumn(a, as, b, k, ldb, got, ldc, acc, e, row, col, nq)
						for i := 0; i < nq*MR; i++ {
							q, ri := i/MR, i%MR
							for j := 0; j < NR; j++ {
								var s float32
								for p := 0; p < k; p++ {
									s += float32(a[q*as+p*MR+ri] * b[p*ldb+j])
								}
								if acc {
									s += want[i*ldc+j]
								}
								if e != nil && e.RowBias != nil {
									s += bias[row+i]
								}
								if e != nil && e.Residual != nil {
									s += res[(row+i)*ldr+col+j]
								}
								if e != nil && e.Act == ActRelu && s < 0 {
									s = 0
								}
								want[i*ldc+j] = s
							}
						}
						sameF32(t, fmt.Sprint("k", k, "/nq", nq, "/ldb", ldb, "/as", as, "/flags", flags), got, want)
					}
				}
			}
		}
	}
}

// TestKernelEdgeColumn: the edge columns of a column of tiles, four tiles'
// sums side by side in the SIMD build, are kernel4xn's tile by tile, bit for
// bit (one and two columns, tile counts around multiples of four, A panels
// further apart than their depth, B rows ldb apart).
func TestKernelEdgeColumn(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, k := range []int{1, 2, 7, 64} {
		for _, nq := range []int{1, 3, 4, 5, 9} {
			for _, n := range []int{1, 2} {
				const ldb = NR + 3
				as := MR*k + 4
				a, b := randSlice(r, (nq-1)*as+MR*k), randSlice(r, (k-1)*ldb+NR)
				got := make([]float32, nq*MR*NR)
				kernelEdgeColumn(a, as, b, k, ldb, n, nq, got)
				for q := 0; q < nq; q++ {
					want := make([]float32, MR*NR)
					kernel4xn(a[q*as:], b, k, ldb, n, want)
					for i := 0; i < MR; i++ {
						sameF32(t, fmt.Sprint("k", k, "/nq", nq, "/n", n, "/tile", q, "/row", i), got[(q*MR+i)*NR:(q*MR+i)*NR+n], want[i*NR:i*NR+n])
					}
				}
			}
		}
	}
}

// TestKernelRow: a row of tiles swept across B panels (sweep_wasm.s in the
// SIMD build) is kernel4x8s tile by tile, bit for bit, for packed and
// strided panels.
func TestKernelRow(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, k := range []int{1, 2, 9, 40} {
		for _, np := range []int{1, 3} {
			for _, ldb := range []int{NR, 3*NR + 5} {
				bs := NR // panels side by side in a plain B
				if ldb == NR {
					bs = k * NR // packed panels one after another
				}
				a, b := randSlice(r, MR*k), randSlice(r, (np-1)*bs+(k-1)*ldb+NR)
				ldt := np*NR + 3
				got := randSlice(r, (MR-1)*ldt+np*NR)
				want := slices.Clone(got)
				kernelRow(a, b, k, ldb, bs, np, got, ldt)
				for q := 0; q < np; q++ {
					kernel4x8s(a, b[q*bs:], k, ldb, want[q*NR:], ldt, false, nil, 0, 0)
				}
				sameF32(t, fmt.Sprint("k", k, "/np", np, "/ldb", ldb), got, want)
			}
		}
	}
}
