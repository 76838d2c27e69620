package signal

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("STFT", []int{17}, buildSTFT)
}

// buildSTFT: frames of frame_length samples every frame_step samples, each
// multiplied by the window (when given) and transformed. The frame length is
// the window's length when a window is given, else the frame_length input.
func buildSTFT(n *op.Node) (any, error) {
	os, err := n.Int("onesided", 1)
	if err != nil {
		return nil, err
	}
	onesided := os != 0
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("STFT needs signal and frame_step")
		}
		x := in[0]
		sh := x.Shape()
		if len(sh) != 3 || (sh[2] != 1 && sh[2] != 2) {
			return nil, op.Errorf("STFT signal must be [batch, length, 1 or 2], got %v", sh)
		}
		batch, sigLen, comps := sh[0], sh[1], sh[2]
		step, err := opsutil.ScalarInt(in[1], "frame_step")
		if err != nil {
			return nil, err
		}
		var window []float64
		frameLen := -1
		if len(in) > 2 && in[2] != nil {
			if in[2].Rank() != 1 {
				return nil, op.Errorf("STFT window must have rank 1, got %v", in[2].Shape())
			}
			if window, err = floats(in[2], "window"); err != nil {
				return nil, err
			}
			frameLen = len(window)
		}
		if len(in) > 3 && in[3] != nil {
			v, err := opsutil.ScalarInt(in[3], "frame_length")
			if err != nil {
				return nil, err
			}
			if frameLen >= 0 && int(v) != frameLen {
				return nil, op.Errorf("STFT frame_length %d differs from the window length %d", v, frameLen)
			}
			frameLen = int(v)
		}
		if frameLen < 1 {
			return nil, op.Errorf("STFT needs a window or a positive frame_length")
		}
		if step < 1 {
			return nil, op.Errorf("STFT frame_step must be positive, got %d", step)
		}
		if frameLen > sigLen {
			return nil, op.Errorf("STFT frame length %d exceeds the signal length %d", frameLen, sigLen)
		}
		if onesided && comps == 2 {
			return nil, op.Errorf("STFT onesided output needs a real signal")
		}
		frames := (sigLen-frameLen)/int(step) + 1
		bins := frameLen
		if onesided {
			bins = frameLen/2 + 1
		}
		out := ctx.New(x.DType(), batch, frames, bins, 2)
		xs, err := floats(x, "signal")
		if err != nil {
			return nil, err
		}
		res := make([]float64, out.Len())
		tw := twiddles(frameLen)
		sig := make([]complex128, frameLen)
		spec := make([]complex128, frameLen)
		for b := 0; b < batch; b++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for f := 0; f < frames; f++ {
				start := f * int(step)
				for k := 0; k < frameLen; k++ {
					p := (b*sigLen + start + k) * comps
					re, im := xs[p], 0.0
					if comps == 2 {
						im = xs[p+1]
					}
					if window != nil {
						re, im = re*window[k], im*window[k]
					}
					sig[k] = complex(re, im)
				}
				dft(spec, sig, tw, false)
				for k := 0; k < bins; k++ {
					p := ((b*frames+f)*bins + k) * 2
					res[p], res[p+1] = real(spec[k]), imag(spec[k])
				}
			}
		}
		if err := fill(out, res); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}
