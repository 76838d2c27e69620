package resample_test

import (
	"math"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Pad's layout is [x1_begin, x2_begin, ..., x1_end, x2_end]: pads
// [0, 1, 1, 0] on 2x3 adds a column in front and a row at the end.
func TestPadLayout(t *testing.T) {
	x := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	for _, opset := range []int64{2, 11, 13, 18, 19, 21, 23, 24, 25} {
		var y *tensor.Tensor
		if opset == 2 {
			y = mustRun(t, opset, "Pad", []*pb.AttributeProto{aInts("pads", 0, 1, 1, 0), aFloat("value", 9)}, x)
		} else {
			y = mustRun(t, opset, "Pad", nil, x, i64(0, 1, 1, 0), tensor.Of([]int{}, []float32{9}))
		}
		checkShape(t, y, 3, 4)
		checkF32(t, y, 9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9)
	}
	y := mustRun(t, 1, "Pad", []*pb.AttributeProto{aInts("paddings", 0, 1, 1, 0)}, x)
	checkF32(t, y, 0, 1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0)
}

// Negative pads crop first; reflect, edge and wrap then extend the cropped
// extent. Row [0 1 2 3 4 5] with begin -1, end +3: cropped [1 2 3 4 5].
func TestPadNegativeAndModes(t *testing.T) {
	x := f32([]int{1, 6}, 0, 1, 2, 3, 4, 5)
	for _, tc := range []struct {
		mode  string
		begin int64
		end   int64
		want  []float32
	}{
		{"constant", -1, 3, []float32{1, 2, 3, 4, 5, 0, 0, 0}},
		{"reflect", -1, 3, []float32{1, 2, 3, 4, 5, 4, 3, 2}},
		{"edge", -1, 3, []float32{1, 2, 3, 4, 5, 5, 5, 5}},
		{"wrap", -1, 3, []float32{1, 2, 3, 4, 5, 1, 2, 3}},
		{"reflect", 2, -2, []float32{2, 1, 0, 1, 2, 3}},
		{"wrap", 2, -2, []float32{2, 3, 0, 1, 2, 3}},
		{"constant", -2, -3, []float32{2}},
		{"reflect", 7, 0, []float32{3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5}}, // reflected twice
	} {
		y := mustRun(t, 19, "Pad", []*pb.AttributeProto{aStr("mode", tc.mode)}, x, i64(0, tc.begin, 0, tc.end))
		checkF32(t, y, tc.want...)
	}
	// axes (Pad-18): pads apply to axis -1 only
	y := mustRun(t, 18, "Pad", nil, iota32(2, 2), i64(1, 0), nil, tensor.Of([]int{1}, []int64{-1}))
	checkShape(t, y, 2, 3)
	checkF32(t, y, 0, 0, 1, 0, 2, 3)
}

func TestCenterCropPad(t *testing.T) {
	// 3x5 -> 4x2: rows padded (0 before, 1 after), columns cropped from
	// floor((5-2)/2) = 1.
	y := mustRun(t, 18, "CenterCropPad", nil, iota32(3, 5), i64(4, 2))
	checkShape(t, y, 4, 2)
	checkF32(t, y, 1, 2, 6, 7, 11, 12, 0, 0)
}

// Ties go to the first index unless select_last_index; NaN wins as in numpy.
func TestArgMaxTies(t *testing.T) {
	x := f32([]int{2, 4}, 1, 3, 3, 0, 2, 2, 2, 2)
	for _, tc := range []struct {
		op   string
		last int64
		want []int64
	}{
		{"ArgMax", 0, []int64{1, 0}},
		{"ArgMax", 1, []int64{2, 3}},
		{"ArgMin", 0, []int64{3, 0}},
		{"ArgMin", 1, []int64{3, 3}},
	} {
		y := mustRun(t, 13, tc.op, []*pb.AttributeProto{aInt("axis", 1), aInt("keepdims", 0), aInt("select_last_index", tc.last)}, x)
		checkShape(t, y, 2)
		checkI64(t, y, tc.want...)
	}
	nan := float32(math.NaN())
	xn := f32([]int{5}, 1, nan, 7, nan, -1)
	checkI64(t, mustRun(t, 13, "ArgMax", nil, xn), 1)
	checkI64(t, mustRun(t, 13, "ArgMin", nil, xn), 1)
	checkI64(t, mustRun(t, 13, "ArgMax", []*pb.AttributeProto{aInt("select_last_index", 1)}, xn), 3)
	// integer types, keepdims, negative axis
	xi := tensor.Of([]int{2, 3}, []int32{5, 1, 5, -2, -2, 0})
	y := mustRun(t, 11, "ArgMin", []*pb.AttributeProto{aInt("axis", -1)}, xi)
	checkShape(t, y, 2, 1)
	checkI64(t, y, 1, 0)
}

// NMS output order: batch, then class, then selection order (score
// descending, equal scores by box index).
func TestNMSOrder(t *testing.T) {
	// four unit boxes: 0 and 1 overlap (IoU 0.6 > 0.5), 2 and 3 apart
	boxes := f32([]int{1, 4, 4},
		0, 0, 1, 1,
		0, 0.25, 1, 1.25, // IoU with box 0: 0.75/1.25 = 0.6
		5, 5, 6, 6,
		9, 9, 8, 8) // flipped corners
	scores := f32([]int{1, 2, 4},
		0.5, 0.9, 0.7, 0.7,
		0.1, 0.2, 0.3, 0.3)
	y := mustRun(t, 11, "NonMaxSuppression", nil, boxes, scores, i64(10), vec(0.5))
	checkShape(t, y, 6, 3)
	checkI64(t, y,
		0, 0, 1, // 0.9
		0, 0, 2, // 0.7, lower index first
		0, 0, 3, // box 0 suppressed by box 1
		0, 1, 2, 0, 1, 3, 0, 1, 1)
	// center_point_box = 1 and max_output_boxes_per_class
	cb := f32([]int{1, 2, 4}, 0.5, 0.5, 1, 1, 0.5, 0.6, 1, 1)
	y = mustRun(t, 10, "NonMaxSuppression", []*pb.AttributeProto{aInt("center_point_box", 1)}, cb, f32([]int{1, 1, 2}, 0.2, 0.8), i64(1))
	checkI64(t, y, 0, 0, 1)
}

func TestDepthSpace(t *testing.T) {
	x := iota32(1, 8, 1, 2)
	// DCR: output channel c, block (i, j) reads input channel (i*2+j)*2 + c
	y := mustRun(t, 13, "DepthToSpace", []*pb.AttributeProto{aInt("blocksize", 2)}, x)
	checkShape(t, y, 1, 2, 2, 4)
	checkF32(t, y, 0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15)
	// CRD: channel c*4 + i*2 + j
	y = mustRun(t, 13, "DepthToSpace", []*pb.AttributeProto{aInt("blocksize", 2), aStr("mode", "CRD")}, x)
	checkF32(t, y, 0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15)
	// SpaceToDepth inverts DCR
	back := mustRun(t, 13, "SpaceToDepth", []*pb.AttributeProto{aInt("blocksize", 2)}, mustRun(t, 13, "DepthToSpace", []*pb.AttributeProto{aInt("blocksize", 2)}, x))
	checkF32(t, back, x.F32()...)
}

// GridSample at the corner pixel centers and outside, per padding mode.
func TestGridSamplePadding(t *testing.T) {
	x := f32([]int{1, 1, 2, 3}, 0, 1, 2, 3, 4, 5)
	// points (x, y): (-1, -1) and (1.5, 0) with align_corners=1
	grid := f32([]int{1, 1, 2, 2}, -1, -1, 1.5, 0)
	// (1.5, 0) is column 2.5, row 0.5; rows average to columns 2.5, 3.5, 4.5
	for _, tc := range []struct {
		pad  string
		want []float32
	}{
		{"zeros", []float32{0, 0.5 * 3.5}}, // half of column 2, column 3 reads 0
		{"border", []float32{0, 3.5}},      // clipped to column 2
		{"reflection", []float32{0, 3}},    // folded to column 1.5
	} {
		y := mustRun(t, 20, "GridSample", []*pb.AttributeProto{aInt("align_corners", 1), aStr("padding_mode", tc.pad)}, x, grid)
		checkF32(t, y, tc.want...)
	}
}

func TestAffineGrid(t *testing.T) {
	theta := f32([]int{1, 2, 3}, 1, 0, 0, 0, 1, 0) // identity
	y := mustRun(t, 20, "AffineGrid", []*pb.AttributeProto{aInt("align_corners", 0)}, theta, i64(1, 1, 1, 2))
	checkShape(t, y, 1, 1, 2, 2)
	checkF32(t, y, -0.5, 0, 0.5, 0)
}
