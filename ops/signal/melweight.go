package signal

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("MelWeightMatrix", []int{17}, buildMelWeightMatrix)
}

// buildMelWeightMatrix: triangular filters, equally spaced on the mel scale
// between the edge frequencies, mapping the dft_length/2+1 spectrogram bins
// to num_mel_bins. Filter edges are snapped to whole bins the way the ONNX
// reference does (floor((dft_length+1)·f/sample_rate)), which is what makes
// results match other runtimes exactly.
func buildMelWeightMatrix(n *op.Node) (any, error) {
	dt, err := outputDType(n, int64(tensor.Float))
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 5 {
			return nil, op.Errorf("MelWeightMatrix needs 5 inputs")
		}
		nMel, err := opsutil.ScalarInt(in[0], "num_mel_bins")
		if err != nil {
			return nil, err
		}
		dftLen, err := opsutil.ScalarInt(in[1], "dft_length")
		if err != nil {
			return nil, err
		}
		rate, err := opsutil.ScalarInt(in[2], "sample_rate")
		if err != nil {
			return nil, err
		}
		lo, err := scalarFloat(in[3], "lower_edge_hertz")
		if err != nil {
			return nil, err
		}
		hi, err := scalarFloat(in[4], "upper_edge_hertz")
		if err != nil {
			return nil, err
		}
		if nMel < 1 || dftLen < 1 || rate < 1 || lo < 0 || hi < lo {
			return nil, op.Errorf("MelWeightMatrix: invalid arguments (mel bins %d, dft length %d, rate %d, edges %g..%g)", nMel, dftLen, rate, lo, hi)
		}
		bins := int(dftLen/2 + 1)
		if _, err := ctx.CheckShape(dt, []int{bins, int(nMel)}); err != nil {
			return nil, err
		}
		out := ctx.New(dt, bins, int(nMel))
		toMel := func(f float64) float64 { return 2595 * math.Log10(1+f/700) }
		loMel, hiMel := toMel(lo), toMel(hi)
		points := int(nMel) + 2
		step := (hiMel - loMel) / float64(points)
		edge := make([]int, points)
		for i := range edge {
			hz := 700 * (math.Pow(10, (float64(i)*step+loMel)/2595) - 1)
			edge[i] = int(math.Floor(float64(dftLen+1) * hz / float64(rate)))
			if edge[i] < 0 || edge[i] >= bins {
				return nil, op.Errorf("MelWeightMatrix: filter edge bin %d is outside [0, %d)", edge[i], bins)
			}
		}
		w := make([]float64, bins*int(nMel))
		m := int(nMel)
		for i := 0; i < m; i++ {
			l, c, r := edge[i], edge[i+1], edge[i+2]
			if c == l {
				w[c*m+i] = 1
			} else {
				for j := l; j <= c; j++ {
					w[j*m+i] = float64(j-l) / float64(c-l)
				}
			}
			for j := c; j < r; j++ {
				w[j*m+i] = float64(r-j) / float64(r-c)
			}
		}
		if err := fill(out, w); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}
