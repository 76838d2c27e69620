package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"
	"time"
)

// TestTuneBlocks sweeps the GEMM block sizes on conv-shaped problems,
// interleaving the configurations round by round so a busy machine's noise
// hits them alike, and logs the best GFLOP/s of each (GORT_TUNE=1 only).
func TestTuneBlocks(t *testing.T) {
	if os.Getenv("GORT_TUNE") == "" {
		t.Skip("set GORT_TUNE=1")
	}
	type cfg struct{ kc, mc, nc int }
	cfgs := []cfg{{256, 128, 2048}, {384, 96, 2048}, {384, 128, 2048}, {320, 96, 2048}, {256, 96, 2048}, {256, 128, 1024}, {256, 128, 4096}}
	shapes := []convBench{{256, 256, 28, 28, 1, 1, 1}, {64, 64, 56, 56, 3, 1, 1}, {256, 256, 14, 14, 3, 1, 1}}
	r := rand.New(rand.NewSource(1))
	type job struct {
		cw   *ConvWeights
		args *ConvArgs
		fl   float64
	}
	var jobs []job
	for _, cb := range shapes {
		g := cb.geom()
		kdim := cb.c / cb.group * cb.k * cb.k
		cw := NewConvWeights(randSlice(r, cb.m*kdim), cb.m, cb.group, kdim, true)
		args := &ConvArgs{N: 1, C: cb.c, Geom: g, X: randSlice(r, cb.c*cb.h*cb.w), Y: make([]float32, cb.m*g.OutSize())}
		jobs = append(jobs, job{cw, args, 2 * float64(cb.m*g.OutSize()*kdim)})
	}
	best := make([][]float64, len(cfgs))
	for i := range best {
		best[i] = make([]float64, len(jobs))
	}
	defer func(kc, mc, nc int) { sgemmKC, sgemmMC, sgemmNC = kc, mc, nc }(sgemmKC, sgemmMC, sgemmNC)
	for round := 0; round < 8; round++ {
		for ci, c := range cfgs {
			sgemmKC, sgemmMC, sgemmNC = c.kc, c.mc, c.nc
			for ji, j := range jobs {
				t0 := time.Now()
				for i := 0; i < 3; i++ {
					_ = Conv(j.cw, j.args)
				}
				best[ci][ji] = max(best[ci][ji], 3*j.fl/time.Since(t0).Seconds()/1e9)
			}
		}
	}
	for ci, c := range cfgs {
		t.Logf("kc=%d mc=%d nc=%d: %s", c.kc, c.mc, c.nc, fmt.Sprintf("%.1f ", best[ci]))
	}
}

// TestTuneWinograd compares Winograd F(2,3) with the im2col GEMM on ResNet's
// 3×3 layers, interleaved, best of several rounds (GORT_TUNE=1 only). It also
// logs each path's largest error against a float64 reference, relative to
// the sum of the magnitudes of the terms.
func TestTuneWinograd(t *testing.T) {
	if os.Getenv("GORT_TUNE") == "" {
		t.Skip("set GORT_TUNE=1")
	}
	defer func() { winogradOn = true }()
	r := rand.New(rand.NewSource(3))
	for _, cb := range []convBench{{64, 64, 56, 56, 3, 1, 1}, {256, 256, 14, 14, 3, 1, 1}, {512, 512, 7, 7, 3, 1, 1}, {16, 64, 55, 55, 3, 1, 1}, {32, 128, 27, 27, 3, 1, 1}, {48, 192, 13, 13, 3, 1, 1}, {64, 256, 13, 13, 3, 1, 1}, {24, 24, 40, 40, 3, 1, 1}} {
		g := cb.geom()
		kdim := cb.c * 9
		w := randSlice(r, cb.m*kdim)
		x := randSlice(r, cb.c*cb.h*cb.w)
		args := &ConvArgs{N: 1, C: cb.c, Geom: g, X: x, Y: make([]float32, cb.m*g.OutSize())}
		var best [2]float64
		var errs [2]float64
		for round := 0; round < 6; round++ {
			for i, on := range []bool{false, true} {
				winogradOn = on
				cw := NewConvWeights(w, cb.m, 1, kdim, true)
				if on {
					cw.PackWinograd()
				}
				t0 := time.Now()
				for k := 0; k < 3; k++ {
					_ = Conv(cw, args)
				}
				best[i] = max(best[i], 3*2*float64(cb.m*g.OutSize()*kdim)/time.Since(t0).Seconds()/1e9)
				if round == 0 {
					errs[i] = convRelErr(cb, g, x, w, args.Y)
				}
			}
		}
		t.Logf("%+v: im2col %.1f, winograd %.1f effective GFLOP/s (×%.2f); rel. error %.1e vs %.1e", cb, best[0], best[1], best[1]/best[0], errs[0], errs[1])
	}
}

// convRelErr is the largest |y - ref| / Σ|terms| of a padded 3×3 conv.
func convRelErr(cb convBench, g *ConvGeom, x, w, y []float32) float64 {
	OH, OW := g.Out[0], g.Out[1]
	worst := 0.0
	for m := 0; m < cb.m; m += 7 {
		for oh := 0; oh < OH; oh += 3 {
			for ow := 0; ow < OW; ow += 5 {
				var s, mag float64
				for c := 0; c < cb.c; c++ {
					for kh := 0; kh < 3; kh++ {
						for kw := 0; kw < 3; kw++ {
							ih, iw := oh-1+kh, ow-1+kw
							if ih < 0 || ih >= cb.h || iw < 0 || iw >= cb.w {
								continue
							}
							p := float64(x[(c*cb.h+ih)*cb.w+iw]) * float64(w[((m*cb.c+c)*3+kh)*3+kw])
							s += p
							mag += math.Abs(p)
						}
					}
				}
				worst = max(worst, math.Abs(float64(y[(m*OH+oh)*OW+ow])-s)/mag)
			}
		}
	}
	return worst
}
