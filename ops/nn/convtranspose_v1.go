package nn

import (
	"maps"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ConvTranspose-1 (used through opset 10) derives the pads from an explicit
// output_shape with
//
//	If (auto_pads != SAME_UPPER): pads[start_i] = total_padding[i]/2; pads[end_i] = total_padding[i] - (total_padding[i]/2)
//
// so with auto_pad NOTSET an odd total puts the extra unit at the end;
// ConvTranspose-11 swapped the test to `== SAME_UPPER`, putting it at the
// start, which is what buildConvTranspose does. buildConvTranspose1 gives
// version 1 its own rule by turning output_shape into explicit pads when
// the rules differ (an odd positive total on some axis). Its SAME_UPPER /
// SAME_LOWER text contradicts itself (the formula against the attribute's
// description), so for those it keeps 11's rule, which the description
// states (docs/op-versions.md).
func buildConvTranspose1(n *op.Node) (any, error) {
	k, err := buildConvTranspose(n)
	if err != nil || !n.Has("output_shape") {
		return k, err
	}
	a := &op.Attribs{N: n}
	autoPad := a.String("auto_pad", "NOTSET")
	outShape, strides, dil, outPad := a.Ints("output_shape"), a.Ints("strides"), a.Ints("dilations"), a.Ints("output_padding")
	if a.Err != nil || autoPad != "NOTSET" {
		return k, a.Err
	}
	inner := k.(op.Kernel)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil || in[0].Rank() < 3 || in[1].Rank() != in[0].Rank() {
			return inner.Run(ctx, in) // it reports the problem
		}
		x, w := in[0].Shape(), in[1].Shape()
		nd := len(x) - 2
		os := outShape
		if len(os) == nd+2 {
			os = os[2:]
		}
		at := func(v []int64, d int, def int64) (int64, bool) {
			switch len(v) {
			case 0:
				return def, true
			case nd:
				return v[d], true
			}
			return 0, false
		}
		pads := make([]int64, 2*nd)
		differs := false
		for d := 0; d < nd; d++ {
			s, ok1 := at(strides, d, 1)
			dl, ok2 := at(dil, d, 1)
			opad, ok3 := at(outPad, d, 0)
			if !ok1 || !ok2 || !ok3 || len(os) != nd {
				return inner.Run(ctx, in)
			}
			full := s*int64(x[2+d]-1) + opad + (int64(w[2+d])-1)*dl + 1
			total := full - os[d]
			if total < 0 {
				return inner.Run(ctx, in) // both rules put a surplus at the end
			}
			pads[d], pads[nd+d] = total/2, total-total/2
			differs = differs || total%2 == 1
		}
		if !differs {
			return inner.Run(ctx, in)
		}
		m := *n
		m.Attrs = maps.Clone(n.Attrs)
		delete(m.Attrs, "output_shape")
		m.Attrs["pads"] = &pb.AttributeProto{Name: "pads", Type: pb.AttributeProto_INTS, Ints: pads}
		k2, err := buildConvTranspose(&m)
		if err != nil {
			return nil, err
		}
		return k2.(op.Kernel).Run(ctx, in)
	}), nil
}
