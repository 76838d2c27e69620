package kernels

import (
	"fmt"
	"sync"
)

// Float32 convolution on top of the packed GEMM. Per image and group the
// output (M/group channels × output pixels) is W_g · col(X_g):
//
//   - 1×1, unit stride, no padding: col(X_g) is X_g itself, read straight
//     into the GEMM's B panels;
//   - otherwise the im2col matrix is never materialised: the GEMM asks for
//     one kc×nc block of it at a time and im2colB writes that block directly
//     in packed-panel form (the scratch is one block, ≤ 2 MB, whatever the
//     image size);
//   - one input channel per group (depthwise, or C = 1) runs a direct
//     convolution instead (depthwise.go);
//   - 3×3 at unit stride and dilation with at least 32 input and output
//     channels runs as Winograd F(2×2, 3×3) (winograd.go);
//   - a pointwise convolution of a single pixel is one dot product per
//     output (convvec.go).
//
// Bias, residual and activation run in the GEMM's epilogue while the output
// tile is still in cache.
//
// A run may compute a range of output channels only (ConvArgs.Lo, Hi), or
// on the Winograd and im2col paths a range of output pixels (PixLo, PixHi),
// so that several workers share one convolution: each takes the algorithm
// the whole run would, with the same blocking, and restricts it to its
// part, so that every output is bit for bit the whole run's (see
// ConvSplitOf).

// ConvWeights is a convolution's weight tensor (M × C/group × kernel) with,
// when it is constant, its per-group GEMM packing done once.
type ConvWeights struct {
	W      []float32
	M      int
	Group  int
	KDim   int        // C/group · kernel size
	packed []*PackedA // per group; nil to pack block by block on each run
	wino   *winoWeights
}

// NewConvWeights wraps w; with pack it also packs each group for the GEMM
// (for weights that stay the same on every run).
func NewConvWeights(w []float32, m, group, kdim int, pack bool) *ConvWeights {
	cw := &ConvWeights{W: w, M: m, Group: group, KDim: kdim}
	if pack {
		mg := m / group
		cw.packed = make([]*PackedA, group)
		for g := range cw.packed {
			cw.packed[g] = PackA(false, mg, kdim, 1, w[g*mg*kdim:(g+1)*mg*kdim], kdim)
		}
	}
	return cw
}

func (cw *ConvWeights) a(g int) aOperand { return cw.aRows(g, 0, cw.M/cw.Group, nil) }

// aRows is group g's output channels [lo, hi) as the GEMM's left operand;
// lo is a multiple of MR, and a packed group's rows are then its panels
// from lo/MR on, described in sub.
func (cw *ConvWeights) aRows(g, lo, hi int, sub *PackedA) aOperand {
	if cw.packed != nil {
		p := cw.packed[g]
		if lo == 0 && hi == p.M {
			return aOperand{packed: p}
		}
		*sub = p.rows(lo, hi)
		return aOperand{packed: sub}
	}
	o := g * (cw.M / cw.Group)
	return aOperand{a: cw.W[(o+lo)*cw.KDim : (o+hi)*cw.KDim], lda: cw.KDim, alpha: 1}
}

// ConvArgs describes one float32 convolution run.
type ConvArgs struct {
	N, C     int // images, input channels
	Geom     *ConvGeom
	X        []float32 // N × C × In
	Bias     []float32 // M, or nil
	Residual []float32 // N × M × Out (added before the activation), or nil
	Act      Act
	Alpha    float32
	Beta     float32
	Y        []float32 // N × M × Out
	// Lo and Hi restrict the run to output channels [Lo, Hi) of every image
	// (Hi == 0: up to M, so the zero values are the whole run). Only those
	// channels of Y are written; Y and Residual keep their full N × M × Out
	// layout. With Lo and Hi multiples of ConvSplitAlign (Hi may also be
	// M), those channels are bit-identical to a whole run's.
	Lo, Hi int
	// PixLo and PixHi restrict the run to output pixels [PixLo, PixHi) of
	// every output channel plane of every image (flattened spatial index;
	// PixHi == 0: all). Only those pixels of Y are written. Lo/Hi and
	// PixLo/PixHi are not combined: a run restricts one or the other.
	PixLo, PixHi int
	// Checkpoint, when set, is called between blocks of a few million
	// multiply-adds; an error aborts the convolution.
	Checkpoint func() error
}

// lift2D returns the 1-D geometry g as a 2-D one with a leading unit axis.
func (g *ConvGeom) lift2D() *ConvGeom {
	return &ConvGeom{In: []int{1, g.In[0]}, Out: []int{1, g.Out[0]}, Kernel: []int{1, g.Kernel[0]},
		Strides: []int{1, g.Strides[0]}, Dilations: []int{1, g.Dilations[0]}, PadsBegin: []int{0, g.PadsBegin[0]}}
}

// Pointwise reports whether g is a 1×1 convolution with unit stride and no
// padding, whose input already is its im2col matrix.
func Pointwise(g *ConvGeom) bool {
	for d := range g.In {
		if g.Kernel[d] != 1 || g.Strides[d] != 1 || g.PadsBegin[d] != 0 || g.Out[d] != g.In[d] {
			return false
		}
	}
	return true
}

// convPath is the algorithm Conv runs a convolution with.
type convPath uint8

const (
	convGEMM      convPath = iota // the GEMM on the im2col matrix (or, pointwise, on the input)
	convWinoPath                  // Winograd F(2,3) (winograd.go)
	convDWPath                    // a direct convolution per output channel (depthwise.go)
	convPixelPath                 // one dot product per output channel (convvec.go)
)

// choosePath picks the algorithm for a convolution of rank 2 or more (Conv
// lifts 1-D ones), from the whole convolution: a channel range runs the
// same algorithm as the whole run, so that its results are the same.
func choosePath(cw *ConvWeights, a *ConvArgs) convPath {
	g := a.Geom
	cg, mg := a.C/cw.Group, cw.M/cw.Group
	switch {
	// Weights not packed at build are transformed on every run, which
	// only pays off on larger images.
	case WinogradFits(g, cw.Group, cg, mg) && (cw.wino != nil || g.OutSize() >= 256):
		return convWinoPath
	case cg == 1 && len(g.In) == 2 && (cw.Group > 1 || mg < MR):
		return convDWPath
	case Pointwise(g) && g.OutSize() == 1:
		return convPixelPath
	}
	return convGEMM
}

// splitAlign is ConvSplitAlign for a convolution that runs path p.
//
//   - The GEMM and Winograd paths compute a channel range as the GEMM's
//     rows [lo, hi). Each output sums its products in the same order
//     whatever rows surround it: the depth blocks are the outer loop, so
//     the row blocks (sgemmMC) may fall anywhere. But which micro-kernel
//     computes a tile of MR rows depends on how many of them exist, so a
//     range starts on a tile's first row, and a packed A is then a run of
//     whole panels. With several groups a range may cross groups when each
//     group is whole tiles; otherwise it takes whole groups.
//   - The depthwise and single-pixel paths compute each output channel on
//     its own.
func splitAlign(p convPath, cw *ConvWeights) int {
	switch mg := cw.M / cw.Group; {
	case p == convDWPath || p == convPixelPath:
		return 1
	case cw.Group == 1 || mg%MR == 0:
		return MR
	default:
		return mg
	}
}

// ConvSplitAlign returns the multiple that a channel range of this
// convolution must start and end on (its last range may end at M) for
// Conv to compute it bit-identically to a whole run, or 0 when Conv cannot
// run it in channel ranges.
//
// Only malformed shapes (groups that do not divide the channels) give 0:
// every path runs ranges. Ranges may be computed concurrently, each with
// its own ConvArgs; they write disjoint parts of Y.
func ConvSplitAlign(cw *ConvWeights, a *ConvArgs) int {
	if !wellFormed(cw, a) {
		return 0
	}
	b := a.lifted()
	return splitAlign(choosePath(cw, b), cw)
}

// wellFormed reports whether the groups divide the channels.
func wellFormed(cw *ConvWeights, a *ConvArgs) bool {
	return cw.Group > 0 && cw.M%cw.Group == 0 && a.C%cw.Group == 0
}

// lifted returns a, or for a 1-D convolution a copy with the 2-D geometry
// that Conv runs it as.
func (a *ConvArgs) lifted() *ConvArgs {
	if len(a.Geom.In) != 1 {
		return a
	}
	b := *a
	b.Geom = a.Geom.lift2D()
	return &b
}

// ConvSplit is how Conv can compute a convolution in parts.
type ConvSplit struct {
	Pixels bool // parts are ranges of output pixels (PixLo/PixHi), else of output channels (Lo/Hi)
	Units  int  // output pixels per plane (Pixels) or output channels
	Align  int  // part bounds are multiples of Align (the last may end at Units); 0: no split
}

// ConvSplitOf returns how Conv splits this convolution into at most parts
// parts of about equal work, bit-identical to a whole run.
//
// A channel range of the Winograd path transforms the whole input again
// (1.21× the whole run's work over two parts, in wasm), and one of the
// im2col GEMM packs the whole im2col matrix again (1.03–1.10×); a pixel
// range does neither, so those two paths split by pixels, in their own
// blocks of output rows or pixel segments, as long as there is a block for
// every part. The others split by channels: the pointwise GEMM has no
// im2col to duplicate, and the depthwise and single-pixel paths compute
// each channel on its own.
func ConvSplitOf(cw *ConvWeights, a *ConvArgs, parts int) ConvSplit {
	if !wellFormed(cw, a) {
		return ConvSplit{Units: cw.M}
	}
	b := a.lifted()
	p := choosePath(cw, b)
	if os := b.Geom.OutSize(); os > 0 {
		if al := pixelAlign(p, cw, b); al > 0 && evenBlocks(os, al, max(parts, 2)) {
			return ConvSplit{Pixels: true, Units: os, Align: al}
		}
	}
	return ConvSplit{Units: cw.M, Align: splitAlign(p, cw)}
}

// evenBlocks reports whether units in blocks of align split into parts
// parts evenly enough: every part gets a block, and the largest (whole
// blocks) is at most 1.2 times an equal share. The parts run at the same
// time, so the largest sets the pace: 4 segments of 256, 256, 256 and 16
// pixels in 2 parts take 512 pixels' time, slower than splitting the
// channels, whose parts each redo a little of the work (1.03–1.2×).
func evenBlocks(units, align, parts int) bool {
	blocks := (units + align - 1) / align
	return blocks >= parts && 5*min(units, (blocks+parts-1)/parts*align)*parts <= 6*units
}

// pixelAlign returns the multiple that a pixel range of a convolution
// running path p (2-D, at least one output pixel) must start and end on,
// or 0 when p does not run pixel ranges. The parts are the blocks the
// whole run loops over, the same whatever range they are in: Winograd's
// blocks of tile rows, and the GEMM's pixel segments of a 2-D im2col (the
// pointwise GEMM and N-D convolutions split by channels only).
func pixelAlign(p convPath, cw *ConvWeights, a *ConvArgs) int {
	g := a.Geom
	switch {
	case p == convWinoPath:
		return 2 * winoRowsPer(g.Out[1]) * g.Out[1]
	case p == convGEMM && len(g.In) == 2 && !Pointwise(g):
		sc := convPool.Get().(*convScratch)
		defer convPool.Put(sc)
		seg, _, _ := im2colPlan(g, a.C/cw.Group, cw.M/cw.Group, sc)
		return seg
	}
	return 0
}

// channels returns the output channels [lo, hi) that a asks for, checked
// against the alignment of path p.
func (a *ConvArgs) channels(cw *ConvWeights, p convPath) (lo, hi int, err error) {
	lo, hi = a.Lo, a.Hi
	if hi == 0 {
		hi = cw.M
	}
	if lo == 0 && hi == cw.M {
		return lo, hi, nil
	}
	al := splitAlign(p, cw)
	if lo < 0 || lo > hi || hi > cw.M || lo%al != 0 || (hi%al != 0 && hi != cw.M) {
		return 0, 0, fmt.Errorf("kernels: Conv output channels [%d, %d) of %d: not a range on multiples of %d", a.Lo, a.Hi, cw.M, al)
	}
	return lo, hi, nil
}

// pixels returns the output pixels [lo, hi) that a asks for, checked
// against the alignment of path p; whole is whether a restricts its
// channels instead, which a pixel range may not be combined with.
func (a *ConvArgs) pixels(cw *ConvWeights, p convPath, whole bool) (lo, hi int, err error) {
	os := a.Geom.OutSize()
	lo, hi = a.PixLo, a.PixHi
	if hi == 0 {
		hi = os
	}
	if lo == 0 && hi == os {
		return lo, hi, nil
	}
	if !whole {
		return 0, 0, fmt.Errorf("kernels: Conv output pixels [%d, %d) with output channels [%d, %d): a run restricts one or the other", a.PixLo, a.PixHi, a.Lo, a.Hi)
	}
	al := pixelAlign(p, cw, a)
	if al == 0 {
		return 0, 0, fmt.Errorf("kernels: Conv output pixels [%d, %d): this convolution splits by channels only", a.PixLo, a.PixHi)
	}
	if lo < 0 || lo > hi || hi > os || lo%al != 0 || (hi%al != 0 && hi != os) {
		return 0, 0, fmt.Errorf("kernels: Conv output pixels [%d, %d) of %d: not a range on multiples of %d", a.PixLo, a.PixHi, os, al)
	}
	return lo, hi, nil
}

// Conv computes a float32 convolution with weights cw: all outputs, those
// of output channels [a.Lo, a.Hi), or those of output pixels
// [a.PixLo, a.PixHi).
func Conv(cw *ConvWeights, a *ConvArgs) error {
	if len(a.Geom.In) == 1 {
		// A 1-D convolution is a 2-D one of height 1; the 2-D paths (row
		// im2col, depthwise planes) are much faster than the generic N-D one.
		return Conv(cw, a.lifted())
	}
	if a.Geom.OutSize() == 0 || a.N == 0 {
		return nil // no output (the padded layouts assume at least one pixel)
	}
	p := choosePath(cw, a)
	lo, hi, err := a.channels(cw, p)
	if err != nil || lo == hi {
		return err
	}
	plo, phi, err := a.pixels(cw, p, hi-lo == cw.M)
	if err != nil || plo == phi {
		return err
	}
	switch p {
	case convWinoPath:
		return convWinogradImages(cw, a, lo, hi, plo, phi)
	case convDWPath:
		return convDepthwise(cw, a, lo, hi)
	case convPixelPath:
		return convVec(cw, a, lo, hi)
	}
	return convIm2col(cw, a, lo, hi, plo, phi)
}

// im2colMode is how convIm2col reads a group's input.
type im2colMode uint8

const (
	im2colDirect   im2colMode = iota // pointwise: the input is the im2col matrix
	im2colRowTable                   // through the row table (im2colRows; N-D: blockND)
	im2colPadded                     // from padded planes, copied once per image and group
	im2colBanded                     // from padded bands, copied per pixel segment
)

// im2colPlan decides, from the whole convolution, the pixels of each GEMM
// call (seg) and how the im2col reads the input of cg channels per group
// (mg output channels), and in padded mode the planes' layout. A pixel
// range runs the same plan, so that its GEMM calls are the whole run's. sc
// is scratch (nil when pointwise).
func im2colPlan(g *ConvGeom, cg, mg int, sc *convScratch) (seg int, mode im2colMode, pl dwLayout) {
	kdim := cg * g.KernelSize()
	// About 4 M multiply-adds per GEMM call (a few ms even in slow
	// WebAssembly) with a checkpoint before each, and never fewer than 256
	// pixels so the GEMM keeps its efficiency.
	seg = roundUp(max(convSegMin, convSegMACs/max(mg*kdim, 1)), NR)
	if Pointwise(g) {
		return seg, im2colDirect, pl
	}
	if len(g.In) != 2 {
		return seg, im2colRowTable, pl
	}
	if pl = newDWLayout(g, sc.taps); cg*pl.size <= maxPaddedIm2col {
		sc.taps = pl.offs
		return seg, im2colPadded, pl
	}
	im := im2colB{g: g, sc: sc}
	if !im.bandFits(cg, 1) {
		return seg, im2colRowTable, pl
	}
	// Too large to pad whole: each pixel segment pads just the input rows
	// it reads (see band). Segments are whole output rows, at least four
	// where the band stays within maxBandIm2col: a band pads the rows its
	// neighbours also read again ((rows+2)/rows of the input for a 3×3
	// kernel).
	OW := g.Out[1]
	rows := max(1, seg/OW)
	for rows < 4 && im.bandFits(cg, rows+1) {
		rows++
	}
	return rows * OW, im2colBanded, pl
}

// convIm2col is Conv on the GEMM, for output channels [lo, hi) and output
// pixels [plo, phi): per image and group the GEMM's rows in the channel
// range, on the pixel segments in the pixel range.
func convIm2col(cw *ConvWeights, a *ConvArgs, lo, hi, plo, phi int) error {
	g := a.Geom
	group := cw.Group
	cg, mg := a.C/group, cw.M/group
	is, os, ks := g.InSize(), g.OutSize(), g.KernelSize()
	kdim := cg * ks
	var im im2colB
	var sc *convScratch
	if !Pointwise(g) {
		sc = convPool.Get().(*convScratch)
		defer convPool.Put(sc)
		im = im2colB{g: g, sc: sc}
	}
	seg, mode, pl := im2colPlan(g, cg, mg, sc)
	switch mode {
	case im2colPadded:
		im.usePadded(pl, cg)
	case im2colBanded:
		im.banded = true
	case im2colRowTable:
		sc.rows = im2colRows(g, cg, sc.rows[:0])
		im.rows = sc.rows
	}
	var sub PackedA // a packed group's rows in the range
	for n := 0; n < a.N; n++ {
		for gi := lo / mg; gi*mg < hi; gi++ {
			// The group's rows [r0, r1) are in the range.
			r0, r1 := max(lo-gi*mg, 0), min(hi-gi*mg, mg)
			xg := a.X[(n*a.C+gi*cg)*is : (n*a.C+(gi+1)*cg)*is]
			yo := (n*cw.M + gi*mg + r0) * os
			yg := a.Y[yo : yo+(r1-r0)*os]
			ep := Epilogue{Act: a.Act, Alpha: a.Alpha, Beta: a.Beta, LdR: os}
			if a.Bias != nil {
				ep.RowBias = a.Bias[gi*mg+r0 : gi*mg+r1]
			}
			var rg []float32
			if a.Residual != nil {
				rg = a.Residual[yo : yo+(r1-r0)*os]
			}
			A := cw.aRows(gi, r0, r1, &sub)
			im.x = xg
			if mode == im2colPadded {
				im.padPlanes()
			}
			for j := plo; j < phi; j += seg {
				if a.Checkpoint != nil {
					if err := a.Checkpoint(); err != nil {
						return err
					}
				}
				nb := min(seg, os-j)
				B := bOperand{b: xg[j:], ldb: os}
				if mode != im2colDirect {
					im.pix0 = j
					if mode == im2colBanded {
						im.band(cg, j, nb)
					}
					B = bOperand{im2col: &im}
				}
				if rg != nil {
					ep.Residual = rg[j:]
				}
				sgemm(r1-r0, nb, kdim, &A, &B, 0, yg[j:], os, &ep)
			}
		}
	}
	return nil
}

// im2colRow is what one row (channel, kernel tap) of the im2col matrix reads:
// input offset base + ih·W + iw for output pixel (oh, ow), where
// ih = oh·sh + offH and iw = ow·sw + offW, valid for oh in [hlo, hhi) and
// ow in [wlo, whi) (zero elsewhere, in the padding).
type im2colRow struct {
	base               int
	hlo, hhi, wlo, whi int
	offH, offW         int
}

// convScratch is per-call scratch of the convolutions, pooled so that
// steady-state runs do not allocate.
type convScratch struct {
	layout    dwLayout // the padded planes' layout (im2colB.pad)
	bandGeom  ConvGeom // a band's geometry (im2colB.band)
	bandDims  [4]int   // bandGeom's Out and PadsBegin
	rows      []im2colRow
	col       []float32  // a column block, padded input planes, a pooling row
	taps      []int      // the padded layout's tap offsets
	rowOff    []int      // per im2col row, its offset in the padded planes
	poolSpans []poolSpan // the pooling kernels' border columns
}

var convPool = sync.Pool{New: func() any { return new(convScratch) }}

// im2colRows precomputes, for 2-D geometry, each row of the im2col matrix
// into rows (nil for other ranks, which take the generic path).
func im2colRows(g *ConvGeom, channels int, rows []im2colRow) []im2colRow {
	if len(g.In) != 2 {
		return nil
	}
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	for c := 0; c < channels; c++ {
		for kh := 0; kh < KH; kh++ {
			hlo, hhi := validRange(H, OH, g.Strides[0], g.PadsBegin[0], kh*g.Dilations[0])
			for kw := 0; kw < KW; kw++ {
				wlo, whi := validRange(W, OW, g.Strides[1], g.PadsBegin[1], kw*g.Dilations[1])
				rows = append(rows, im2colRow{base: c * H * W, hlo: hlo, hhi: hhi, wlo: wlo, whi: whi,
					offH: kh*g.Dilations[0] - g.PadsBegin[0], offW: kw*g.Dilations[1] - g.PadsBegin[1]})
			}
		}
	}
	return rows
}

// im2colB is the im2col matrix of one image's group (channels·kernel ×
// output pixels) as a GEMM right operand, packed on the fly one block at a
// time. pix0 offsets the columns (the conv runs the GEMM in pixel segments).
//
// A 2-D input small enough is first copied into zero-padded, phase-split
// planes (dwLayout, as the depthwise kernels read them): every im2col row is
// then a run of consecutive floats in each output row, whatever the padding
// and stride, and a panel row is one 8-float copy.
type im2colB struct {
	x    []float32 // channels × In
	g    *ConvGeom
	rows []im2colRow // 2-D only
	pix0 int
	sc   *convScratch

	// banded: the padded planes hold only the input rows of the current
	// pixel segment (band), laid out for sc.bandGeom, the segment's output
	// rows; pix0 then counts from the band's first output row.
	banded bool

	pad    *dwLayout // the padded planes' layout, or nil
	padBuf []float32 // channels × pad.size
	rowOff []int     // per im2col row, its tap's offset in padBuf
	// maxRowOff is the largest of rowOff (the tap offsets of a kernel row
	// do not grow with kw when the stride splits rows into phases).
	maxRowOff int
}

// maxPaddedIm2col bounds the padded copy of a group's input (floats): the
// copy costs about one im2col row, and its scratch stays in cache. Larger
// inputs are padded a band of rows at a time, up to maxBandIm2col floats
// for one output row's band, and beyond that read through the row table.
// Variables, like the segment sizes, so that tests can run every path.
var (
	maxPaddedIm2col = 1 << 18
	maxBandIm2col   = 1 << 20
	convSegMACs     = 1 << 22 // multiply-adds per GEMM call
	convSegMin      = 256     // pixels per GEMM call at least
)

// padRowOffsets appends, per im2col row (channel, tap), the offset of the
// tap's first input in the padded planes of l.
func padRowOffsets(l *dwLayout, channels int, off []int) []int {
	for c := 0; c < channels; c++ {
		for _, o := range l.offs {
			off = append(off, c*l.size+o)
		}
	}
	return off
}

// usePadded points the im2col at zero-padded planes of layout pl for
// channels channels, in the scratch (padPlanes fills them).
func (s *im2colB) usePadded(pl dwLayout, channels int) {
	sc := s.sc
	sc.layout = pl
	sc.col = grow(sc.col, channels*pl.size)
	clear(sc.col) // padPlanes writes only the input's positions
	sc.rowOff = padRowOffsets(&sc.layout, channels, sc.rowOff[:0])
	s.pad, s.padBuf, s.rowOff, s.maxRowOff = &sc.layout, sc.col, sc.rowOff, 0
	for _, o := range sc.rowOff {
		s.maxRowOff = max(s.maxRowOff, o)
	}
}

// bandFits reports whether the padded input rows of rows output rows, for
// all channels, stay within maxBandIm2col.
func (s *im2colB) bandFits(channels, rows int) bool {
	s.setBandGeom(0, rows)
	pl := newDWLayout(&s.sc.bandGeom, s.sc.taps)
	s.sc.taps = pl.offs
	return channels*pl.size <= maxBandIm2col
}

// setBandGeom makes bandGeom the geometry of output rows [oh0, oh0+rows):
// the same input, read from padded row oh0·stride on (a negative top pad
// skips the rows above the band).
func (s *im2colB) setBandGeom(oh0, rows int) {
	g, sc := s.g, s.sc
	sc.bandDims = [4]int{rows, g.Out[1], g.PadsBegin[0] - oh0*g.Strides[0], g.PadsBegin[1]}
	sc.bandGeom = ConvGeom{In: g.In, Out: sc.bandDims[0:2], Kernel: g.Kernel, Strides: g.Strides, Dilations: g.Dilations,
		PadsBegin: sc.bandDims[2:4]}
}

// band pads, for the output pixels [j, j+nb), only the input rows that
// their output rows read, and points the im2col at them: a 512×512 plane
// is too large to pad whole within the cache, and the row-table path it
// took instead (panel) cost a sixth of the U²-Net-style network's run.
func (s *im2colB) band(channels, j, nb int) {
	OW := s.g.Out[1]
	oh0, oh1 := j/OW, (j+nb-1)/OW+1
	s.setBandGeom(oh0, oh1-oh0)
	pl := newDWLayout(&s.sc.bandGeom, s.sc.taps)
	s.sc.taps = pl.offs
	s.usePadded(pl, channels)
	s.pix0 = j - oh0*OW
	s.padPlanes()
}

// padPlanes copies x into padBuf (whose padding is zero).
func (s *im2colB) padPlanes() {
	l := s.pad
	is := s.g.InSize()
	for c := 0; c*l.size < len(s.padBuf); c++ {
		l.pad(s.x[c*is:(c+1)*is], s.padBuf[c*l.size:(c+1)*l.size])
	}
}

func (s *im2colB) block(p0, kb, j0, nb int, dst []float32) ([]float32, int) {
	ps := kb * NR
	j0 += s.pix0
	if s.pad != nil {
		s.blockPadded(p0, kb, j0, nb, dst)
		return dst, ps
	}
	if s.rows == nil {
		s.blockND(p0, kb, j0, nb, dst)
		return dst, ps
	}
	OW := s.g.Out[1]
	rows := s.rows[p0 : p0+kb]
	oh, ow := j0/OW, j0%OW
	for q := 0; q*NR < nb; q++ {
		s.panel(rows, dst[q*ps:q*ps+ps], oh, ow, min(NR, nb-q*NR))
		ow += NR
		for ow >= OW {
			ow -= OW
			oh++
		}
	}
	return dst, ps
}

// panel writes one packed panel from the row table: the im2col rows rows
// for the NR pixels starting at output pixel (oh, ow), of which the first
// lanes exist (the others are zero). It is a function of its own, called
// once per panel, so that in WebAssembly V8 replaces its baseline code with
// optimised code within the first convolution (a loop over all of a block's
// panels inside block would run baseline code to the end of the block: wasm
// has no on-stack replacement).
//
//go:noinline
func (s *im2colB) panel(rows []im2colRow, panel []float32, oh, ow, lanes int) {
	g := s.g
	W, OW := g.In[1], g.Out[1]
	sh, sw := g.Strides[0], g.Strides[1]
	if lanes == NR && ow+NR <= OW {
		// One output row: per im2col row, all NR lanes valid or a
		// per-lane check at the borders.
		for p := range rows {
			r := &rows[p]
			d := (*[NR]float32)(panel[p*NR : p*NR+NR])
			if oh < r.hlo || oh >= r.hhi {
				zero8(d)
				continue
			}
			src := s.x[r.base+(oh*sh+r.offH)*W:]
			if ow >= r.wlo && ow+NR <= r.whi {
				iw := ow*sw + r.offW
				if sw == 1 {
					copy8(d, (*[NR]float32)(src[iw:iw+NR]))
				} else {
					src = src[iw : iw+(NR-1)*sw+1]
					for l := range d {
						d[l] = src[l*sw]
					}
				}
				continue
			}
			for l := range d {
				o := ow + l
				if o >= r.wlo && o < r.whi {
					d[l] = src[o*sw+r.offW]
				} else {
					d[l] = 0
				}
			}
		}
		return
	}
	// The panel wraps to the next output row (or is the last, partial
	// one): lane by lane.
	for p := range rows {
		r := &rows[p]
		d := panel[p*NR : p*NR+NR]
		h, w := oh, ow
		for l := 0; l < NR; l++ {
			var v float32
			if l < lanes && h >= r.hlo && h < r.hhi && w >= r.wlo && w < r.whi {
				v = s.x[r.base+(h*sh+r.offH)*W+w*sw+r.offW]
			}
			d[l] = v
			if w++; w == OW {
				w, h = 0, h+1
			}
		}
	}
}

func (s *im2colB) blockPadded(p0, kb, j0, nb int, dst []float32) {
	ps := kb * NR
	OW := s.g.Out[1]
	step := s.pad.rowStep
	offs := s.rowOff[p0 : p0+kb]
	src := s.padBuf
	oh, ow := j0/OW, j0%OW
	for q := 0; q*NR < nb; q++ {
		panel := dst[q*ps : q*ps+ps]
		lanes := min(NR, nb-q*NR)
		n1 := OW - ow // lanes left in this output row
		if lanes == NR && n1 >= NR {
			gatherPanel(panel, src[oh*step+ow:], offs, s.maxRowOff)
		} else if a, b := oh*step+ow, (oh+1)*step; lanes == NR && NR-n1 <= OW && s.maxRowOff+max(a, b-n1)+NR <= len(src) {
			// The panel wraps to the next output row, once.
			gatherPanel2(panel, src, offs, a, b, n1, s.maxRowOff)
		} else {
			// The panel wraps over more than one row, or is the last one.
			for p, off := range offs {
				d := panel[p*NR : p*NR+NR]
				h, w := oh, ow
				for l := range d {
					var v float32
					if l < lanes {
						v = src[off+h*step+w]
					}
					d[l] = v
					if w++; w == OW {
						w, h = 0, h+1
					}
				}
			}
		}
		if ow += NR; ow >= OW {
			oh, ow = oh+ow/OW, ow%OW
		}
	}
}

// blockND is im2colB.block for spatial ranks other than 2, one element at a
// time.
func (s *im2colB) blockND(p0, kb, j0, nb int, dst []float32) {
	g := s.g
	nd := len(g.In)
	ks, is := g.KernelSize(), g.InSize()
	ps := kb * NR
	kidx := make([]int, nd)
	oidx := make([]int, nd)
	for p := 0; p < kb; p++ {
		r := p0 + p
		c, t := r/ks, r%ks
		unravel(t, g.Kernel, kidx)
		xc := s.x[c*is : (c+1)*is]
		unravel(j0, g.Out, oidx)
		for q := 0; q*NR < nb; q++ {
			d := dst[q*ps+p*NR : q*ps+p*NR+NR]
			for l := 0; l < NR; l++ {
				var v float32
				if q*NR+l < nb {
					if off, ok := g.inputOffset(oidx, kidx); ok {
						v = xc[off]
					}
					increment(oidx, g.Out)
				}
				d[l] = v
			}
		}
	}
}
