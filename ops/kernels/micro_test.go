package kernels

import "testing"

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
			kernel4x8(a[p*MR*kc:(p+1)*MR*kc], b, kc, c[p*MR*NR:(p+1)*MR*NR], NR, true, nil, 0, 0)
		}
	}
	bm.ReportMetric(2*float64(np*MR*NR*kc)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}
