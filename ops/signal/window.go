package signal

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("HannWindow", []int{17}, windowBuilder(hann))
	op.Register("HammingWindow", []int{17}, windowBuilder(hamming))
	op.Register("BlackmanWindow", []int{17}, windowBuilder(blackman))
}

// A window function gives the value at phase 2πk/N.
type windowFunc func(phase float64) float64

func hann(p float64) float64 { return 0.5 - 0.5*math.Cos(p) }

// hamming uses the spec's α = 25/46 (the "exact" Hamming coefficient that
// cancels the first sidelobe), not the rounded 0.54.
func hamming(p float64) float64 { return 25.0/46 - 21.0/46*math.Cos(p) }

func blackman(p float64) float64 { return 0.42 - 0.5*math.Cos(p) + 0.08*math.Cos(2*p) }

// windowBuilder makes the kernel of one window op: a periodic window of size
// N uses denominator N (for spectral analysis), a symmetric one N-1 (for
// filter design).
func windowBuilder(w windowFunc) op.Builder {
	return func(n *op.Node) (any, error) {
		per, err := n.Int("periodic", 1)
		if err != nil {
			return nil, err
		}
		dt, err := outputDType(n, int64(tensor.Float))
		if err != nil {
			return nil, err
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			if len(in) < 1 || in[0] == nil {
				return nil, op.Errorf("%s needs a size", n.OpType)
			}
			size, err := opsutil.ScalarInt(in[0], "size")
			if err != nil {
				return nil, err
			}
			if size < 0 {
				return nil, op.Errorf("%s size must be non-negative, got %d", n.OpType, size)
			}
			if _, err := ctx.CheckShape(dt, []int{int(size)}); err != nil {
				return nil, err
			}
			out := ctx.New(dt, int(size))
			denom := float64(size)
			if per == 0 {
				denom = float64(size - 1)
			}
			v := make([]float64, size)
			for k := range v {
				v[k] = w(2 * math.Pi * float64(k) / denom)
			}
			if size == 1 {
				v[0] = 1 // a one-point window is flat; avoids 0/0 when symmetric
			}
			if err := fill(out, v); err != nil {
				return nil, err
			}
			return ctx.One(out), nil
		}), nil
	}
}
