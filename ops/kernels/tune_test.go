package kernels

import (
	"fmt"
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
