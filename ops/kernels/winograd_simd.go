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
// operands. Runs of four tiles starting at a multiple of four in the block
// (the tiles of a panel sit NR floats apart in each V_ξ, so four of them
// are one vector) go to winoColsRun, the others to winoTile; the
// arithmetic is the scalar pass's, element for element.
func winoCols(rows *[4][]float32, tilesW int, pbs *[16]PackedB, ci, t0 int) {
	K := pbs[0].K
	for r, row := range rows {
		_ = row[2*tilesW+1]
		for tw := 0; tw < tilesW; {
			tt := t0 + tw
			if runs := (tilesW - tw) / 4; tt%4 == 0 && runs > 0 {
				// The runs' last tile's place in every operand, checked.
				last := t0 + tw + 4*runs - 4
				off := (last/NR)*NR*K + ci*NR + last%NR
				ps := [4]unsafe.Pointer{}
				for c := range ps {
					d := pbs[r*4+c].data
					_ = d[off+3]
					ps[c] = unsafe.Pointer(&d[ci*NR])
				}
				winoColsRun(unsafe.Pointer(&row[2*tw]), tt, runs, ps[0], ps[1], ps[2], ps[3], uintptr(NR*K)*4, unsafe.Pointer(&evenOddLanes))
				tw += 4 * runs
				continue
			}
			j := 2 * tw
			winoTile(pbs, r, (tt/NR)*NR*K+ci*NR+tt%NR, row[j], row[j+1], row[j+2], row[j+3])
			tw++
		}
	}
}

// winoColsRun stores runs of four tiles' V_ξ, from the transformed row at
// the first tile's columns, into the four operands p0…p3 (each at the
// channel's row of panel 0; panel bytes apart), tile tt first (a multiple
// of four), in WebAssembly (winograd_wasm.s).
//
//go:noescape
func winoColsRun(row unsafe.Pointer, tt, runs int, p0, p1, p2, p3 unsafe.Pointer, panel uintptr, lanes unsafe.Pointer)

// winoOutput applies Aᵀ m A to a block of nth tile rows of every output
// channel (mo holds the 16 GEMM outputs, m × tb each), writing output rows
// oh0 … of y (m × OH × OW): one winoOutRows call per tile row, with a
// fusable epilogue (a row bias, a residual laid out as y, Relu) applied
// before the stores, as epilogueRow would after; winoOutput reports
// whether it did (otherwise the caller applies ep). Rows of fewer than
// four tiles or eight columns take winoOutputRows.
func winoOutput(mo []float32, m, tb, tilesW, nth int, y []float32, oh0, OH, OW int, ep *Epilogue) bool {
	os := OH * OW
	if tilesW < 4 || OW < 8 {
		winoOutputRows(mo, m, tb, tilesW, nth, y, oh0, OH, OW)
		return false
	}
	// The last tile row of the block reads mo up to its end; an odd width's
	// last block reads the residual and writes y only inside their rows.
	_, _ = mo[16*m*tb-1], y[m*os-1]
	fused := ep.fusable() && ep.Act != ActHardSwish && (ep.Residual == nil || ep.LdR == os)
	flags := 0
	var bias, res unsafe.Pointer
	if fused {
		if ep.RowBias != nil {
			_ = ep.RowBias[m-1]
			flags |= winoBias
			bias = unsafe.Pointer(unsafe.SliceData(ep.RowBias))
		}
		if ep.Residual != nil {
			_ = ep.Residual[m*os-1]
			flags |= winoResidual
			res = unsafe.Pointer(unsafe.SliceData(ep.Residual))
		}
		if ep.Act == ActRelu {
			flags |= winoRelu
		}
	}
	if 2*tilesW > OW {
		flags |= winoOddWidth
	}
	s := uintptr(m*tb) * 4
	pr := winoParams{s, 4 * s, 8 * s, 12 * s, uintptr(tb) * 4, uintptr(os) * 4, uintptr(OW) * 4, uintptr(tilesW-4) * 4}
	pm, py := unsafe.Pointer(unsafe.SliceData(mo)), unsafe.Pointer(unsafe.SliceData(y))
	for r := 0; r < nth; r++ {
		oh := oh0 + 2*r
		if oh >= OH {
			break
		}
		f := flags
		if oh+1 < OH {
			f |= winoTwoRows
		}
		at := uintptr(oh*OW) * 4
		var rr unsafe.Pointer
		if res != nil {
			rr = unsafe.Add(res, at)
		}
		winoOutRows(unsafe.Add(pm, uintptr(r*tilesW)*4), unsafe.Add(py, at), rr, bias, m, f, unsafe.Pointer(&pr), unsafe.Pointer(&winoLanes))
	}
	return fused
}

// winoParams are winoOutRows' strides in bytes: between the ξ matrices
// (S, and 4S, 8S, 12S for the rows of the 4×4), between channels' GEMM
// outputs and output planes, between output rows, and the last block's
// first tile × 4.
type winoParams struct {
	s, s4, s8, s12, ps, ys, row, last uintptr
}

// winoOutRows' flags.
const (
	winoBias     = 1 << iota // add the channel's bias
	winoResidual             // add the residual, laid out as y
	winoRelu                 // then Relu
	winoOddWidth             // the row's last tile has one column
	winoTwoRows              // the tile row has two output rows
)

// winoLanes are winoOutRows' i8x16.swizzle indices (0x80: a zero byte):
// even columns e and odd columns o into [e0 o0 e1 o1] and [e2 o2 e3 o3],
// then for an odd width's last block, [a3 b0 b1 b2] from vectors a, b.
var winoLanes = [96]byte{
	0, 1, 2, 3, 0x80, 0x80, 0x80, 0x80, 4, 5, 6, 7, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 0x80, 0x80, 0x80, 0x80, 4, 5, 6, 7,
	8, 9, 10, 11, 0x80, 0x80, 0x80, 0x80, 12, 13, 14, 15, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 8, 9, 10, 11, 0x80, 0x80, 0x80, 0x80, 12, 13, 14, 15,
	12, 13, 14, 15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
}

// winoOutRows is the output transform of one tile row of m channels, in
// WebAssembly (winograd_wasm.s): mo is the row's first GEMM output of
// channel 0, y and res its output row's first element (channels ys
// apart), bias channel 0's bias; flags as above.
//
//go:noescape
func winoOutRows(mo, y, res, bias unsafe.Pointer, m int, flags int, params, lanes unsafe.Pointer)
