package kernels

import "sync"

// Winograd F(2×2, 3×3) for 3×3 convolutions with unit stride and dilation:
// each 2×2 block of output pixels (a tile) comes from a 4×4 input patch d as
//
//	Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A
//
// so the 36 multiplies per tile and channel pair of the direct convolution
// become 16, done as 16 GEMMs (one per element ξ of the 4×4 transformed
// domain): M_ξ (M × tiles) = U_ξ (M × C) · V_ξ (C × tiles). U, the
// transformed weights, is packed once for constant weights. Tiles run in
// blocks of whole tile rows (≈ 64 tiles), so the transformed input and the
// GEMM outputs stay a few MB whatever the image size, and the epilogue runs
// on each block's output rows while they are in cache.
//
//	Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
//	G  = [1 0 0; ½ ½ ½; ½ -½ ½; 0 0 1]
//	Aᵀ = [1 1 1 0; 0 1 -1 -1]
//
// F(2,3) only uses ±1 and ½ in its transforms, so it loses little accuracy
// (the larger F(4,3) would save more multiplies at a real cost in accuracy).

// winogradMinC and winogradMinM are the least numbers of input and output
// channels for which the transforms pay for themselves. Measured in wasm
// (TestTuneWinograd) once the input and output transforms ran four tiles
// per vector: 0.95× the im2col GEMM at 16→64 channels (55×55), 0.83× at
// 24→24 (40×40), 1.12× at 32→128 (27×27), 1.04× at 48→192 (13×13), 1.21×
// at 64→256 (13×13), 1.45–1.77× on ResNet-50's layers; DenseNet-121
// (128→32) ran 9% and the U²-Net-style network 10% faster than at 64. (It
// was 64 while the transforms stored a float at a time.) Since the GEMM
// sweeps a column of tiles per call and the output transform a block,
// 16→64 channels (SqueezeNet's first 3×3 layers) run 9% faster than
// im2col, while 24→24 still ran 10% slower: so 16 in, 32 out.
const (
	winogradMinC = 16
	winogradMinM = 32
)

// winogradOn switches the Winograd path (a benchmark compares both).
var winogradOn = true

// WinogradFits reports whether a convolution runs as Winograd F(2,3): 2-D,
// 3×3, unit stride and dilation, one group, at least winogradMinC input and
// winogradMinM output channels.
func WinogradFits(g *ConvGeom, group, c, m int) bool {
	return winogradOn && len(g.In) == 2 && g.Kernel[0] == 3 && g.Kernel[1] == 3 && g.Strides[0] == 1 && g.Strides[1] == 1 &&
		g.Dilations[0] == 1 && g.Dilations[1] == 1 && group == 1 && c >= winogradMinC && m >= winogradMinM
}

// winoWeights is U = G g Gᵀ for every (m, c), as 16 packed M × C matrices.
type winoWeights struct {
	u [16]*PackedA
}

// newWinoWeights transforms and packs 3×3 weights (M × C × 9). With packs,
// the packed matrices reuse (and overwrite) its buffers.
//
// Each U_ξ is written straight into its packed layout, with no unpacked
// 16 × M × C intermediate to allocate and pack again, one panel of MR
// output channels per call of winoPackPanel: in WebAssembly a loop over all
// of M × C inside one call would run V8's baseline code to the end (there is
// no on-stack replacement), while a function called M/MR times is tiered up
// after a few calls.
func newWinoWeights(w []float32, m, c int, packs *[16]PackedA) *winoWeights {
	ww := &winoWeights{}
	var dst [16][]float32
	n := roundUp(m, MR) * c
	for x := range dst {
		if packs != nil {
			packs[x] = PackedA{M: m, K: c, data: grow(packs[x].data, n)}
			ww.u[x] = &packs[x]
		} else {
			ww.u[x] = &PackedA{M: m, K: c, data: make([]float32, n)}
		}
		dst[x] = ww.u[x].data
	}
	for i := 0; i < m; i += MR {
		rows := min(MR, m-i)
		winoPackPanel(w[i*c*9:(i+rows)*c*9], rows, c, i*c, &dst)
	}
	return ww
}

// winoPackPanel writes U_ξ = G g Gᵀ for the kernels g of rows (≤ MR) output
// channels (w: rows × C × 9) as the panel at base of each packed matrix
// dst[ξ] (input channel c's MR values at base + c·MR; rows past rows zero).
//
//go:noinline
func winoPackPanel(w []float32, rows, c, base int, dst *[16][]float32) {
	var u [16][MR]float32 // lanes past rows stay zero
	for ci := 0; ci < c; ci++ {
		for r := 0; r < rows; r++ {
			g := (*[9]float32)(w[(r*c+ci)*9 : (r*c+ci)*9+9])
			// t = G g (4×3), row by row, then U = t Gᵀ (4×4).
			u[0][r], u[1][r], u[2][r], u[3][r] = winoG(g[0], g[1], g[2])
			u[4][r], u[5][r], u[6][r], u[7][r] = winoG(0.5*(g[0]+g[3]+g[6]), 0.5*(g[1]+g[4]+g[7]), 0.5*(g[2]+g[5]+g[8]))
			u[8][r], u[9][r], u[10][r], u[11][r] = winoG(0.5*(g[0]-g[3]+g[6]), 0.5*(g[1]-g[4]+g[7]), 0.5*(g[2]-g[5]+g[8]))
			u[12][r], u[13][r], u[14][r], u[15][r] = winoG(g[6], g[7], g[8])
		}
		o := base + ci*MR
		for x := range u {
			*(*[MR]float32)(dst[x][o : o+MR]) = u[x]
		}
	}
}

// winoG is one row of t·Gᵀ: (a0, ½(a0+a1+a2), ½(a0−a1+a2), a2).
func winoG(a0, a1, a2 float32) (float32, float32, float32, float32) {
	return a0, 0.5 * (a0 + a1 + a2), 0.5 * (a0 - a1 + a2), a2
}

// PackWinograd prepares constant 3×3 weights of one group for Winograd
// F(2,3) (the convolution must satisfy WinogradFits); the plain GEMM packing
// is dropped, as Conv will not use it.
func (cw *ConvWeights) PackWinograd() {
	c := cw.KDim / 9
	cw.wino = newWinoWeights(cw.W, cw.M, c, nil)
	cw.packed = nil
}

// Winograd reports whether the weights are packed for Winograd F(2,3), a
// form Conv runs from without reading W.
func (cw *ConvWeights) Winograd() bool { return cw.wino != nil }

var winoPool = sync.Pool{New: func() any { return new(winoScratch) }}

// winoScratch is the pooled scratch of the Winograd path.
type winoScratch struct {
	packs [16]PackedA
	sub   winoWeights // a channel range of packed weights
	subs  [16]PackedA // sub's matrices
	v     []float32   // 16 packed C × tb blocks
	mo    []float32   // 16 M × tb GEMM outputs
	t     []float32   // 4 transformed input rows
}

// rows returns U restricted to output channels [lo, hi) (lo a multiple of
// MR), in s's storage.
func (ww *winoWeights) rows(lo, hi int, s *winoScratch) *winoWeights {
	for x, u := range ww.u {
		s.subs[x] = u.rows(lo, hi)
		s.sub.u[x] = &s.subs[x]
	}
	return &s.sub
}

// convWinogradImages is Conv on the Winograd path for output channels
// [lo, hi) and output pixels [plo, phi) of every image: a channel range
// transforms the whole input, then runs the GEMMs and the output transform
// for its channels only; a pixel range (on pixelAlign's multiples) runs
// the whole run's blocks of tile rows that make it up.
func convWinogradImages(cw *ConvWeights, a *ConvArgs, lo, hi, plo, phi int) error {
	g := a.Geom
	is, os, m := g.InSize(), g.OutSize(), hi-lo
	ws := winoPool.Get().(*winoScratch)
	defer winoPool.Put(ws)
	ww := cw.wino
	if ww == nil {
		// Each output channel's weights transform on their own.
		ww = newWinoWeights(cw.W[lo*a.C*9:hi*a.C*9], m, a.C, &ws.packs)
	} else if m != cw.M {
		ww = ww.rows(lo, hi, ws)
	}
	ep := Epilogue{Act: a.Act, Alpha: a.Alpha, Beta: a.Beta, LdR: os}
	if a.Bias != nil {
		ep.RowBias = a.Bias[lo:hi]
	}
	// The tile rows [th0, th1) of the pixel range.
	OW, tilesH := g.Out[1], (g.Out[0]+1)/2
	th0, th1 := plo/(2*OW), tilesH
	if phi < os {
		th1 = phi / (2 * OW)
	}
	for n := 0; n < a.N; n++ {
		yo := (n*cw.M + lo) * os
		if a.Residual != nil {
			ep.Residual = a.Residual[yo : yo+m*os]
		}
		var epp *Epilogue
		if ep.active() {
			epp = &ep
		}
		if err := convWinograd(ww, a.C, m, g, a.X[n*a.C*is:(n+1)*a.C*is], a.Y[yo:yo+m*os], th0, th1, epp, ws, a.Checkpoint); err != nil {
			return err
		}
	}
	return nil
}

// winoRowsPer returns the tile rows of a Winograd block for OW output
// columns: about 64 tiles.
func winoRowsPer(OW int) int { return max(1, 64/((OW+1)/2)) }

// convWinograd runs one image of a group-1 3×3 unit-stride convolution,
// its tile rows [th0, th1) (th0 a multiple of winoRowsPer; th1 too, or the
// last tile row's end). x: C × H × W, y: M × OH × OW; ep carries the bias,
// residual and activation.
func convWinograd(ww *winoWeights, c, m int, g *ConvGeom, x, y []float32, th0, th1 int, ep *Epilogue, s *winoScratch, checkpoint func() error) error {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	tilesW := (OW + 1) / 2
	rowsPer := winoRowsPer(OW)
	tbMax := rowsPer * tilesW
	tbPad := roundUp(tbMax, NR)
	s.v = grow(s.v, 16*tbPad*c)
	s.mo = grow(s.mo, 16*m*tbMax)
	os := OH * OW
	// The strip of 4 input rows a tile row reads, transformed down the
	// rows (Bᵀ d): t[r][col], with the padding as zeros; columns are offset
	// by pw so that tile tw reads t[r][2tw : 2tw+4].
	tw4 := 2*tilesW + 2
	s.t = grow(s.t, 4*tw4)
	for ; th0 < th1; th0 += rowsPer {
		if checkpoint != nil {
			if err := checkpoint(); err != nil {
				return err
			}
		}
		nth := min(rowsPer, th1-th0)
		tb := nth * tilesW
		// Input transform into 16 packed B operands (C × tb each).
		var pbs [16]PackedB
		for xi := range pbs {
			pbs[xi] = PackedB{K: c, N: tb, data: s.v[xi*tbPad*c : (xi+1)*tbPad*c]}
		}
		for ci := 0; ci < c; ci++ {
			xc := x[ci*H*W : (ci+1)*H*W]
			for r := 0; r < nth; r++ {
				winoInputRow(xc, H, W, (th0+r)*2-ph, pw, s.t[:4*tw4], tw4, tilesW, &pbs, ci, r*tilesW)
			}
		}
		// Zero the padding columns of the last panel (the GEMM reads them).
		if tb%NR != 0 {
			for xi := range pbs {
				d := pbs[xi].data
				q := tb / NR
				for p := 0; p < c; p++ {
					clear(d[q*NR*c+p*NR+tb%NR : q*NR*c+p*NR+NR])
				}
			}
		}
		for xi := 0; xi < 16; xi++ {
			sgemm(m, tb, c, &aOperand{packed: ww.u[xi]}, &bOperand{packed: &pbs[xi]}, 0, s.mo[xi*m*tb:(xi+1)*m*tb], tb, nil)
		}
		// Output transform and the epilogue of these output rows.
		oh0, oh1 := th0*2, min(OH, (th0+nth)*2)
		fused := winoOutput(s.mo[:16*m*tb], m, tb, tilesW, nth, y, oh0, OH, OW, ep)
		if ep != nil && !fused {
			// y is M × os: these rows are its columns [oh0·OW, oh1·OW).
			ep.apply(y, os, 0, m, oh0*OW, (oh1-oh0)*OW)
		}
	}
	return nil
}

// winoInputRow transforms the input patches of one tile row of channel xc
// (input rows ih0..ih0+3, zero outside the image) and writes, for each tile
// tw, V_ξ[ci][t0+tw] into the packed operands.
func winoInputRow(xc []float32, H, W, ih0, pw int, t []float32, tw4, tilesW int, pbs *[16]PackedB, ci, t0 int) {
	// Down the rows: t0 = d0 - d2, t1 = d1 + d2, t2 = d2 - d1, t3 = d1 - d3,
	// over the strip's columns (col j reads input column j - pw).
	var rows [4][]float32
	for r := 0; r < 4; r++ {
		if ih := ih0 + r; ih >= 0 && ih < H {
			rows[r] = xc[ih*W : (ih+1)*W]
		}
	}
	r0, r1, r2, r3 := t[0:tw4], t[tw4:2*tw4], t[2*tw4:3*tw4], t[3*tw4:4*tw4]
	lo, hi := max(0, pw), min(tw4, W+pw) // strip columns inside the image
	clear(r0[:lo])
	clear(r1[:lo])
	clear(r2[:lo])
	clear(r3[:lo])
	if hi < tw4 {
		clear(r0[max(hi, lo):])
		clear(r1[max(hi, lo):])
		clear(r2[max(hi, lo):])
		clear(r3[max(hi, lo):])
	}
	if lo < hi {
		winoRows(rows, r0[lo:hi], r1[lo:hi], r2[lo:hi], r3[lo:hi], lo-pw)
	}
	// Across the columns of each tile, into the packed panels.
	winoCols(&[4][]float32{r0, r1, r2, r3}, tilesW, pbs, ci, t0)
}

// winoTile writes tile tw of row r (its columns j = 2tw … 2tw+3 as d0…d3)
// transformed across the columns, A·Bᵀ's last step, to V_ξ (ξ = 4r…4r+3)
// at the packed offset off.
func winoTile(pbs *[16]PackedB, r, off int, d0, d1, d2, d3 float32) {
	pbs[r*4+0].data[off] = d0 - d2
	pbs[r*4+1].data[off] = d1 + d2
	pbs[r*4+2].data[off] = d2 - d1
	pbs[r*4+3].data[off] = d1 - d3
}

// winoRows computes Bᵀ d down the four rows over n columns: rows[r] (nil
// for a row outside the image) read from column c0.
func winoRows(rows [4][]float32, t0, t1, t2, t3 []float32, c0 int) {
	n := len(t0)
	get := func(r int) []float32 {
		if rows[r] == nil {
			return nil
		}
		return rows[r][c0 : c0+n]
	}
	d0, d1, d2, d3 := get(0), get(1), get(2), get(3)
	at := func(d []float32, i int) float32 {
		if d == nil {
			return 0
		}
		return d[i]
	}
	if d0 != nil && d1 != nil && d2 != nil && d3 != nil {
		winoRowsFull(d0, d1, d2, d3, t0, t1, t2, t3)
		return
	}
	for i := 0; i < n; i++ {
		a0, a1, a2, a3 := at(d0, i), at(d1, i), at(d2, i), at(d3, i)
		t0[i], t1[i], t2[i], t3[i] = a0-a2, a1+a2, a2-a1, a1-a3
	}
}

// winoOutputRows applies Aᵀ m A to a block of nth tile rows of every output
// channel (mo holds the 16 GEMM outputs, m × tb each), writing output rows
// oh0 … of y (m × OH × OW), row by row with winoOutputRow.
func winoOutputRows(mo []float32, m, tb, tilesW, nth int, y []float32, oh0, OH, OW int) {
	os := OH * OW
	for mi := 0; mi < m; mi++ {
		yp := y[mi*os : (mi+1)*os]
		for r := 0; r < nth; r++ {
			winoOutputRow(mo, m*tb, mi*tb+r*tilesW, tilesW, yp, oh0+2*r, OH, OW)
		}
	}
}

// winoOutputRow applies Aᵀ m A to the tiles [t0, t0+tilesW) of output
// channel row mi (mo holds the 16 GEMM outputs, stride per ξ), writing the
// 2×2 blocks of output rows oh, oh+1 (clipped to OH × OW).
func winoOutputRow(mo []float32, stride, base, tilesW int, y []float32, oh, OH, OW int) {
	var m [16][]float32
	for xi := range m {
		m[xi] = mo[xi*stride+base : xi*stride+base+tilesW]
	}
	y0 := y[oh*OW : (oh+1)*OW]
	var y1 []float32
	if oh+1 < OH {
		y1 = y[(oh+1)*OW : (oh+2)*OW]
	}
	for tw := 0; tw < tilesW; tw++ {
		// Down the rows: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (per column).
		var s0, s1 [4]float32
		for col := 0; col < 4; col++ {
			a0, a1, a2, a3 := m[col][tw], m[4+col][tw], m[8+col][tw], m[12+col][tw]
			s0[col] = a0 + a1 + a2
			s1[col] = a1 - a2 - a3
		}
		ow := 2 * tw
		y0[ow] = s0[0] + s0[1] + s0[2]
		if ow+1 < OW {
			y0[ow+1] = s0[1] - s0[2] - s0[3]
		}
		if y1 != nil {
			y1[ow] = s1[0] + s1[1] + s1[2]
			if ow+1 < OW {
				y1[ow+1] = s1[1] - s1[2] - s1[3]
			}
		}
	}
}
