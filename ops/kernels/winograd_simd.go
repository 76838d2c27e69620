//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

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

// winoOutput applies Aᵀ m A to a block of nth tile rows of every output
// channel (mo holds the 16 GEMM outputs, m × tb each), writing output rows
// oh0 … of y (m × OH × OW). Four tiles at a time: the products of four
// tiles are four vectors per ξ, and each output row's even and odd columns
// come out as two vectors, interleaved by lane moves into the row's eight
// columns. The last four tiles of a row overlap the ones before when the
// row's tiles are not a multiple of four, and store lane by lane past the
// row's end (odd widths, where the last tile has one column). Per
// element the arithmetic is the scalar build's (winoOutputRow), in its
// order. One call per block, loads through one pointer at the 16 ξ
// offsets: a call per output row that sliced the 16 matrices, and a scalar
// loop for the last tiles, cost as much as the arithmetic.
//
// A fusable epilogue (a row bias, a residual laid out as y, Relu) is
// applied to each pair of vectors before it is stored, as epilogueRow
// would after; winoOutput reports whether it did (otherwise the caller
// applies ep).
func winoOutput(mo []float32, m, tb, tilesW, nth int, y []float32, oh0, OH, OW int, ep *Epilogue) bool {
	os := OH * OW
	if tilesW < 4 || OW < 8 {
		winoOutputRows(mo, m, tb, tilesW, nth, y, oh0, OH, OW)
		return false
	}
	_, _ = mo[16*m*tb-1], y[m*os-1]
	var bias, res []float32
	fused := ep.fusable()
	if fused {
		if bias = ep.RowBias; bias != nil {
			_ = bias[m-1]
		}
		if res = ep.Residual; res != nil {
			if ep.LdR != os {
				fused = false
			} else {
				_ = res[m*os-1]
			}
		}
	}
	relu := fused && ep.Act == ActRelu
	pm, py := unsafe.Pointer(unsafe.SliceData(mo)), unsafe.Pointer(unsafe.SliceData(y))
	pr := unsafe.Pointer(unsafe.SliceData(res))
	var off [16]uintptr // ξ's matrix, in bytes from the first
	for xi := range off {
		off[xi] = uintptr(xi*m*tb) * 4
	}
	var z f32x4
	for mi := 0; mi < m; mi++ {
		var vb f32x4
		if fused && bias != nil {
			vb = archsimd.BroadcastFloat32x4(bias[mi])
		}
		for r := 0; r < nth; r++ {
			oh := oh0 + 2*r
			if oh >= OH {
				break
			}
			p := unsafe.Add(pm, uintptr(mi*tb+r*tilesW)*4)
			yo := uintptr(mi*os+oh*OW) * 4 // output row oh, in bytes
			two := oh+1 < OH
			for tw := 0; tw < tilesW; tw += 4 {
				tw = min(tw, tilesW-4)
				o := uintptr(tw) * 4
				var s0, s1 [4]f32x4
				for col := 0; col < 4; col++ {
					a0, a1 := ld4(p, off[col]+o), ld4(p, off[4+col]+o)
					a2, a3 := ld4(p, off[8+col]+o), ld4(p, off[12+col]+o)
					s0[col] = a0.Add(a1).Add(a2)
					s1[col] = a1.Sub(a2).Sub(a3)
				}
				rows := 1
				if two {
					rows = 2
				}
				e0, o0 := s0[0].Add(s0[1]).Add(s0[2]), s0[1].Sub(s0[2]).Sub(s0[3])
				e1, o1 := s1[0].Add(s1[1]).Add(s1[2]), s1[1].Sub(s1[2]).Sub(s1[3])
				for k := 0; k < rows; k++ {
					e, od := e0, o0
					if k == 1 {
						e, od = e1, o1
					}
					d0 := e.SetElem(1, od.GetElem(0)).SetElem(2, e.GetElem(1)).SetElem(3, od.GetElem(1))
					d1 := od.SetElem(0, e.GetElem(2)).SetElem(1, od.GetElem(2)).SetElem(2, e.GetElem(3))
					at := yo + uintptr(k*OW+2*tw)*4 // the eight columns' place in y
					if fused {
						if bias != nil {
							d0, d1 = d0.Add(vb), d1.Add(vb)
						}
						if res != nil {
							if 2*tw+8 <= OW {
								d0, d1 = d0.Add(ld4(pr, at)), d1.Add(ld4(pr, at+16))
							} else {
								rr := unsafe.Slice((*float32)(unsafe.Add(pr, at)), OW-2*tw)
								var t [8]float32
								copy(t[:], rr)
								d0, d1 = d0.Add(ld4(unsafe.Pointer(&t), 0)), d1.Add(ld4(unsafe.Pointer(&t), 16))
							}
						}
						if relu {
							d0, d1 = z.IfElse(d0.Less(z), d0), z.IfElse(d1.Less(z), d1)
						}
					}
					if 2*tw+8 <= OW {
						st4(d0, py, at)
						st4(d1, py, at+16)
					} else {
						// The row ends inside d1 (odd widths; OW ≥ 8 puts d0 inside).
						st4(d0, py, at)
						yt := unsafe.Slice((*float32)(unsafe.Add(py, at+16)), OW-2*tw-4)
						switch len(yt) {
						case 3:
							yt[2] = d1.GetElem(2)
							fallthrough
						case 2:
							yt[1] = d1.GetElem(1)
							fallthrough
						case 1:
							yt[0] = d1.GetElem(0)
						}
					}
				}
			}
		}
	}
	return fused
}
