//go:build !(wasm && goexperiment.simd)

package kernels

import "unsafe"

// dwRows9 is dwRows for a 3×3 kernel; it leaves the Relu to the caller
// (reports false).
func dwRows9(y, buf []float32, OH, OW, rowStep int, offs *[9]int, wt *[9]float32, bias float32, relu bool) bool {
	dwRowsRef(y, buf, OH, OW, rowStep, offs[:], wt[:], bias)
	return false
}

// dwRows computes the depthwise output plane y (OH×OW) from the padded plane
// buf (see dwRowsRef).
func dwRows(y, buf []float32, OH, OW, rowStep int, offs []int, wt []float32, bias float32) {
	dwRowsRef(y, buf, OH, OW, rowStep, offs, wt, bias)
}

// deinterleave2 sets e[j] = s[2j] and o[j] = s[2j+1] for j < len(e).
func deinterleave2(e, o, s []float32) {
	o, s = o[:len(e)], s[:2*len(e)]
	for j := range e {
		e[j], o[j] = s[2*j], s[2*j+1]
	}
}

// vecCopyRows reports that copyRows exists: not in this build.
const vecCopyRows = false

func copyRows(dst, src unsafe.Pointer, rows, n int, dstride, sstride uintptr) {
	panic("kernels: copyRows is in the SIMD build only")
}

// copyRow is copy(d, s) for a padded row.
func copyRow(d, s []float32) { copy(d, s) }

// dwRows25 is dwRows for a 5×5 kernel.
func dwRows25(y, buf []float32, OH, OW, rowStep int, offs *[25]int, wt *[25]float32, bias float32) {
	dwRowsRef(y, buf, OH, OW, rowStep, offs[:], wt[:], bias)
}

// gatherPanel sets row p of the NR-wide panel to src[offs[p]:offs[p]+NR];
// no offset exceeds maxOff.
func gatherPanel(panel, src []float32, offs []int, maxOff int) {
	for p, off := range offs {
		copy8((*[NR]float32)(panel[p*NR:p*NR+NR]), (*[NR]float32)(src[off:off+NR]))
	}
}
