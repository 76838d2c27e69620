//go:build !(wasm && goexperiment.simd)

package elementwise

// reluF32 is Relu's float32 row (relu_simd.go has the SIMD128 form).
func reluF32(dst, src []float32) { reluF32Scalar(dst, src) }
