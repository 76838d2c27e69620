package resample

import (
	"math"
	"sort"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("NonMaxSuppression", []int{10, 11}, buildNMS)
	shapes.Register("", "NonMaxSuppression", inferNMS)
}

// Box is one box as two corners, min and max on each axis.
type Box struct{ Y1, X1, Y2, X2 float64 }

// BoxFrom reads box i of a [.., 4] float slice in the node's format:
// center_point_box 0 gives any two diagonal corners [y1, x1, y2, x2],
// center_point_box 1 gives [x_center, y_center, width, height].
func BoxFrom(b []float32, centerPoint bool) Box {
	v := [4]float64{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}
	if centerPoint {
		xc, yc, w, h := v[0], v[1], v[2], v[3]
		return Box{Y1: yc - h/2, X1: xc - w/2, Y2: yc + h/2, X2: xc + w/2}
	}
	return Box{Y1: math.Min(v[0], v[2]), X1: math.Min(v[1], v[3]), Y2: math.Max(v[0], v[2]), X2: math.Max(v[1], v[3])}
}

// IoU is the intersection over union of two boxes, 0 when either has no area.
func IoU(a, b Box) float64 {
	areaA := (a.Y2 - a.Y1) * (a.X2 - a.X1)
	areaB := (b.Y2 - b.Y1) * (b.X2 - b.X1)
	if areaA <= 0 || areaB <= 0 {
		return 0
	}
	ih := math.Min(a.Y2, b.Y2) - math.Max(a.Y1, b.Y1)
	iw := math.Min(a.X2, b.X2) - math.Max(a.X1, b.X1)
	if ih <= 0 || iw <= 0 {
		return 0
	}
	inter := ih * iw
	return inter / (areaA + areaB - inter)
}

// SelectBoxes runs greedy NMS over one batch and class: candidates (score
// not below scoreThreshold, when given) in order of decreasing score, equal
// scores by increasing box index; a candidate is kept unless its IoU with a
// box already kept is strictly greater than iouThreshold; at most maxOut.
// The result is in selection order, which is the output order.
func SelectBoxes(boxes []Box, scores []float32, maxOut int, iou float64, scoreThr float64, hasScoreThr bool) []int {
	var cand []int
	for i, s := range scores {
		if s != s {
			continue // NaN scores never compare as selectable
		}
		if !hasScoreThr || float64(s) >= scoreThr {
			cand = append(cand, i)
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return scores[cand[i]] > scores[cand[j]] })
	var kept []int
	for _, c := range cand {
		if len(kept) >= maxOut {
			break
		}
		ok := true
		for _, k := range kept {
			if IoU(boxes[c], boxes[k]) > iou {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, c)
		}
	}
	return kept
}

func buildNMS(n *op.Node) (any, error) {
	cpb, err := n.Int("center_point_box", 0)
	if err != nil {
		return nil, err
	}
	if cpb != 0 && cpb != 1 {
		return nil, n.Errorf("center_point_box must be 0 or 1, got %d", cpb)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		bt, st := in[0], in[1]
		if bt.DType() != tensor.Float || st.DType() != tensor.Float {
			return nil, op.Errorf("boxes and scores must be float32")
		}
		if bt.Rank() != 3 || bt.Shape()[2] != 4 || st.Rank() != 3 {
			return nil, op.Errorf("boxes %v must be [batches, boxes, 4] and scores %v [batches, classes, boxes]", bt.Shape(), st.Shape())
		}
		nb, nbox, nc := bt.Shape()[0], bt.Shape()[1], st.Shape()[1]
		if st.Shape()[0] != nb || st.Shape()[2] != nbox {
			return nil, op.Errorf("scores %v do not match boxes %v", st.Shape(), bt.Shape())
		}
		maxOut := int64(0)
		if len(in) > 2 && in[2] != nil && in[2].Len() > 0 {
			v, err := in[2].Int64s()
			if err != nil {
				return nil, op.Errorf("max_output_boxes_per_class: %v", err)
			}
			maxOut = v[0]
		}
		iou := 0.0
		if len(in) > 3 && in[3] != nil && in[3].Len() > 0 {
			v, err := in[3].Float64s()
			if err != nil {
				return nil, op.Errorf("iou_threshold: %v", err)
			}
			iou = float64(float32(v[0]))
		}
		if iou < 0 || iou > 1 {
			return nil, op.Errorf("iou_threshold %v is outside [0, 1]", iou)
		}
		scoreThr, hasScore := 0.0, false
		if len(in) > 4 && in[4] != nil && in[4].Len() > 0 {
			v, err := in[4].Float64s()
			if err != nil {
				return nil, op.Errorf("score_threshold: %v", err)
			}
			scoreThr, hasScore = v[0], true
		}
		if maxOut > int64(nbox) {
			maxOut = int64(nbox)
		}
		var sel []int64
		if maxOut > 0 {
			bdata, sdata := bt.F32(), st.F32()
			boxes := make([]Box, nbox)
			for b := 0; b < nb; b++ {
				for i := range boxes {
					off := (b*nbox + i) * 4
					boxes[i] = BoxFrom(bdata[off:off+4], cpb == 1)
				}
				for c := 0; c < nc; c++ {
					scores := sdata[(b*nc+c)*nbox : (b*nc+c+1)*nbox]
					for _, k := range SelectBoxes(boxes, scores, int(maxOut), iou, scoreThr, hasScore) {
						sel = append(sel, int64(b), int64(c), int64(k))
					}
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
		}
		out := ctx.New(tensor.Int64, len(sel)/3, 3)
		copy(out.I64(), sel)
		return ctx.One(out), nil
	}), nil
}

// inferNMS: [selected, 3], the count known only at run time.
func inferNMS(c *shapes.Ctx) { c.Set(0, []graph.Dim{shapes.Unknown(), shapes.Known(3)}, "") }
