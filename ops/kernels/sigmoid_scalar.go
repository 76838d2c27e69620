//go:build !(wasm && goexperiment.simd)

package kernels

// sigmoidSlice applies Sigmoid32 in place (sigmoid_simd.go is its vector
// twin).
func sigmoidSlice(x []float32) {
	for i, v := range x {
		x[i] = Sigmoid32(v)
	}
}
