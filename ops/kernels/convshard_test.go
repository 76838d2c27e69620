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
		sc.res, sc.act = true, ActRelu
		sc.vars = map[*int]int{&maxPaddedIm2col: 0, &convSegMACs: 1 << 10, &convSegMin: 8}
	})
	add(conv2("3x3s2-rowtable", 1, 3, 17, 1, 14, 19, 3, 2, 1, 1), func(sc *shardCase) {
		sc.pack, sc.act = true, ActSigmoid
		sc.vars = map[*int]int{&maxPaddedIm2col: 0, &maxBandIm2col: 0}
	})
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
		sc.res, sc.act, sc.path = true, ActTanh, convWinoPath
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

// TestConvShardsBitIdentical: every path of Conv, run in output-channel
// ranges on ConvSplitAlign's multiples, writes each range's channels bit
// for bit as the whole run does, and nothing outside its range.
func TestConvShardsBitIdentical(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, sc := range shardCases() {
		t.Run(sc.name, func(t *testing.T) {
			for p, v := range sc.vars {
				old := *p
				*p = v
				defer func() { *p = old }()
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
			lifted := a
			if len(g.In) == 1 {
				lifted.Geom = g.lift2D()
			}
			if p := choosePath(cw, &lifted); p != sc.path {
				t.Fatalf("runs path %d, the case is for %d", p, sc.path)
			}
			align := ConvSplitAlign(cw, &a)
			if align <= 0 {
				t.Fatalf("ConvSplitAlign = %d", align)
			}
			whole := make([]float32, sc.n*sc.m*os)
			a.Y = whole
			if err := Conv(cw, &a); err != nil {
				t.Fatal(err)
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
				ra.Lo, ra.Hi, ra.Y = 1, sc.m, nanSlice(len(whole))
				if err := Conv(cw, &ra); err == nil || !math.IsNaN(float64(ra.Y[len(ra.Y)-1])) {
					t.Errorf("range [1, %d) on multiples of %d: err %v", sc.m, align, err)
				}
			}
		})
	}
	// Groups that do not divide the channels: no ranges.
	g := conv2("", 1, 8, 9, 3, 5, 5, 3, 1, 1, 1).geom()
	if al := ConvSplitAlign(NewConvWeights(make([]float32, 9*2*9), 9, 3, 2*9, false), &ConvArgs{N: 1, C: 8, Geom: g}); al != 0 {
		t.Errorf("ConvSplitAlign of 8 channels in 3 groups = %d, want 0", al)
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
	a.Lo, a.Hi, a.Y = lo, hi, nanSlice(len(whole))
	if err := Conv(cw, &a); err != nil {
		t.Fatalf("[%d, %d): %v", lo, hi, err)
	}
	os := len(whole) / (a.N * cw.M)
	bad := 0
	for i, v := range a.Y {
		ch := i / os % cw.M
		in := ch >= lo && ch < hi
		var what string
		switch {
		case in && math.Float32bits(v) != math.Float32bits(whole[i]):
			what = fmt.Sprintf("%v (%#x), whole run %v (%#x)", v, math.Float32bits(v), whole[i], math.Float32bits(whole[i]))
		case !in && !math.IsNaN(float64(v)):
			what = fmt.Sprintf("written (%v) outside the range", v)
		default:
			continue
		}
		if bad++; bad <= 3 {
			t.Errorf("range [%d, %d) of %d: image %d channel %d pixel %d: %s", lo, hi, cw.M, i/os/cw.M, ch, i%os, what)
		}
	}
}
