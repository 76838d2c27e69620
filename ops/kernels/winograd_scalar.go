//go:build !(wasm && goexperiment.simd)

package kernels

// The Winograd transforms' loops for every build but WebAssembly with
// GOEXPERIMENT=simd (winograd_simd.go).

// winoRowsFull computes Bᵀ d down four full rows.
func winoRowsFull(d0, d1, d2, d3, t0, t1, t2, t3 []float32) {
	n := len(t0)
	d0, d1, d2, d3 = d0[:n], d1[:n], d2[:n], d3[:n]
	t1, t2, t3 = t1[:n], t2[:n], t3[:n]
	for i := 0; i < n; i++ {
		a0, a1, a2, a3 := d0[i], d1[i], d2[i], d3[i]
		t0[i], t1[i], t2[i], t3[i] = a0-a2, a1+a2, a2-a1, a1-a3
	}
}

// winoCols is winoInputRow's pass across the columns: for tiles
// [0, tilesW) of the four transformed rows, V_ξ[ci][t0+tw] into the packed
// operands.
func winoCols(rows *[4][]float32, tilesW int, pbs *[16]PackedB, ci, t0 int) {
	K := pbs[0].K
	for tw := 0; tw < tilesW; tw++ {
		tt := t0 + tw
		off := (tt/NR)*NR*K + ci*NR + tt%NR
		j := 2 * tw
		for r, row := range rows {
			winoTile(pbs, r, off, row[j], row[j+1], row[j+2], row[j+3])
		}
	}
}

// winoOutput applies Aᵀ m A to a block of nth tile rows of every output
// channel (winoOutputRows). It leaves ep (which the SIMD build may fuse) to
// the caller, and says so.
func winoOutput(mo []float32, m, tb, tilesW, nth int, y []float32, oh0, OH, OW int, ep *Epilogue) bool {
	winoOutputRows(mo, m, tb, tilesW, nth, y, oh0, OH, OW)
	return false
}
