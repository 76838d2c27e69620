package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// convBench is a ResNet-50-like layer: c→m channels, h×w input, k×k kernel.
type convBench struct{ c, m, h, w, k, s, group int }

func (cb convBench) geom() *ConvGeom {
	p := cb.k / 2
	oh := (cb.h+2*p-cb.k)/cb.s + 1
	ow := (cb.w+2*p-cb.k)/cb.s + 1
	return &ConvGeom{In: []int{cb.h, cb.w}, Out: []int{oh, ow}, Kernel: []int{cb.k, cb.k},
		Strides: []int{cb.s, cb.s}, Dilations: []int{1, 1}, PadsBegin: []int{p, p}}
}

func BenchmarkConv(b *testing.B) {
	for _, cb := range []convBench{
		{3, 64, 224, 224, 7, 2, 1},
		{64, 64, 56, 56, 3, 1, 1},
		{64, 256, 56, 56, 1, 1, 1},
		{256, 64, 56, 56, 1, 1, 1},
		{128, 128, 28, 28, 3, 1, 1},
		{256, 256, 14, 14, 3, 1, 1},
		{1024, 256, 14, 14, 1, 1, 1},
		{256, 256, 28, 28, 1, 1, 1},
		{512, 512, 7, 7, 3, 1, 1},
		{256, 512, 56, 56, 1, 2, 1},
		{128, 128, 56, 56, 3, 1, 128},
		// SqueezeNet 1.1's conv10 and a fire module's expand1x1.
		{512, 1000, 13, 13, 1, 1, 1},
		{16, 64, 55, 55, 1, 1, 1},
	} {
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("c%d-m%d-%dx%d-k%d-s%d-g%d-packed=%v", cb.c, cb.m, cb.h, cb.w, cb.k, cb.s, cb.group, packed), func(b *testing.B) {
				r := rand.New(rand.NewSource(1))
				g := cb.geom()
				kdim := cb.c / cb.group * cb.k * cb.k
				x := randSlice(r, cb.c*cb.h*cb.w)
				w := randSlice(r, cb.m*kdim)
				bias := randSlice(r, cb.m)
				y := make([]float32, cb.m*g.OutSize())
				cw := NewConvWeights(w, cb.m, cb.group, kdim, packed)
				args := &ConvArgs{N: 1, C: cb.c, Geom: g, X: x, Bias: bias, Y: y, Act: ActRelu}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := Conv(cw, args); err != nil {
						b.Fatal(err)
					}
				}
				flops := 2 * float64(cb.m) * float64(g.OutSize()) * float64(kdim)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestSteadyStateAllocs: with packed or in-place weights (what Conv does
// with constant weights outside Winograd), a convolution (im2col,
// pointwise and depthwise paths), a ConvTranspose and a packed GEMM allocate
// nothing once their pooled scratch exists.
func TestSteadyStateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	r := rand.New(rand.NewSource(2))
	for i, cb := range []convBench{{8, 16, 12, 12, 3, 1, 1}, {8, 16, 12, 12, 1, 1, 1}, {8, 8, 12, 12, 3, 2, 8}, {32, 32, 12, 12, 3, 1, 1},
		{8, 16, 12, 12, 3, 1, 1}, {8, 16, 12, 12, 1, 1, 1}} {
		g := cb.geom()
		kdim := cb.c / cb.group * cb.k * cb.k
		cw := NewConvWeights(randSlice(r, cb.m*kdim), cb.m, cb.group, kdim, i < 4)
		if WinogradFits(g, cb.group, cb.c, cb.m) {
			cw.PackWinograd()
		}
		args := &ConvArgs{N: 2, C: cb.c, Geom: g, X: randSlice(r, 2*cb.c*cb.h*cb.w), Bias: randSlice(r, cb.m),
			Y: make([]float32, 2*cb.m*g.OutSize()), Act: ActRelu}
		args.Residual = randSlice(r, len(args.Y))
		if n := testing.AllocsPerRun(5, func() { _ = Conv(cw, args) }); n != 0 {
			t.Errorf("Conv %+v: %v allocations per run", cb, n)
		}
	}
	g := convBench{c: 4, m: 6, h: 9, w: 9, k: 3, s: 2, group: 2}.geom()
	// ConvTranspose from 5×5 back to 9×9 (the forward geometry's In/Out swapped roles).
	tw := NewConvTWeights(randSlice(r, 4*3*9), 4, 2, 3*9, true)
	targs := &ConvTArgs{N: 1, M: 6, Geom: g, X: randSlice(r, 4*g.OutSize()), Y: make([]float32, 6*g.InSize()), Act: ActTanh}
	if n := testing.AllocsPerRun(5, func() { _ = ConvTranspose(tw, targs) }); n != 0 {
		t.Errorf("ConvTranspose: %v allocations per run", n)
	}
	pb := PackB(true, 33, 17, randSlice(r, 17*33), 33)
	a, c := randSlice(r, 9*33), make([]float32, 9*17)
	ep := &Epilogue{ColBias: randSlice(r, 17), Act: ActHardSwish}
	if n := testing.AllocsPerRun(5, func() { SgemmPackedB(false, 9, 1, a, 33, pb, 0, c, 17, ep) }); n != 0 {
		t.Errorf("SgemmPackedB: %v allocations per run", n)
	}
}

// BenchmarkPackWeights is the create-time preparation of constant weights:
// the GEMM packing (PackA) of a 1×1 layer and the Winograd transform of a
// 3×3 one (ResNet-50 sizes).
func BenchmarkPackWeights(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, cb := range []convBench{{1024, 2048, 7, 7, 1, 1, 1}, {256, 256, 14, 14, 3, 1, 1}} {
		b.Run(fmt.Sprintf("c%d-m%d-k%d", cb.c, cb.m, cb.k), func(b *testing.B) {
			kdim := cb.c * cb.k * cb.k
			w := randSlice(r, cb.m*kdim)
			b.SetBytes(int64(4 * len(w)))
			for i := 0; i < b.N; i++ {
				cw := NewConvWeights(w, cb.m, 1, kdim, cb.k != 3)
				if cb.k == 3 {
					cw.PackWinograd()
				}
			}
		})
	}
}
