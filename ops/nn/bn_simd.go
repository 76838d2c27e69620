//go:build wasm && goexperiment.simd

package nn

import "simd/archsimd"

// scaleShiftRelu writes dst = max((src-sub)·mul + add, 0) as Relu does
// (NaN and −0 kept): kernels.ScaleShift then kernels.Activate(ActRelu) in
// one pass, with the same float32 operations, so results are identical.
func scaleShiftRelu(dst, src []float32, sub, mul, add float32) {
	src = src[:len(dst)]
	i := 0
	if len(dst) >= 4 {
		vs, vm, va := archsimd.BroadcastFloat32x4(sub), archsimd.BroadcastFloat32x4(mul), archsimd.BroadcastFloat32x4(add)
		zero := archsimd.BroadcastFloat32x4(0)
		for ; i+4 <= len(dst); i += 4 {
			v := archsimd.LoadFloat32x4(src[i:]).Sub(vs).Mul(vm).Add(va)
			zero.IfElse(v.Less(zero), v).Store(dst[i:])
		}
	}
	for ; i < len(dst); i++ {
		v := (src[i]-sub)*mul + add
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}
