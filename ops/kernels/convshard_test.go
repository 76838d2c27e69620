package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// shardCase is a convolution run whole and in output-channel ranges.
type shardCase struct {
	name           string
	n, c, m, group int
	// Per spatial axis: input size, kernel, stride, dilation, padding at
	// the start and at the end.
	in, k, s, d, pb, pe []int
	pack, wino          bool // NewConvWeights' pack; PackWinograd
	bias, res           bool
	act                 Act
	path                convPath // the path the case is there to cover
	pix                 bool     // ConvSplitOf splits it in two by pixels
	// vars sets tuning variables of the package for the case.
	vars map[*int]int
}

func (sc shardCase) geom() *ConvGeom {
	nd := len(sc.in)
	g := &ConvGeom{In: sc.in, Out: make([]int, nd), Kernel: sc.k, Strides: sc.s, Dilations: sc.d, PadsBegin: sc.pb}
	for i := range g.Out {
		g.Out[i] = (sc.in[i]+sc.pb[i]+sc.pe[i]-sc.d[i]*(sc.k[i]-1)-1)/sc.s[i] + 1
	}
	return g
}

// axes repeats v for nd spatial axes.
func axes(nd int, v int) []int {
	s := make([]int, nd)
	for i := range s {
		s[i] = v
	}
	return s
}

// conv2 is a square-kernel 2-D case on an h×w input with symmetric padding.
func conv2(name string, n, c, m, group, h, w, k, s, d, p int) shardCase {
	return shardCase{name: name, n: n, c: c, m: m, group: group, in: []int{h, w}, k: axes(2, k), s: axes(2, s),
		d: axes(2, d), pb: axes(2, p), pe: axes(2, p), bias: true}
}

func shardCases() []shardCase {
	var cs []shardCase
	add := func(sc shardCase, f func(*shardCase)) {
		f(&sc)
		cs = append(cs, sc)
	}
	// The GEMM on the im2col matrix (padded planes unless set says otherwise).
	add(conv2("3x3s2", 2, 5, 22, 1, 13, 17, 3, 2, 1, 1), func(sc *shardCase) { sc.res, sc.act = true, ActRelu })
	add(conv2("5x5", 1, 3, 9, 1, 11, 14, 5, 1, 1, 2), func(sc *shardCase) { sc.act = ActSigmoid })
	add(conv2("3x3d2-packed", 2, 6, 13, 1, 12, 9, 3, 1, 2, 2), func(sc *shardCase) { sc.pack, sc.res, sc.act = true, true, ActTanh })
	add(conv2("3x3-asympad", 1, 4, 11, 1, 9, 12, 3, 1, 1, 0), func(sc *shardCase) {
		sc.pb, sc.pe, sc.res, sc.act = []int{0, 1}, []int{2, 1}, true, ActHardSwish
	})
	add(conv2("3x3-banded", 2, 4, 18, 1, 15, 21, 3, 1, 1, 1), func(sc *shardCase) {
		// Segments of a few output rows, each padding its band.
		sc.res, sc.act, sc.pix = true, ActRelu, true
		sc.vars = map[*int]int{&maxPaddedIm2col: 0, &convSegMACs: 1 << 10, &convSegMin: 8}
	})
	add(conv2("3x3s2-rowtable", 1, 3, 17, 1, 14, 19, 3, 2, 1, 1), func(sc *shardCase) {
		sc.pack, sc.act = true, ActSigmoid
		sc.vars = map[*int]int{&maxPaddedIm2col: 0, &maxBandIm2col: 0}
	})
	// Several pixel segments, in each mode: padded planes, bands, row table.
	add(conv2("3x3s2-segs", 2, 5, 22, 1, 13, 17, 3, 2, 1, 1), func(sc *shardCase) {
		sc.res, sc.act, sc.pix = true, ActRelu, true
		sc.vars = map[*int]int{&convSegMACs: 1 << 9, &convSegMin: 8}
	})
	add(conv2("3x3s2-rowtable-segs", 2, 3, 17, 1, 14, 19, 3, 2, 1, 1), func(sc *shardCase) {
		sc.pack, sc.res, sc.act, sc.pix = true, true, ActHardSwish, true
		sc.vars = map[*int]int{&maxPaddedIm2col: 0, &maxBandIm2col: 0, &convSegMACs: 1 << 9, &convSegMin: 8}
	})
	// 4 segments of 256, 256, 256 and 16 pixels: too uneven for 2 parts
	// (evenBlocks), so ConvSplitOf splits the channels.
	add(conv2("64-128s2", 1, 64, 128, 1, 56, 56, 3, 2, 1, 1), func(sc *shardCase) { sc.pack, sc.res, sc.act, sc.pix = true, true, ActRelu, false })
	add(conv2("M270-packed", 1, 8, 270, 1, 8, 11, 3, 1, 1, 1), func(sc *shardCase) { sc.pack, sc.res, sc.act = true, true, ActRelu })
	add(conv2("M262", 2, 7, 262, 1, 6, 5, 3, 2, 1, 1), func(sc *shardCase) { sc.act = ActTanh })
	// Grouped GEMMs: whole micro-tiles per group, and groups of 5 channels.
	add(conv2("group2", 2, 8, 16, 2, 10, 7, 3, 1, 1, 1), func(sc *shardCase) { sc.pack, sc.res, sc.act = true, true, ActRelu })
	add(conv2("group3-mg5", 1, 9, 15, 3, 9, 8, 3, 1, 1, 1), func(sc *shardCase) { sc.res, sc.act = true, ActSigmoid })
	// Pointwise: the input is the GEMM's B.
	add(conv2("1x1-packed", 2, 24, 37, 1, 10, 9, 1, 1, 1, 0), func(sc *shardCase) { sc.pack, sc.res, sc.act = true, true, ActRelu })
	add(conv2("1x1", 1, 16, 20, 1, 7, 12, 1, 1, 1, 0), func(sc *shardCase) { sc.act = ActGelu })
	add(conv2("1x1-M300", 1, 9, 300, 1, 5, 6, 1, 1, 1, 0), func(sc *shardCase) { sc.res, sc.act = true, ActSigmoid })
	// Winograd, packed and (on ≥ 256 pixels) transformed per run.
	add(conv2("wino-M40", 2, 32, 40, 1, 12, 19, 3, 1, 1, 1), func(sc *shardCase) {
		sc.wino, sc.res, sc.act, sc.path = true, true, ActRelu, convWinoPath
	})
	add(conv2("wino-M72", 1, 33, 72, 1, 9, 14, 3, 1, 1, 0), func(sc *shardCase) { sc.wino, sc.act, sc.path = true, ActSigmoid, convWinoPath })
	add(conv2("wino-M130", 1, 32, 130, 1, 10, 7, 3, 1, 1, 1), func(sc *shardCase) {
		sc.wino, sc.res, sc.act, sc.path = true, true, ActHardSwish, convWinoPath
	})
	add(conv2("wino-M130-unpacked", 1, 32, 130, 1, 17, 16, 3, 1, 1, 1), func(sc *shardCase) {
		sc.res, sc.act, sc.path = true, ActTanh, convWinoPath // uneven blocks: channels
	})
	// Several blocks of tile rows: 56×56 (two tile rows a block), H ≠ W
	// (one), and odd sizes (a last block of fewer tile rows, and of one
	// output row).
	add(conv2("wino-64-56x56", 1, 64, 64, 1, 56, 56, 3, 1, 1, 1), func(sc *shardCase) {
		sc.wino, sc.res, sc.act, sc.path, sc.pix = true, true, ActRelu, convWinoPath, true
	})
	add(conv2("wino-40x72", 2, 32, 48, 1, 40, 72, 3, 1, 1, 1), func(sc *shardCase) {
		sc.wino, sc.res, sc.act, sc.path, sc.pix = true, true, ActSigmoid, convWinoPath, true
	})
	add(conv2("wino-33x21-unpacked", 2, 16, 40, 1, 33, 21, 3, 1, 1, 1), func(sc *shardCase) {
		sc.res, sc.act, sc.path = true, ActHardSwish, convWinoPath // uneven blocks: channels
	})
	// Depthwise (the row kernel's own Relu included), a channel
	// multiplier, and one group of fewer than MR outputs.
	add(conv2("dw3x3", 2, 12, 12, 12, 11, 13, 3, 1, 1, 1), func(sc *shardCase) { sc.act, sc.path = ActRelu, convDWPath })
	add(conv2("dw5x5s2-x3", 1, 6, 18, 6, 13, 10, 5, 2, 1, 2), func(sc *shardCase) {
		sc.res, sc.act, sc.path = true, ActSigmoid, convDWPath
	})
	add(conv2("c1-m3", 2, 1, 3, 1, 9, 11, 3, 1, 1, 1), func(sc *shardCase) { sc.res, sc.act, sc.path = true, ActTanh, convDWPath })
	// A single pixel: one dot product per output.
	add(conv2("vec", 3, 20, 23, 1, 1, 1, 1, 1, 1, 0), func(sc *shardCase) {
		sc.res, sc.act, sc.path = true, ActSigmoid, convPixelPath
	})
	add(conv2("vec-group4", 2, 8, 12, 4, 1, 1, 1, 1, 1, 0), func(sc *shardCase) { sc.act, sc.path = ActRelu, convPixelPath })
	// 1-D (lifted to 2-D) and 3-D (the generic im2col).
	cs = append(cs, shardCase{name: "1d-k256s128", n: 2, c: 2, m: 10, group: 1, in: []int{1300}, k: []int{256}, s: []int{128},
		d: []int{1}, pb: []int{0}, pe: []int{0}, bias: true, res: true, act: ActRelu})
	cs = append(cs, shardCase{name: "3d", n: 1, c: 3, m: 10, group: 1, in: []int{4, 5, 6}, k: axes(3, 3), s: axes(3, 1),
		d: axes(3, 1), pb: axes(3, 1), pe: axes(3, 1), act: ActTanh})
	return cs
}

// shardSplits returns splits of [0, m) into parts ranges whose inner
// boundaries are multiples of align: an even one and two random ones.
func shardSplits(r *rand.Rand, m, align, parts int) [][]int {
	units := (m + align - 1) / align
	if units < parts {
		return nil
	}
	bounds := func(cuts []int) []int {
		b := []int{0}
		for _, u := range cuts {
			b = append(b, u*align)
		}
		return append(b, m)
	}
	even := make([]int, parts-1)
	for i := range even {
		even[i] = (i + 1) * units / parts
	}
	out := [][]int{bounds(even)}
	for range 2 {
		cuts := r.Perm(units - 1)[:parts-1]
		for i := range cuts {
			cuts[i]++
		}
		for i := 1; i < len(cuts); i++ { // insertion sort
			for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
				cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
			}
		}
		out = append(out, bounds(cuts))
	}
	return out
}

// shardSetup sets the case's tuning variables (until the test ends) and
// returns its weights, its arguments and the whole run's Y.
func shardSetup(t *testing.T, r *rand.Rand, sc shardCase) (*ConvWeights, ConvArgs, []float32) {
	t.Helper()
	for p, v := range sc.vars {
		old := *p
		*p = v
		t.Cleanup(func() { *p = old })
	}
	g := sc.geom()
	ks, is, os := g.KernelSize(), g.InSize(), g.OutSize()
	kdim := sc.c / sc.group * ks
	cw := NewConvWeights(randSlice(r, sc.m*kdim), sc.m, sc.group, kdim, sc.pack)
	if sc.wino {
		cw.PackWinograd()
	}
	a := ConvArgs{N: sc.n, C: sc.c, Geom: g, X: randSlice(r, sc.n*sc.c*is), Act: sc.act}
	if sc.bias {
		a.Bias = randSlice(r, sc.m)
	}
	if sc.res {
		a.Residual = randSlice(r, sc.n*sc.m*os)
	}
	if p := choosePath(cw, a.lifted()); p != sc.path {
		t.Fatalf("runs path %d, the case is for %d", p, sc.path)
	}
	whole := make([]float32, sc.n*sc.m*os)
	a.Y = whole
	if err := Conv(cw, &a); err != nil {
		t.Fatal(err)
	}
	return cw, a, whole
}

// TestConvShardsBitIdentical: every path of Conv, run in output-channel
// ranges on ConvSplitAlign's multiples, writes each range's channels bit
// for bit as the whole run does, and nothing outside its range.
func TestConvShardsBitIdentical(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, sc := range shardCases() {
		t.Run(sc.name, func(t *testing.T) {
			cw, a, whole := shardSetup(t, r, sc)
			align := ConvSplitAlign(cw, &a)
			if align <= 0 {
				t.Fatalf("ConvSplitAlign = %d", align)
			}
			for parts := 2; parts <= 4; parts++ {
				for _, b := range shardSplits(r, sc.m, align, parts) {
					for i := 0; i+1 < len(b); i++ {
						checkShard(t, cw, a, b[i], b[i+1], whole)
					}
				}
			}
			// A range off the alignment is refused, with Y untouched.
			if align > 1 {
				ra := a
				ra.Lo, ra.Hi = 1, sc.m
				checkRefused(t, cw, ra, len(whole))
			}
		})
	}
	// Groups that do not divide the channels: no ranges.
	g := conv2("", 1, 8, 9, 3, 5, 5, 3, 1, 1, 1).geom()
	if al := ConvSplitAlign(NewConvWeights(make([]float32, 9*2*9), 9, 3, 2*9, false), &ConvArgs{N: 1, C: 8, Geom: g}); al != 0 {
		t.Errorf("ConvSplitAlign of 8 channels in 3 groups = %d, want 0", al)
	}
}

// TestConvPixelShardsBitIdentical: where ConvSplitOf splits by output
// pixels, each range's pixels of every channel and image are bit for bit
// the whole run's, and nothing else is written; elsewhere it describes the
// channel split.
func TestConvPixelShardsBitIdentical(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, sc := range shardCases() {
		t.Run(sc.name, func(t *testing.T) {
			cw, a, whole := shardSetup(t, r, sc)
			os := len(whole) / (sc.n * sc.m)
			for parts := 2; parts <= 4; parts++ {
				sp := ConvSplitOf(cw, &a, parts)
				if parts == 2 && sp.Pixels != sc.pix {
					t.Errorf("ConvSplitOf(2) = %+v, want Pixels %v", sp, sc.pix)
				}
				if !sp.Pixels {
					if sp.Units != sc.m || sp.Align != ConvSplitAlign(cw, &a) {
						t.Errorf("ConvSplitOf(%d) = %+v, want %d channels on multiples of %d", parts, sp, sc.m, ConvSplitAlign(cw, &a))
					}
					// Blocks too uneven for ConvSplitOf to choose
					// pixels still run as pixel ranges exactly.
					b := a.lifted()
					al := pixelAlign(choosePath(cw, b), cw, b)
					if al == 0 || (os+al-1)/al < parts {
						continue
					}
					sp = ConvSplit{Pixels: true, Units: os, Align: al}
				}
				if sp.Units != os || sp.Align <= 0 || (os+sp.Align-1)/sp.Align < parts {
					t.Fatalf("ConvSplitOf(%d) = %+v for %d pixels", parts, sp, os)
				}
				for _, b := range shardSplits(r, os, sp.Align, parts) {
					for i := 0; i+1 < len(b); i++ {
						pa := a
						pa.PixLo, pa.PixHi = b[i], b[i+1]
						checkPart(t, cw, pa, fmt.Sprintf("pixels [%d, %d)", b[i], b[i+1]), whole, func(_, px int) bool { return px >= b[i] && px < b[i+1] })
					}
				}
				// Off the alignment, or with a channel range: refused.
				ra := a
				ra.PixLo = 1
				checkRefused(t, cw, ra, len(whole))
				ra = a
				ra.PixHi, ra.Hi = sp.Align, ConvSplitAlign(cw, &a)
				checkRefused(t, cw, ra, len(whole))
			}
		})
	}
	// Paths that split by channels only refuse pixel ranges (a single
	// pixel has none but the whole).
	for _, sc := range shardCases() {
		if sc.path == convDWPath || sc.path == convGEMM && len(sc.in) == 3 {
			cw, a, whole := shardSetup(t, r, sc)
			a.PixHi = 1
			checkRefused(t, cw, a, len(whole))
		}
	}
	// Winograd on 56×56 splits by pixels; on 7×7 (one block of tile rows),
	// by channels.
	for _, c := range []struct {
		hw, ch int
		pixels bool
	}{{56, 64, true}, {7, 512, false}} {
		g := conv2("", 1, c.ch, c.ch, 1, c.hw, c.hw, 3, 1, 1, 1).geom()
		cw := NewConvWeights(make([]float32, c.ch*c.ch*9), c.ch, 1, c.ch*9, false)
		cw.PackWinograd()
		a := &ConvArgs{N: 1, C: c.ch, Geom: g}
		if p := choosePath(cw, a); p != convWinoPath {
			t.Fatalf("%d×%d: path %d", c.hw, c.hw, p)
		}
		if sp := ConvSplitOf(cw, a, 2); sp.Pixels != c.pixels {
			t.Errorf("%d→%d at %d×%d: ConvSplitOf(2) = %+v, want Pixels %v", c.ch, c.ch, c.hw, c.hw, sp, c.pixels)
		}
	}
}

// checkRefused runs a, which Conv must refuse, into a NaN-filled Y of n
// floats and checks that nothing was written.
func checkRefused(t *testing.T, cw *ConvWeights, a ConvArgs, n int) {
	t.Helper()
	a.Y = nanSlice(n)
	err := Conv(cw, &a)
	for _, v := range a.Y {
		if !math.IsNaN(float64(v)) {
			t.Errorf("channels [%d, %d) pixels [%d, %d): err %v, Y written", a.Lo, a.Hi, a.PixLo, a.PixHi, err)
			return
		}
	}
	if err == nil {
		t.Errorf("channels [%d, %d) pixels [%d, %d): no error", a.Lo, a.Hi, a.PixLo, a.PixHi)
	}
}

func nanSlice(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(math.NaN())
	}
	return s
}

// checkShard runs a's channels [lo, hi) into a NaN-filled Y and compares
// it with whole.
func checkShard(t *testing.T, cw *ConvWeights, a ConvArgs, lo, hi int, whole []float32) {
	t.Helper()
	a.Lo, a.Hi = lo, hi
	checkPart(t, cw, a, fmt.Sprintf("range [%d, %d) of %d", lo, hi, cw.M), whole, func(ch, _ int) bool { return ch >= lo && ch < hi })
}

// checkPart runs the part a (named part) into a NaN-filled Y and checks
// that the outputs in it (by channel and pixel) are whole's, bit for bit,
// and that the others are not written.
func checkPart(t *testing.T, cw *ConvWeights, a ConvArgs, part string, whole []float32, in func(ch, px int) bool) {
	t.Helper()
	a.Y = nanSlice(len(whole))
	if err := Conv(cw, &a); err != nil {
		t.Fatalf("%s: %v", part, err)
	}
	os := len(whole) / (a.N * cw.M)
	bad := 0
	for i, v := range a.Y {
		ch := i / os % cw.M
		var what string
		switch in := in(ch, i%os); {
		case in && math.Float32bits(v) != math.Float32bits(whole[i]):
			what = fmt.Sprintf("%v (%#x), whole run %v (%#x)", v, math.Float32bits(v), whole[i], math.Float32bits(whole[i]))
		case !in && !math.IsNaN(float64(v)):
			what = fmt.Sprintf("written (%v) outside the part", v)
		default:
			continue
		}
		if bad++; bad <= 3 {
			t.Errorf("%s: image %d channel %d pixel %d: %s", part, i/os/cw.M, ch, i%os, what)
		}
	}
}

// TestEvenBlocks: pixel blocks split when every part gets one and the
// largest part is within 1.2 times an equal share.
func TestEvenBlocks(t *testing.T) {
	for _, c := range []struct {
		units, align, parts int
		want                bool
	}{
		{3136, 224, 2, true},  // 14 blocks of Winograd tile rows
		{784, 256, 2, false},  // 256+256 against 392
		{784, 256, 4, false},  // one part gets a block of 16
		{1024, 256, 4, true},  // four equal blocks
		{1040, 256, 4, false}, // 5 blocks: one part gets two
		{256, 256, 2, false},  // one block
		{2800, 256, 3, true},  // 4+4+3 blocks: 1024 against 933
		{2000, 256, 3, true},  // 3+3+2 blocks: 768 against 667
	} {
		if got := evenBlocks(c.units, c.align, c.parts); got != c.want {
			t.Errorf("evenBlocks(%d, %d, %d) = %v, want %v", c.units, c.align, c.parts, got, c.want)
		}
	}
}
