//go:build !(wasm && goexperiment.simd)

package kernels

func gemmI16(m, n, k int, a []int16, lda int, b []int16, ldb int, c []int32, ldc int) {
	gemmI16Scalar(m, n, k, a, lda, b, ldb, c, ldc)
}
