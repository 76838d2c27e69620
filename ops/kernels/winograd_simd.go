//go:build wasm && goexperiment.simd

package kernels

import "simd/archsimd"

// The Winograd transforms' loops in WebAssembly SIMD128 (GOEXPERIMENT=simd),
// four lanes at a time; each computes what winograd_scalar.go does, element
// for element in the same order.

// winoRowsFull computes Bᵀ d down four full rows.
func winoRowsFull(d0, d1, d2, d3, t0, t1, t2, t3 []float32) {
	n := len(t0)
	d0, d1, d2, d3 = d0[:n], d1[:n], d2[:n], d3[:n]
	t1, t2, t3 = t1[:n], t2[:n], t3[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		a0, a1 := archsimd.LoadFloat32x4(d0[i:i+4]), archsimd.LoadFloat32x4(d1[i:i+4])
		a2, a3 := archsimd.LoadFloat32x4(d2[i:i+4]), archsimd.LoadFloat32x4(d3[i:i+4])
		a0.Sub(a2).Store(t0[i : i+4])
		a1.Add(a2).Store(t1[i : i+4])
		a2.Sub(a1).Store(t2[i : i+4])
		a1.Sub(a3).Store(t3[i : i+4])
	}
	for ; i < n; i++ {
		a0, a1, a2, a3 := d0[i], d1[i], d2[i], d3[i]
		t0[i], t1[i], t2[i], t3[i] = a0-a2, a1+a2, a2-a1, a1-a3
	}
}

// winoCols is winoInputRow's pass across the columns: for tiles
// [0, tilesW) of the four transformed rows, V_ξ[ci][t0+tw] into the packed
// operands. Each row is split into its even and odd columns (eo, 2·tilesW+2
// floats), so that four tiles' d0…d3 are four vectors (E[tw], O[tw],
// E[tw+1], O[tw+1] on four lanes) and their results four stores: the tiles
// of a panel sit NR floats apart in each V_ξ. The arithmetic is the scalar
// pass's, element for element. One float store per tile and ξ, with its
// bounds check, was a sixth of the U²-Net-style network's run.
func winoCols(rows *[4][]float32, tilesW int, pbs *[16]PackedB, ci, t0 int, eo []float32) {
	K := pbs[0].K
	n := tilesW + 1
	e, o := eo[:n], eo[n:2*n]
	for r, row := range rows {
		deinterleave2(e, o, row[:2*n])
		p0, p1, p2, p3 := pbs[r*4].data, pbs[r*4+1].data, pbs[r*4+2].data, pbs[r*4+3].data
		for tw := 0; tw < tilesW; {
			tt := t0 + tw
			off := (tt/NR)*NR*K + ci*NR + tt%NR
			if tt%4 != 0 || tw+4 > tilesW {
				// Before the first group of four in a panel, or after the last.
				winoTile(pbs, r, off, e[tw], o[tw], e[tw+1], o[tw+1])
				tw++
				continue
			}
			e0, e1 := archsimd.LoadFloat32x4(e[tw:tw+4]), archsimd.LoadFloat32x4(e[tw+1:tw+5])
			o0, o1 := archsimd.LoadFloat32x4(o[tw:tw+4]), archsimd.LoadFloat32x4(o[tw+1:tw+5])
			e0.Sub(e1).Store(p0[off : off+4])
			o0.Add(e1).Store(p1[off : off+4])
			e1.Sub(o0).Store(p2[off : off+4])
			o0.Sub(o1).Store(p3[off : off+4])
			tw += 4
		}
	}
}

// winoOutputVec applies Aᵀ m A to winoOutputRow's tiles four at a time,
// while their eight output columns lie inside the row, and returns how many
// tiles it did (the rest take winoOutputRow's scalar loop). The products of
// four tiles are four vectors per ξ; each output row's even and odd columns
// come out as two vectors, interleaved into the row by lane moves. Per
// element the arithmetic is the scalar loop's, in its order.
func winoOutputVec(m *[16][]float32, y0, y1 []float32, tilesW, OW int) int {
	tw := 0
	for ; tw+4 <= tilesW && 2*tw+8 <= OW; tw += 4 {
		var s0, s1 [4]f32x4
		for col := 0; col < 4; col++ {
			a0 := archsimd.LoadFloat32x4(m[col][tw : tw+4])
			a1 := archsimd.LoadFloat32x4(m[4+col][tw : tw+4])
			a2 := archsimd.LoadFloat32x4(m[8+col][tw : tw+4])
			a3 := archsimd.LoadFloat32x4(m[12+col][tw : tw+4])
			s0[col] = a0.Add(a1).Add(a2)
			s1[col] = a1.Sub(a2).Sub(a3)
		}
		ow := 2 * tw
		interleave2(y0[ow:ow+8], s0[0].Add(s0[1]).Add(s0[2]), s0[1].Sub(s0[2]).Sub(s0[3]))
		if y1 != nil {
			interleave2(y1[ow:ow+8], s1[0].Add(s1[1]).Add(s1[2]), s1[1].Sub(s1[2]).Sub(s1[3]))
		}
	}
	return tw
}

// interleave2 stores e's lanes to d's even and o's to its odd elements.
func interleave2(d []float32, e, o f32x4) {
	e.SetElem(1, o.GetElem(0)).SetElem(2, e.GetElem(1)).SetElem(3, o.GetElem(1)).Store(d[0:4])
	o.SetElem(0, e.GetElem(2)).SetElem(1, o.GetElem(2)).SetElem(2, e.GetElem(3)).Store(d[4:8])
}
