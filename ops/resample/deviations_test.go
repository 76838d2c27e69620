package resample_test

// One test per deviation of onnxruntime from the spec that the differential
// test (tools/difftest, explain.go) explains. Each asserts the value computed
// by hand from the spec formula, which is what gort returns.

import (
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// same-shape-copy: scales [1, 1.264] on 1x2 keep the shape, but the axis is
// resampled: nearest floor, asymmetric: x=1 -> 1/1.264 = 0.79 -> index 0.
func TestDeviationSameShapeIsStillResampled(t *testing.T) {
	y := mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("coordinate_transformation_mode", "asymmetric"), aStr("nearest_mode", "floor")},
		f32([]int{1, 2}, 10, 20), nil, vec(1, 1.264))
	checkF32(t, y, 10, 10)
	// linear half_pixel: x=1 -> 1.5/1.264 - 0.5 = 0.68670886 -> 10 + 6.8670886
	y = mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("mode", "linear")}, f32([]int{1, 2}, 10, 20), nil, vec(1, 1.264))
	checkF32(t, y, 10, float32(10+10*(1.5/float64(float32(1.264))-0.5)))
}

// integer-length: align_corners with scale 0.6 on length 4: length_resized
// = 2.4, x=1 -> 1*3/1.4 = 2.142857 -> 1 + 2.142857 (the node suite's value).
func TestDeviationFractionalLengthResized(t *testing.T) {
	y := mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("mode", "linear"), aStr("coordinate_transformation_mode", "align_corners")},
		f32([]int{1, 4}, 1, 2, 3, 4), nil, vec(1, 0.6))
	checkF32(t, y, 1, float32(1+3/(4*float64(float32(0.6))-1)))
}

// roi-output-size: floor(10 * (0.8 - 0.2) * 1) = 6 elements, and
// x_original = 0.2*9 + x*0.6*9/(6-1) = 1.8, 2.88, 3.96, 5.04, 6.12, 7.2.
func TestDeviationRoiInOutputSize(t *testing.T) {
	y := mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("coordinate_transformation_mode", "tf_crop_and_resize")},
		iota32(1, 10), vec(0, 0.2, 1, 0.8), vec(1, 1))
	checkShape(t, y, 1, 6)
	checkF32(t, y, 2, 3, 4, 5, 6, 7)
}

// float32-size: 10 x 0.7f = 6.99999988 -> 6 (float32 arithmetic gives 7).
func TestDeviationExactSizeProduct(t *testing.T) {
	y := mustRun(t, 13, "Resize", nil, iota32(1, 10), nil, vec(1, 0.7))
	checkShape(t, y, 1, 6)
}

// float32-coord: half_pixel, scale 7/6 as float32 (1.16666662693): output 3
// maps to 3.5/1.16666662693 - 0.5 = 2.50000007, which rounds to 3; in float32
// the quotient rounds to 3.0 and the tie goes down to 2.
func TestDeviationExactCoordinate(t *testing.T) {
	y := mustRun(t, 13, "Resize", nil, iota32(1, 12), nil, vec(1, float32(7.0/6)))
	checkShape(t, y, 1, 13)
	if got := y.F32()[3]; got != 3 {
		t.Fatalf("output 3 samples %v, want 3", got)
	}
}

// legacy-nearest: Resize-10 on length 5 with scale 0.6: x/0.6 = 0, 1.67,
// 3.33 rounded down -> 0, 1, 3.
func TestDeviationLegacyNearestFloor(t *testing.T) {
	y := mustRun(t, 10, "Resize", nil, f32([]int{1, 5}, 0, 1, 2, 3, 4), vec(1, 0.6))
	checkF32(t, y, 0, 1, 3)
}

// unit-scale-axis: tf_half_pixel_for_nn at sizes = input shifts by half a
// pixel: x_original = x + 0.5, round_prefer_ceil -> 1, 2, 3, 3 (clamped).
func TestDeviationUnitScaleStillShifts(t *testing.T) {
	y := mustRun(t, 11, "Resize", []*pb.AttributeProto{aStr("coordinate_transformation_mode", "tf_half_pixel_for_nn"), aStr("nearest_mode", "round_prefer_ceil")},
		f32([]int{1, 4}, 0, 1, 2, 3), empty(), empty(), i64(1, 4))
	checkF32(t, y, 1, 2, 3, 3)
	// tf_crop_and_resize with sizes = input still crops to the roi: roi 0.5..1
	// on length 5: x_original = 2 + x*0.5*4/4 = 2, 2.5, 3, 3.5, 4.
	y = mustRun(t, 11, "Resize", []*pb.AttributeProto{aStr("coordinate_transformation_mode", "tf_crop_and_resize"), aStr("mode", "linear")},
		f32([]int{1, 5}, 0, 1, 2, 3, 4), vec(0, 0.5, 1, 1), empty(), i64(1, 5))
	checkF32(t, y, 2, 2.5, 3, 3.5, 4)
}

// extrap-wraps: extrapolation_value -1 into uint8 saturates to 0.
func TestDeviationExtrapolationSaturates(t *testing.T) {
	x := tensor.Of([]int{1, 2}, []uint8{7, 9})
	y := mustRun(t, 13, "Resize", []*pb.AttributeProto{aStr("coordinate_transformation_mode", "tf_crop_and_resize"), aFloat("extrapolation_value", -1)},
		x, vec(0, 1, 1, 2), nil, i64(1, 3))
	got := tensor.Data[uint8](y)
	// x_original = 1 + x*1*1/2 = 1, 1.5, 2: the last two are outside [0, 1]
	if got[0] != 9 || got[1] != 0 || got[2] != 0 {
		t.Fatalf("got %v, want [9 0 0]", got)
	}
}

// antialias-same-length / antialias-ratio: antialias with scale 1.1 on a
// length-2 axis (output length 2) is plain linear with scale 1.1:
// x=1 -> 1.5/1.1 - 0.5 = 0.8636 -> 8.636 from [0, 10].
func TestDeviationAntialiasKeepsScale(t *testing.T) {
	y := mustRun(t, 18, "Resize", []*pb.AttributeProto{aStr("mode", "linear"), aInt("antialias", 1)}, f32([]int{1, 2}, 0, 10), nil, vec(1, 1.1))
	checkF32(t, y, 0, float32(10*(1.5/float64(float32(1.1))-0.5)))
}

// nms-score-equal: a box whose score equals score_threshold is kept.
func TestDeviationNMSScoreAtThreshold(t *testing.T) {
	boxes := f32([]int{1, 2, 4}, 0, 0, 1, 1, 0, 2, 1, 3)
	scores := f32([]int{1, 1, 2}, 0.9, 0.5)
	y := mustRun(t, 11, "NonMaxSuppression", nil, boxes, scores, i64(5), vec(0.5), vec(0.5))
	checkI64(t, y, 0, 0, 0, 0, 0, 1)
}
