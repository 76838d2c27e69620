//go:build wasm && goexperiment.simd

package kernels

import (
	"math"
	"simd/archsimd"
	"unsafe"
)

// The depthwise row kernels, four outputs per vector (dwRowsRef is their
// definition; the taps are added in the same order, so every lane rounds
// as the scalar loop does). The caller has checked the highest addresses
// read and written: loads go through unsafe pointers. A row whose width is
// not a multiple of four ends with a whole vector computed and only its
// valid lanes stored (its extra lanes read the padded plane's overrun).

// dwRows9 is dwRows for a 3×3 kernel: for rows of at least four outputs,
// dwRows9Asm computes the plane with the nine weights in registers (each
// output's taps still added in (kh, kw) order) and applies Relu when relu
// is set; narrower planes take dwRows. It reports whether it applied Relu.
func dwRows9(y, buf []float32, OH, OW, rowStep int, offs *[9]int, wt *[9]float32, bias float32, relu bool) bool {
	if OW < 4 {
		dwRows(y, buf, OH, OW, rowStep, offs[:], wt[:], bias)
		return false
	}
	// Kernel rows are evenly apart (kh·dh padded rows); two output rows go
	// at a time when they share input rows (unit stride and dilation down
	// the rows).
	kr := offs[3] - offs[0]
	flags := 0
	if relu {
		flags |= 1
	}
	if kr == rowStep {
		flags |= 2
	}
	dwRows9Asm(unsafe.Pointer(&y[0]), unsafe.Pointer(&buf[offs[0]]), OH, OW, uintptr(kr)*4, uintptr(rowStep)*4,
		uintptr(offs[1]-offs[0])*4, uintptr(offs[2]-offs[0])*4, unsafe.Pointer(wt), uint64(math.Float32bits(bias)), flags)
	return relu
}

// dwRows computes the depthwise output plane y (OH×OW) from the padded plane
// buf (see dwRowsRef), eight outputs at a time (the taps' weights splatted
// once for both vectors), the second vector of the last eight possibly
// partial, then four.
func dwRows(y, buf []float32, OH, OW, rowStep int, offs []int, wt []float32, bias float32) {
	px, py := unsafe.Pointer(unsafe.SliceData(buf)), unsafe.Pointer(unsafe.SliceData(y))
	bv := archsimd.BroadcastFloat32x4(bias)
	wt = wt[:len(offs)]
	for oh := 0; oh < OH; oh++ {
		p := unsafe.Add(px, oh*rowStep*4)
		q := unsafe.Add(py, oh*OW*4)
		i := 0
		for ; i+4 < OW; i += 8 {
			o := uintptr(i) * 4
			w := archsimd.BroadcastFloat32x4(wt[0])
			pt := unsafe.Add(p, offs[0]*4)
			a0, a1 := w.Mul(ld4(pt, o)), w.Mul(ld4(pt, o+16))
			for t := 1; t < len(offs); t++ {
				w := archsimd.BroadcastFloat32x4(wt[t])
				pt := unsafe.Add(p, offs[t]*4)
				a0 = a0.Add(w.Mul(ld4(pt, o)))
				a1 = a1.Add(w.Mul(ld4(pt, o+16)))
			}
			st4(a0.Add(bv), q, o)
			if i+8 <= OW {
				st4(a1.Add(bv), q, o+16)
			} else {
				a1.Add(bv).StorePart(y[oh*OW+i+4 : (oh+1)*OW])
			}
		}
		if i < OW {
			o := uintptr(i) * 4
			a := archsimd.BroadcastFloat32x4(wt[0]).Mul(ld4(unsafe.Add(p, offs[0]*4), o))
			for t := 1; t < len(offs); t++ {
				a = a.Add(archsimd.BroadcastFloat32x4(wt[t]).Mul(ld4(unsafe.Add(p, offs[t]*4), o)))
			}
			a = a.Add(bv)
			if i+4 <= OW {
				st4(a, q, o)
			} else {
				a.StorePart(y[oh*OW+i : (oh+1)*OW])
			}
		}
	}
}

// deinterleave2 sets e[j] = s[2j] and o[j] = s[2j+1] for j < len(e): four
// of each at a time by deinterleave4, the rest one by one.
func deinterleave2(e, o, s []float32) {
	n := len(e)
	o, s = o[:n], s[:2*n]
	j := n &^ 3
	if j > 0 {
		deinterleave4(unsafe.Pointer(&e[0]), unsafe.Pointer(&o[0]), unsafe.Pointer(&s[0]), j/4, unsafe.Pointer(&evenOddLanes))
	}
	for ; j < n; j++ {
		e[j], o[j] = s[2*j], s[2*j+1]
	}
}

// deinterleave4 is deinterleave2's loop over n groups of four, in
// WebAssembly (pack_wasm.s); lanes is evenOddLanes.
//
//go:noescape
func deinterleave4(e, o, s unsafe.Pointer, n int, lanes unsafe.Pointer)

// dwRows9Asm is dwRows9 over a whole plane whose kernel rows are kernelRow
// bytes apart and whose output rows read inputs rowStep bytes apart (buf at
// the first tap, a row's other taps d1 and d2 bytes on), in WebAssembly
// (pack_wasm.s); wt holds the nine weights; flags 1 applies Relu, 2 says
// kernelRow = rowStep.
//
//go:noescape
func dwRows9Asm(y, buf unsafe.Pointer, OH, OW int, kernelRow, rowStep, d1, d2 uintptr, wt unsafe.Pointer, biasbits uint64, flags int)

// copyRows copies rows rows of n ≥ 4 floats, src's sstride and dst's
// dstride bytes apart, in WebAssembly (pack_wasm.s).
//
//go:noescape
func copyRows(dst, src unsafe.Pointer, rows, n int, dstride, sstride uintptr)

// vecCopyRows reports that copyRows exists.
const vecCopyRows = true

// copyRow is copy(d, s) for a padded row, four floats at a time: rows are
// often only a few floats long, where the call to memmove costs more.
func copyRow(d, s []float32) {
	n := len(d)
	s = s[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		archsimd.LoadFloat32x4Array((*[4]float32)(s[i : i+4])).StoreArray((*[4]float32)(d[i : i+4]))
	}
	for ; i < n; i++ {
		d[i] = s[i]
	}
}

// dwRows25 is dwRows for a 5×5 kernel: the weights splatted once per plane,
// the five taps of a kernel row at fixed distances from the row's first,
// eight outputs at a time (the second vector of the last eight possibly
// partial), then four.
func dwRows25(y, buf []float32, OH, OW, rowStep int, offs *[25]int, wt *[25]float32, bias float32) {
	px := unsafe.Pointer(unsafe.SliceData(buf))
	var ws [25]f32x4
	for t := range ws {
		ws[t] = archsimd.BroadcastFloat32x4(wt[t])
	}
	bv := archsimd.BroadcastFloat32x4(bias)
	var rows [5]uintptr // kernel row kh starts at rows[kh] from the output row's base
	for kh := range rows {
		rows[kh] = uintptr(offs[5*kh]) * 4
	}
	d1, d2 := uintptr(offs[1]-offs[0])*4, uintptr(offs[2]-offs[0])*4
	d3, d4 := uintptr(offs[3]-offs[0])*4, uintptr(offs[4]-offs[0])*4
	for oh := 0; oh < OH; oh++ {
		p := unsafe.Add(px, oh*rowStep*4)
		yrow := y[oh*OW : (oh+1)*OW]
		i := 0
		for ; i+4 < OW; i += 8 {
			o := uintptr(i) * 4
			p0 := unsafe.Add(p, rows[0])
			a0, a1 := ws[0].Mul(ld4(p0, o)), ws[0].Mul(ld4(p0, o+16))
			a0, a1 = a0.Add(ws[1].Mul(ld4(p0, o+d1))), a1.Add(ws[1].Mul(ld4(p0, o+16+d1)))
			a0, a1 = a0.Add(ws[2].Mul(ld4(p0, o+d2))), a1.Add(ws[2].Mul(ld4(p0, o+16+d2)))
			a0, a1 = a0.Add(ws[3].Mul(ld4(p0, o+d3))), a1.Add(ws[3].Mul(ld4(p0, o+16+d3)))
			a0, a1 = a0.Add(ws[4].Mul(ld4(p0, o+d4))), a1.Add(ws[4].Mul(ld4(p0, o+16+d4)))
			for kh := 1; kh < 5; kh++ {
				pr, w := unsafe.Add(p, rows[kh]), (*[5]f32x4)(ws[5*kh:])
				a0, a1 = a0.Add(w[0].Mul(ld4(pr, o))), a1.Add(w[0].Mul(ld4(pr, o+16)))
				a0, a1 = a0.Add(w[1].Mul(ld4(pr, o+d1))), a1.Add(w[1].Mul(ld4(pr, o+16+d1)))
				a0, a1 = a0.Add(w[2].Mul(ld4(pr, o+d2))), a1.Add(w[2].Mul(ld4(pr, o+16+d2)))
				a0, a1 = a0.Add(w[3].Mul(ld4(pr, o+d3))), a1.Add(w[3].Mul(ld4(pr, o+16+d3)))
				a0, a1 = a0.Add(w[4].Mul(ld4(pr, o+d4))), a1.Add(w[4].Mul(ld4(pr, o+16+d4)))
			}
			a0.Add(bv).StoreArray((*[4]float32)(yrow[i : i+4]))
			a1.Add(bv).StorePart(yrow[i+4:])
		}
		if i < OW {
			o := uintptr(i) * 4
			p0 := unsafe.Add(p, rows[0])
			a := ws[0].Mul(ld4(p0, o))
			a = a.Add(ws[1].Mul(ld4(p0, o+d1)))
			a = a.Add(ws[2].Mul(ld4(p0, o+d2)))
			a = a.Add(ws[3].Mul(ld4(p0, o+d3)))
			a = a.Add(ws[4].Mul(ld4(p0, o+d4)))
			for kh := 1; kh < 5; kh++ {
				pr, w := unsafe.Add(p, rows[kh]), (*[5]f32x4)(ws[5*kh:])
				a = a.Add(w[0].Mul(ld4(pr, o)))
				a = a.Add(w[1].Mul(ld4(pr, o+d1)))
				a = a.Add(w[2].Mul(ld4(pr, o+d2)))
				a = a.Add(w[3].Mul(ld4(pr, o+d3)))
				a = a.Add(w[4].Mul(ld4(pr, o+d4)))
			}
			a.Add(bv).StorePart(yrow[i:])
		}
	}
}

// gatherPanel sets row p of the NR-wide panel to src[offs[p]:offs[p]+NR]
// (an im2col panel from padded planes), in WebAssembly (gatherRows); no
// offset exceeds maxOff, so the ends are checked once.
func gatherPanel(panel, src []float32, offs []int, maxOff int) {
	if len(offs) == 0 {
		return
	}
	_, _ = panel[len(offs)*NR-1], src[maxOff+NR-1]
	gatherRows(unsafe.Pointer(&panel[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&offs[0]), len(offs))
}

// gatherRows is gatherPanel's loop (pack_wasm.s).
//
//go:noescape
func gatherRows(panel, src, offs unsafe.Pointer, n int)
