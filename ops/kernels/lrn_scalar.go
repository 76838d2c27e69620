//go:build !(wasm && goexperiment.simd)

package kernels

func lrnPlane(y, x []float32, planes [][]float32, bias, k float32) {
	lrnPlaneScalar(y, x, planes, bias, k)
}
