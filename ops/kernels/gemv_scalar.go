//go:build !(wasm && goexperiment.simd)

package kernels

// gemvPanel stores into y[:NR] the product of x (length k) with the k×NR
// packed panel b.
func gemvPanel(x, b, y []float32) { gemvPanelScalar(x, b, y) }

// dot4 returns the dot products of x with b0…b3 (dot4Scalar).
func dot4(x, b0, b1, b2, b3 []float32) [4]float32 { return dot4Scalar(x, b0, b1, b2, b3) }

// axpy1 adds x0·b0 to y.
func axpy1(y, b0 []float32, x0 float32) { axpy1Scalar(y, b0, x0) }

// axpy8 adds Σ_r xs[r]·bs[r] to y (axpy8Scalar).
func axpy8(y []float32, bs *[8][]float32, xs *[8]float32) { axpy8Scalar(y, bs, xs) }
