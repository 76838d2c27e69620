//go:build !(wasm && goexperiment.simd)

package kernels

// gemvPanel stores into y[:NR] the product of x (length k) with the k×NR
// packed panel b.
func gemvPanel(x, b, y []float32) { gemvPanelScalar(x, b, y) }
