//go:build wasm && goexperiment.simd

package kernels

import "simd/archsimd"

// sigmoidSlice applies Sigmoid32 in place, four lanes at a time with the
// same float32 operations in the same order (sigmoid.go), so that each
// element is bit for bit Sigmoid32's (a NaN stays a NaN).
func sigmoidSlice(x []float32) {
	n := len(x) &^ 3
	zero, one := archsimd.BroadcastFloat32x4(0), archsimd.BroadcastFloat32x4(1)
	minArg := archsimd.BroadcastFloat32x4(expMinArg)
	log2e := archsimd.BroadcastFloat32x4(expLog2e)
	ln2hi, ln2lo := archsimd.BroadcastFloat32x4(expLn2Hi), archsimd.BroadcastFloat32x4(expLn2Lo)
	c2, c3, c4 := archsimd.BroadcastFloat32x4(expC2), archsimd.BroadcastFloat32x4(expC3), archsimd.BroadcastFloat32x4(expC4)
	c5, c6, c7 := archsimd.BroadcastFloat32x4(expC5), archsimd.BroadcastFloat32x4(expC6), archsimd.BroadcastFloat32x4(expC7)
	bias := archsimd.BroadcastFloat32x4(expBiasBits)
	for i := 0; i < n; i += 4 {
		v := archsimd.LoadFloat32x4(x[i:])
		a := v.Abs().Neg()
		under := a.Less(minArg)
		a = a.Max(minArg) // in range for the exponent bits; those lanes become 0 below
		t := a.Mul(log2e)
		k := t.Round()
		r := a.Sub(k.Mul(ln2hi))
		r = r.Sub(k.Mul(ln2lo))
		p := c7.Mul(r).Add(c6)
		p = p.Mul(r).Add(c5)
		p = p.Mul(r).Add(c4)
		p = p.Mul(r).Add(c3)
		p = p.Mul(r).Add(c2)
		p = p.Mul(r).Add(one)
		p = p.Mul(r).Add(one)
		// 2^k from the exponent bits: k + 127 is a whole number in
		// [1, 127] (0 for a NaN lane, whose p is NaN anyway).
		s := k.Add(bias).ConvertToUint32().ShiftAllLeft(23).BitsToFloat32()
		e := zero.IfElse(under, p.Mul(s))
		d := one.Add(e)
		one.Div(d).IfElse(v.GreaterEqual(zero), e.Div(d)).Store(x[i:])
	}
	for i := n; i < len(x); i++ {
		x[i] = Sigmoid32(x[i])
	}
}
