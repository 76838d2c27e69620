//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

func ldu32x4(p unsafe.Pointer, off uintptr) archsimd.Uint32x4 {
	return archsimd.LoadUint32x4Array((*[4]uint32)(unsafe.Add(p, off)))
}

// nbits4Cols4 writes into out the sums of four adjacent columns
// (nbits4Cols4Scalar's), 2 at a time.
func nbits4Cols4(xp []float32, w []uint8, colBytes int, sc []float32, cpb int, out *[4]float32) {
	kb := len(sc) / 4
	for c := 0; c < 4; c += 2 {
		nbits4ColsN(xp, w[c*colBytes:], colBytes, sc[c*kb:(c+2)*kb], cpb, (*[2]float32)(out[c:c+2]))
	}
}

// nbits4ColsN: in SIMD128, one Uint32x4 load holds a chunk of 32 codes of
// a column, lane i the word nbits4ColScalar's a_i sums; 2 columns per pass
// share each vector of x. Bit for bit nbits4ColScalar (TestNBits4Twin).
func nbits4ColsN(xp []float32, w []uint8, colBytes int, sc []float32, cpb int, out *[2]float32) {
	kb := len(sc) / 2
	if kb == 0 {
		*out = [2]float32{}
		return
	}
	// One bounds check per operand; the loops stay inside them.
	_, _, _ = xp[kb*cpb*32-1], w[(2-1)*colBytes+kb*cpb*16-1], sc[2*kb-1]
	px, pw, ps := unsafe.Pointer(unsafe.SliceData(xp)), unsafe.Pointer(unsafe.SliceData(w)), unsafe.Pointer(unsafe.SliceData(sc))
	cb, sb := uintptr(colBytes), uintptr(kb)*4
	var t0, t1 f32x4
	var xo, wo uintptr
	for b := uintptr(0); b < uintptr(kb); b++ {
		var a0, a1, x f32x4
		for ch := 0; ch < cpb; ch++ {
			w0, w1 := ldu32x4(pw, wo+0*cb), ldu32x4(pw, wo+1*cb)
			x = ld4(px, xo+0)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+16)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf0)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf0)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+32)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf00)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf00)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+48)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf000)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf000)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+64)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf0000)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf0000)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+80)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf00000)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf00000)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+96)
			a0 = a0.Add(w0.And(archsimd.BroadcastUint32x4(0xf000000)).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.And(archsimd.BroadcastUint32x4(0xf000000)).BitsToInt32().ConvertToFloat32().Mul(x))
			x = ld4(px, xo+112)
			a0 = a0.Add(w0.ShiftAllRight(28).BitsToInt32().ConvertToFloat32().Mul(x))
			a1 = a1.Add(w1.ShiftAllRight(28).BitsToInt32().ConvertToFloat32().Mul(x))
			xo += 128
			wo += 16
		}
		t0 = t0.Add(a0.Mul(archsimd.BroadcastFloat32x4(*(*float32)(unsafe.Add(ps, 0*sb+4*b)))))
		t1 = t1.Add(a1.Mul(archsimd.BroadcastFloat32x4(*(*float32)(unsafe.Add(ps, 1*sb+4*b)))))
	}
	var l [2][4]float32
	t0.StoreArray(&l[0])
	t1.StoreArray(&l[1])
	for c := range out {
		out[c] = (l[c][0] + l[c][1]) + (l[c][2] + l[c][3])
	}
}

// nbits4Col is the sum of one column (nbits4ColScalar).
func nbits4Col(xp []float32, w []uint8, sc []float32, cpb int) float32 {
	return nbits4ColScalar(xp, w, sc, cpb)
}
