//go:build !(wasm && goexperiment.simd)

package kernels

// gatherPanel2 is gatherPanel for a panel whose NR pixels wrap from one
// output row to the next: per im2col row (offset off), lanes [0, n1) are
// src[off+a+l] and lanes [n1, NR) are src[off+b+l−n1] (see
// convpanel_simd.go).
func gatherPanel2(panel, src []float32, offs []int, a, b, n1, maxOff int) {
	for p, off := range offs {
		d := panel[p*NR : p*NR+NR]
		copy(d[:n1], src[off+a:off+a+n1])
		copy(d[n1:], src[off+b:off+b+NR-n1])
	}
}
