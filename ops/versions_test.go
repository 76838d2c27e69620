package ops_test

// Per-version semantics: one case per behavioural difference between the
// versions of an op that runtime/onnxpb/spec/Changelog.md describes (legacy
// broadcast/axis attributes, per-channel slopes, attributes that became
// inputs, changed defaults, new modes). Every expected value is written by
// hand from the Changelog text, not computed by gort. docs/op-versions.md
// lists the audit and names these cases.

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/internal/modeltest"
	"github.com/gort-dev/gort/ops/internal/optest"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

type vcase struct {
	name  string // "<Op>-<version>/<what>": the subtest docs/op-versions.md cites
	op    string
	opset int
	attrs optest.A
	in    []*tensor.Tensor
	want  []*tensor.Tensor // per output; nil entries are not checked
	err   string           // when set, the node must fail with an error containing it
}

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, v) }
func i64(shape []int, v ...int64) *tensor.Tensor   { return tensor.Of(shape, v) }
func i32(shape []int, v ...int32) *tensor.Tensor   { return tensor.Of(shape, v) }
func bools(shape []int, v ...bool) *tensor.Tensor  { return tensor.Of(shape, v) }
func sh(d ...int) []int                            { return d }
func zeros(d ...int) *tensor.Tensor                { return tensor.New(tensor.Float, d...) }

// ci is a consumed_inputs attribute, the legacy optimisation hint of
// version-1 ops that must be accepted and ignored.
func ci(v ...int64) optest.A { return optest.A{"consumed_inputs": v} }

// e8m0 is a 1-D float8e8m0 tensor of the given codes.
func e8m0(codes ...uint8) *tensor.Tensor {
	return tensor.Of([]int{len(codes)}, codes).WithDType(tensor.Float8E8M0)
}

// f16 is a float16 tensor (stored as float32; the values must be exact in float16).
func f16(shape []int, v ...float32) *tensor.Tensor {
	return tensor.Of(shape, v).WithDType(tensor.Float16)
}

func seq(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

// maxF32 is float32's largest finite value, numeric_limits<float>::max().
const maxF32 = math.MaxFloat32

var versionCases = []vcase{
	// ---- legacy broadcasting (versions < 7): B matched against a run of A's dims ----
	{name: "Add-6/broadcast_axis", op: "Add", opset: 6, attrs: optest.A{"broadcast": 1, "axis": 1},
		in:   []*tensor.Tensor{zeros(2, 3, 2), f32(sh(3), 1, 2, 3)},
		want: []*tensor.Tensor{f32(sh(2, 3, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3)}},
	{name: "Add-1/broadcast_off_needs_equal_shapes", op: "Add", opset: 1,
		in: []*tensor.Tensor{zeros(2, 3), f32(sh(3), 1, 2, 3)}, err: "broadcast is 0"},
	{name: "Add-1/consumed_inputs_ignored", op: "Add", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in:   []*tensor.Tensor{f32(sh(2), 1, 2), f32(sh(2), 10, 20)},
		want: []*tensor.Tensor{f32(sh(2), 11, 22)}},
	{name: "Add-7/multidirectional", op: "Add", opset: 7,
		in:   []*tensor.Tensor{f32(sh(2, 1), 10, 20), f32(sh(3), 1, 2, 3)},
		want: []*tensor.Tensor{f32(sh(2, 3), 11, 12, 13, 21, 22, 23)}},
	{name: "Sub-6/broadcast_suffix", op: "Sub", opset: 6, attrs: optest.A{"broadcast": 1},
		in:   []*tensor.Tensor{f32(sh(2, 3), 10, 20, 30, 40, 50, 60), f32(sh(3), 1, 2, 3)},
		want: []*tensor.Tensor{f32(sh(2, 3), 9, 18, 27, 39, 48, 57)}},
	{name: "Div-6/broadcast_axis0", op: "Div", opset: 6, attrs: optest.A{"broadcast": 1, "axis": 0},
		in:   []*tensor.Tensor{f32(sh(2, 3), 2, 4, 6, 9, 12, 15), f32(sh(2), 2, 3)},
		want: []*tensor.Tensor{f32(sh(2, 3), 1, 2, 3, 3, 4, 5)}},
	{name: "Mul-1/broadcast_scalar", op: "Mul", opset: 1, attrs: optest.A{"broadcast": 1},
		in:   []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), f32(sh(1), 3)},
		want: []*tensor.Tensor{f32(sh(2, 2), 3, 6, 9, 12)}},
	{name: "Pow-1/broadcast_axis0", op: "Pow", opset: 1, attrs: optest.A{"broadcast": 1, "axis": 0},
		in:   []*tensor.Tensor{f32(sh(2, 2), 2, 2, 3, 3), f32(sh(2), 2, 3)},
		want: []*tensor.Tensor{f32(sh(2, 2), 4, 4, 27, 27)}},
	{name: "And-1/broadcast_axis0", op: "And", opset: 1, attrs: optest.A{"broadcast": 1, "axis": 0},
		in:   []*tensor.Tensor{bools(sh(2, 2), true, true, false, true), bools(sh(2), true, false)},
		want: []*tensor.Tensor{bools(sh(2, 2), true, true, false, false)}},
	{name: "Equal-1/broadcast_axis0", op: "Equal", opset: 1, attrs: optest.A{"broadcast": 1, "axis": 0},
		in:   []*tensor.Tensor{i32(sh(2, 2), 1, 2, 1, 1), i32(sh(2), 1, 2)},
		want: []*tensor.Tensor{bools(sh(2, 2), true, false, false, false)}},
	{name: "Greater-1/broadcast_axis1", op: "Greater", opset: 1, attrs: optest.A{"broadcast": 1, "axis": 1},
		in:   []*tensor.Tensor{f32(sh(2, 2, 1), 1, 5, 3, 3), f32(sh(2), 2, 4)},
		want: []*tensor.Tensor{bools(sh(2, 2, 1), false, true, true, false)}},
	// PRelu before 7: "If Slope is of size 1, the value is shared across
	// different channels", i.e. otherwise one slope per channel (axis 1).
	{name: "PRelu-6/per_channel_slope", op: "PRelu", opset: 6,
		in:   []*tensor.Tensor{f32(sh(1, 2, 1, 3), -1, -2, 3, -1, -2, 3), f32(sh(2), 0.1, 0.5)},
		want: []*tensor.Tensor{f32(sh(1, 2, 1, 3), -0.1, -0.2, 3, -0.5, -1, 3)}},
	{name: "PRelu-1/shared_slope", op: "PRelu", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in:   []*tensor.Tensor{f32(sh(1, 2, 1, 2), -1, 2, -3, 4), f32(sh(1), 0.5)},
		want: []*tensor.Tensor{f32(sh(1, 2, 1, 2), -0.5, 2, -1.5, 4)}},
	{name: "PRelu-7/unidirectional", op: "PRelu", opset: 7,
		in:   []*tensor.Tensor{f32(sh(1, 2, 1, 3), -1, -2, 3, -1, -2, 3), f32(sh(3), 0.1, 0.2, 0.3)},
		want: []*tensor.Tensor{f32(sh(1, 2, 1, 3), -0.1, -0.4, 3, -0.1, -0.4, 3)}},

	// ---- changed defaults of activations ----
	// Selu-1: alpha 1.6732, gamma 1.0507; Selu-6: 1.67326319217681884765625, 1.05070102214813232421875.
	// y(-1) = gamma * alpha * (e^-1 - 1).
	{name: "Selu-1/defaults", op: "Selu", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2), -1, 2)}, want: []*tensor.Tensor{f32(sh(2), -1.1112877, 2.1014)}},
	{name: "Selu-6/defaults", op: "Selu", opset: 6,
		in: []*tensor.Tensor{f32(sh(2), -1, 2)}, want: []*tensor.Tensor{f32(sh(2), -1.1113307, 2.1014020)}},
	{name: "LeakyRelu-1/default_alpha", op: "LeakyRelu", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2), -1, 2)}, want: []*tensor.Tensor{f32(sh(2), -0.01, 2)}},
	{name: "Elu-1/default_alpha", op: "Elu", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2), -1, 2)}, want: []*tensor.Tensor{f32(sh(2), -0.63212056, 2)}},
	{name: "HardSigmoid-1/defaults", op: "HardSigmoid", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in: []*tensor.Tensor{f32(sh(3), 1, -3, 3)}, want: []*tensor.Tensor{f32(sh(3), 0.7, 0, 1)}},
	{name: "Relu-1/consumed_inputs_ignored", op: "Relu", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2), -1, 2)}, want: []*tensor.Tensor{f32(sh(2), 0, 2)}},

	// ---- Softmax family: versions < 13 coerce to 2-D at axis (default 1) ----
	{name: "Softmax-1/coerced_2d", op: "Softmax", opset: 1,
		in: []*tensor.Tensor{zeros(2, 2, 2)}, want: []*tensor.Tensor{f32(sh(2, 2, 2), 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25)}},
	{name: "Softmax-11/axis0_coerced", op: "Softmax", opset: 11, attrs: optest.A{"axis": 0},
		in: []*tensor.Tensor{zeros(2, 2)}, want: []*tensor.Tensor{f32(sh(2, 2), 0.25, 0.25, 0.25, 0.25)}},
	{name: "Softmax-13/last_axis", op: "Softmax", opset: 13,
		in: []*tensor.Tensor{zeros(2, 2, 2)}, want: []*tensor.Tensor{f32(sh(2, 2, 2), 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5)}},
	{name: "Softmax-13/axis0_single_axis", op: "Softmax", opset: 13, attrs: optest.A{"axis": 0},
		in: []*tensor.Tensor{zeros(2, 2)}, want: []*tensor.Tensor{f32(sh(2, 2), 0.5, 0.5, 0.5, 0.5)}},
	{name: "LogSoftmax-11/coerced_2d", op: "LogSoftmax", opset: 11,
		in: []*tensor.Tensor{zeros(1, 2, 2)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), -1.3862944, -1.3862944, -1.3862944, -1.3862944)}},
	{name: "LogSoftmax-13/last_axis", op: "LogSoftmax", opset: 13,
		in: []*tensor.Tensor{zeros(1, 2, 2)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), -0.6931472, -0.6931472, -0.6931472, -0.6931472)}},
	{name: "Hardmax-1/coerced_2d", op: "Hardmax", opset: 1,
		in: []*tensor.Tensor{f32(sh(1, 2, 2), 1, 3, 2, 0)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), 0, 1, 0, 0)}},
	{name: "Hardmax-13/last_axis", op: "Hardmax", opset: 13,
		in: []*tensor.Tensor{f32(sh(1, 2, 2), 1, 3, 2, 0)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), 0, 1, 1, 0)}},

	// ---- Concat: axis optional (default 1) in version 1, required from 4 ----
	{name: "Concat-1/default_axis_1", op: "Concat", opset: 1,
		in: []*tensor.Tensor{f32(sh(1, 2), 1, 2), f32(sh(1, 1), 3)}, want: []*tensor.Tensor{f32(sh(1, 3), 1, 2, 3)}},
	{name: "Concat-4/axis_required", op: "Concat", opset: 4,
		in: []*tensor.Tensor{f32(sh(1, 2), 1, 2), f32(sh(1, 1), 3)}, err: "axis"},

	// ---- Clip: attributes (1, 6) with finite defaults ±3.402823e+38, inputs from 11 defaulting to numeric limits ----
	{name: "Clip-6/attributes", op: "Clip", opset: 6, attrs: optest.A{"min": float32(0), "max": float32(1)},
		in: []*tensor.Tensor{f32(sh(3), -1, 0.5, 2)}, want: []*tensor.Tensor{f32(sh(3), 0, 0.5, 1)}},
	{name: "Clip-6/default_bounds", op: "Clip", opset: 6,
		in:   []*tensor.Tensor{f32(sh(3), float32(math.Inf(1)), float32(math.Inf(-1)), 1)},
		want: []*tensor.Tensor{f32(sh(3), 3.402823e+38, -3.402823e+38, 1)}},
	{name: "Clip-11/min_input_only", op: "Clip", opset: 11,
		in: []*tensor.Tensor{f32(sh(3), -1, 0.5, 2), tensor.Scalar[float32](0)}, want: []*tensor.Tensor{f32(sh(3), 0, 0.5, 2)}},
	{name: "Clip-11/default_bounds_numeric_limits", op: "Clip", opset: 11,
		in:   []*tensor.Tensor{f32(sh(3), float32(math.Inf(1)), float32(math.Inf(-1)), 1)},
		want: []*tensor.Tensor{f32(sh(3), maxF32, -maxF32, 1)}},
	{name: "Clip-13/min_above_max_gives_max", op: "Clip", opset: 13,
		in: []*tensor.Tensor{f32(sh(3), -1, 0.5, 2), tensor.Scalar[float32](2), tensor.Scalar[float32](1)}, want: []*tensor.Tensor{f32(sh(3), 1, 1, 1)}},

	// ---- Pad: paddings (1) → pads attribute (2) → pads input (11) → axes (18) → wrap (19) ----
	{name: "Pad-1/paddings_value", op: "Pad", opset: 1, attrs: optest.A{"paddings": []int64{0, 1, 0, 1}, "value": float32(9)},
		in: []*tensor.Tensor{f32(sh(1, 2), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 4), 9, 1, 2, 9)}},
	{name: "Pad-2/pads_attribute", op: "Pad", opset: 2, attrs: optest.A{"pads": []int64{0, 1, 0, 0}, "mode": "edge"},
		in: []*tensor.Tensor{f32(sh(1, 2), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 3), 1, 1, 2)}},
	{name: "Pad-11/pads_input", op: "Pad", opset: 11,
		in:   []*tensor.Tensor{f32(sh(1, 2), 1, 2), i64(sh(4), 0, 0, 0, 2), tensor.Scalar[float32](7)},
		want: []*tensor.Tensor{f32(sh(1, 4), 1, 2, 7, 7)}},
	{name: "Pad-18/axes_input", op: "Pad", opset: 18,
		in:   []*tensor.Tensor{f32(sh(1, 2), 1, 2), i64(sh(2), 1, 1), nil, i64(sh(1), -1)},
		want: []*tensor.Tensor{f32(sh(1, 4), 0, 1, 2, 0)}},
	{name: "Pad-19/wrap", op: "Pad", opset: 19, attrs: optest.A{"mode": "wrap"},
		in:   []*tensor.Tensor{f32(sh(1, 3), 1, 2, 3), i64(sh(4), 0, 2, 0, 1)},
		want: []*tensor.Tensor{f32(sh(1, 6), 2, 3, 1, 2, 3, 1)}},
	{name: "Pad-18/wrap_refused", op: "Pad", opset: 18, attrs: optest.A{"mode": "wrap"},
		in: []*tensor.Tensor{f32(sh(1, 3), 1, 2, 3), i64(sh(4), 0, 2, 0, 1)}, err: "wrap"},

	// ---- Slice: attributes (1) → inputs with steps (10) ----
	{name: "Slice-1/attributes", op: "Slice", opset: 1, attrs: optest.A{"starts": []int64{1}, "ends": []int64{3}, "axes": []int64{1}},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 4, 5)}},
	{name: "Slice-1/default_axes", op: "Slice", opset: 1, attrs: optest.A{"starts": []int64{0, 1}, "ends": []int64{1, 3}},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(1, 2), 1, 2)}},
	{name: "Slice-10/negative_step", op: "Slice", opset: 10,
		in:   []*tensor.Tensor{f32(sh(5), seq(5)...), i64(sh(1), 4), i64(sh(1), 0), i64(sh(1), 0), i64(sh(1), -2)},
		want: []*tensor.Tensor{f32(sh(2), 4, 2)}},

	// ---- Split: split as attribute or second input (1) → attribute (2) → input (13) → num_outputs (18) ----
	{name: "Split-1/split_input", op: "Split", opset: 1,
		in: []*tensor.Tensor{f32(sh(5), seq(5)...), i64(sh(2), 2, 3)}, want: []*tensor.Tensor{f32(sh(2), 0, 1), f32(sh(3), 2, 3, 4)}},
	{name: "Split-2/split_attribute", op: "Split", opset: 2, attrs: optest.A{"split": []int64{3, 2}},
		in: []*tensor.Tensor{f32(sh(5), seq(5)...)}, want: []*tensor.Tensor{f32(sh(3), 0, 1, 2), f32(sh(2), 3, 4)}},
	{name: "Split-13/split_input", op: "Split", opset: 13,
		in: []*tensor.Tensor{f32(sh(5), seq(5)...), i64(sh(2), 1, 4)}, want: []*tensor.Tensor{f32(sh(1), 0), f32(sh(4), 1, 2, 3, 4)}},
	{name: "Split-18/num_outputs_uneven", op: "Split", opset: 18, attrs: optest.A{"num_outputs": 3},
		in: []*tensor.Tensor{f32(sh(5), seq(5)...)}, want: []*tensor.Tensor{f32(sh(2), 0, 1), f32(sh(2), 2, 3), f32(sh(1), 4)}},

	// ---- Squeeze / Unsqueeze: axes attribute (1), negative axes (11), axes input (13) ----
	{name: "Squeeze-1/axes_attribute", op: "Squeeze", opset: 1, attrs: optest.A{"axes": []int64{0}},
		in: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2)}, want: []*tensor.Tensor{f32(sh(2, 1), 1, 2)}},
	{name: "Squeeze-11/negative_axes", op: "Squeeze", opset: 11, attrs: optest.A{"axes": []int64{-1}},
		in: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 2), 1, 2)}},
	{name: "Squeeze-13/axes_input", op: "Squeeze", opset: 13,
		in: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2), i64(sh(1), 2)}, want: []*tensor.Tensor{f32(sh(1, 2), 1, 2)}},
	{name: "Unsqueeze-1/axes_attribute", op: "Unsqueeze", opset: 1, attrs: optest.A{"axes": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 2), 1, 2)}},
	{name: "Unsqueeze-11/negative_axes", op: "Unsqueeze", opset: 11, attrs: optest.A{"axes": []int64{-1}},
		in: []*tensor.Tensor{f32(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(2, 1), 1, 2)}},
	{name: "Unsqueeze-13/axes_input", op: "Unsqueeze", opset: 13,
		in: []*tensor.Tensor{f32(sh(2), 1, 2), i64(sh(2), 0, 2)}, want: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2)}},

	// ---- Reductions: axes attribute → input (ReduceSum 13, the others 18); noop_with_empty_axes ----
	{name: "ReduceSum-1/axes_attribute", op: "ReduceSum", opset: 1, attrs: optest.A{"axes": []int64{1}},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(2, 1), 3, 12)}},
	{name: "ReduceSum-13/axes_input", op: "ReduceSum", opset: 13, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...), i64(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(3), 3, 5, 7)}},
	{name: "ReduceSum-13/noop_with_empty_axes", op: "ReduceSum", opset: 13, attrs: optest.A{"noop_with_empty_axes": 1},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}},
	{name: "ReduceSum-11/no_axes_reduces_all", op: "ReduceSum", opset: 11, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(), 15)}},
	{name: "ReduceMean-13/axes_attribute", op: "ReduceMean", opset: 13, attrs: optest.A{"axes": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(1, 3), 1.5, 2.5, 3.5)}},
	{name: "ReduceMean-18/axes_input", op: "ReduceMean", opset: 18,
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...), i64(sh(1), -1)}, want: []*tensor.Tensor{f32(sh(2, 1), 1, 4)}},
	{name: "ReduceMax-20/bool", op: "ReduceMax", opset: 20, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{bools(sh(2, 2), false, true, false, false), i64(sh(1), 1)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},
	{name: "ReduceL2-18/noop_with_empty_axes", op: "ReduceL2", opset: 18, attrs: optest.A{"noop_with_empty_axes": 1},
		in: []*tensor.Tensor{f32(sh(2), -3, 4)}, want: []*tensor.Tensor{f32(sh(2), 3, 4)}},

	// ---- TopK: k attribute (1) → K input (10) → largest/sorted (11) ----
	{name: "TopK-1/k_attribute", op: "TopK", opset: 1, attrs: optest.A{"k": 2},
		in: []*tensor.Tensor{f32(sh(4), 1, 4, 2, 3)}, want: []*tensor.Tensor{f32(sh(2), 4, 3), i64(sh(2), 1, 3)}},
	{name: "TopK-10/k_input", op: "TopK", opset: 10,
		in: []*tensor.Tensor{f32(sh(4), 1, 4, 2, 3), i64(sh(1), 2)}, want: []*tensor.Tensor{f32(sh(2), 4, 3), i64(sh(2), 1, 3)}},
	{name: "TopK-11/smallest", op: "TopK", opset: 11, attrs: optest.A{"largest": 0},
		in: []*tensor.Tensor{f32(sh(4), 1, 4, 2, 3), i64(sh(1), 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2), i64(sh(2), 0, 2)}},

	// ---- Tile: tiles and axis inputs (1) → repeats (6) ----
	{name: "Tile-1/tiles_axis_inputs", op: "Tile", opset: 1,
		in:   []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(), 2), i64(sh(), 1)},
		want: []*tensor.Tensor{f32(sh(2, 4), 1, 2, 1, 2, 3, 4, 3, 4)}},
	{name: "Tile-6/repeats", op: "Tile", opset: 6,
		in:   []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(2), 2, 1)},
		want: []*tensor.Tensor{f32(sh(4, 2), 1, 2, 3, 4, 1, 2, 3, 4)}},

	// ---- Reshape: shape attribute (1) → input (5) → allowzero (14) ----
	{name: "Reshape-1/shape_attribute", op: "Reshape", opset: 1, attrs: optest.A{"shape": []int64{3, -1}},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(3, 2), seq(6)...)}},
	{name: "Reshape-5/zero_copies_dim", op: "Reshape", opset: 5,
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...), i64(sh(2), 0, -1)}, want: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}},
	{name: "Reshape-14/allowzero", op: "Reshape", opset: 14, attrs: optest.A{"allowzero": 1},
		in: []*tensor.Tensor{zeros(0, 3), i64(sh(2), 3, 0)}, want: []*tensor.Tensor{zeros(3, 0)}},
	{name: "Reshape-13/zero_copies_even_if_empty", op: "Reshape", opset: 13,
		in: []*tensor.Tensor{zeros(0, 3), i64(sh(2), 3, 0)}, err: "Reshape"},

	// ---- Flatten: axis in [0, rank] (1) → negative axis (11) ----
	{name: "Flatten-1/default_axis", op: "Flatten", opset: 1,
		in: []*tensor.Tensor{zeros(2, 3, 4)}, want: []*tensor.Tensor{zeros(2, 12)}},
	{name: "Flatten-11/negative_axis", op: "Flatten", opset: 11, attrs: optest.A{"axis": -1},
		in: []*tensor.Tensor{zeros(2, 3, 4)}, want: []*tensor.Tensor{zeros(6, 4)}},

	// ---- Cast-1: `to` is a string naming the type ----
	{name: "Cast-1/to_string", op: "Cast", opset: 1, attrs: optest.A{"to": "INT32"},
		in: []*tensor.Tensor{f32(sh(2), 1.7, -1.7)}, want: []*tensor.Tensor{i32(sh(2), 1, -1)}},
	{name: "Cast-6/to_int", op: "Cast", opset: 6, attrs: optest.A{"to": int(tensor.Int32)},
		in: []*tensor.Tensor{f32(sh(2), 1.7, -1.7)}, want: []*tensor.Tensor{i32(sh(2), 1, -1)}},

	// ---- ArgMax: select_last_index (12) ----
	{name: "ArgMax-11/first_max", op: "ArgMax", opset: 11, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(3), 1, 3, 3)}, want: []*tensor.Tensor{i64(sh(), 1)}},
	{name: "ArgMax-12/select_last_index", op: "ArgMax", opset: 12, attrs: optest.A{"keepdims": 0, "select_last_index": 1},
		in: []*tensor.Tensor{f32(sh(3), 1, 3, 3)}, want: []*tensor.Tensor{i64(sh(), 2)}},

	// ---- DepthToSpace: DCR only (1), mode CRD (11) ----
	{name: "DepthToSpace-1/DCR", op: "DepthToSpace", opset: 1, attrs: optest.A{"blocksize": 2},
		in: []*tensor.Tensor{f32(sh(1, 8, 1, 1), seq(8)...)}, want: []*tensor.Tensor{f32(sh(1, 2, 2, 2), 0, 2, 4, 6, 1, 3, 5, 7)}},
	{name: "DepthToSpace-11/CRD", op: "DepthToSpace", opset: 11, attrs: optest.A{"blocksize": 2, "mode": "CRD"},
		in: []*tensor.Tensor{f32(sh(1, 8, 1, 1), seq(8)...)}, want: []*tensor.Tensor{f32(sh(1, 2, 2, 2), seq(8)...)}},

	// ---- OneHot: indices outside [0, depth) are all off (9); negative indices count from the back (11) ----
	{name: "OneHot-9/negative_index_all_off", op: "OneHot", opset: 9,
		in:   []*tensor.Tensor{i64(sh(2), -1, 1), tensor.Scalar[int64](3), f32(sh(2), 0, 1)},
		want: []*tensor.Tensor{f32(sh(2, 3), 0, 0, 0, 0, 1, 0)}},
	{name: "OneHot-11/negative_index", op: "OneHot", opset: 11,
		in:   []*tensor.Tensor{i64(sh(2), -1, 1), tensor.Scalar[int64](3), f32(sh(2), 0, 1)},
		want: []*tensor.Tensor{f32(sh(2, 3), 0, 0, 1, 0, 1, 0)}},

	// ---- Pooling ----
	// LpPool-1 and GlobalLpPool-1 take p as a float; 2 as an int.
	{name: "LpPool-1/p_float", op: "LpPool", opset: 1, attrs: optest.A{"kernel_shape": []int64{1, 2}, "p": float32(2)},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 5)}},
	{name: "LpPool-2/p_int", op: "LpPool", opset: 2, attrs: optest.A{"kernel_shape": []int64{1, 2}, "p": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, -4)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 7)}},
	{name: "GlobalLpPool-1/p_float", op: "GlobalLpPool", opset: 1, attrs: optest.A{"p": float32(2)},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 5)}},
	{name: "GlobalLpPool-2/p_int", op: "GlobalLpPool", opset: 2, attrs: optest.A{"p": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, -4)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 7)}},
	// AveragePool-1 excludes pads from the count; 7 adds count_include_pad.
	{name: "AveragePool-1/pads_not_counted", op: "AveragePool", opset: 1, attrs: optest.A{"kernel_shape": []int64{1, 2}, "pads": []int64{0, 1, 0, 0}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 2, 4)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 2, 3)}},
	{name: "AveragePool-7/count_include_pad", op: "AveragePool", opset: 7, attrs: optest.A{"kernel_shape": []int64{1, 2}, "pads": []int64{0, 1, 0, 0}, "count_include_pad": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 2, 4)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 3)}},
	// MaxPool-8: Indices output, storage_order 1 = column-major (index h + w*H).
	{name: "MaxPool-8/indices_column_major", op: "MaxPool", opset: 8, attrs: optest.A{"kernel_shape": []int64{2, 3}, "storage_order": 1},
		in:   []*tensor.Tensor{f32(sh(1, 1, 2, 3), 1, 2, 9, 3, 4, 5)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 9), i64(sh(1, 1, 1, 1), 4)}},
	{name: "MaxPool-8/indices_row_major", op: "MaxPool", opset: 8, attrs: optest.A{"kernel_shape": []int64{2, 3}},
		in:   []*tensor.Tensor{f32(sh(1, 1, 2, 3), 1, 2, 9, 3, 4, 5)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 9), i64(sh(1, 1, 1, 1), 2)}},
	// MaxPool-10: ceil_mode.
	{name: "MaxPool-10/ceil_mode", op: "MaxPool", opset: 10, attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}, "ceil_mode": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 2)}},
	{name: "MaxPool-8/floor_output", op: "MaxPool", opset: 8, attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 5)}},

	// ---- Normalisation ----
	// BatchNormalization < 9 with spatial = 0: statistics per activation, shaped (C, D1, ...).
	// y = (x - mean) / sqrt(var + 1e-5) with x - mean = 1, var = 1: 1/sqrt(1.00001) = 0.999995.
	{name: "BatchNormalization-7/spatial_0", op: "BatchNormalization", opset: 7, attrs: optest.A{"spatial": 0},
		in: []*tensor.Tensor{f32(sh(1, 2, 1, 2), 1, 2, 3, 4), f32(sh(2, 1, 2), 1, 1, 1, 1), zeros(2, 1, 2),
			f32(sh(2, 1, 2), 0, 1, 2, 3), f32(sh(2, 1, 2), 1, 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 2, 1, 2), 0.999995, 0.999995, 0.999995, 0.999995)}},
	{name: "BatchNormalization-6/spatial_default_1", op: "BatchNormalization", opset: 6, attrs: optest.A{"is_test": 1, "epsilon": float32(0)},
		in:   []*tensor.Tensor{f32(sh(1, 2, 1, 2), 1, 2, 3, 4), f32(sh(2), 1, 2), f32(sh(2), 0, 10), f32(sh(2), 1, 3), f32(sh(2), 1, 4)},
		want: []*tensor.Tensor{f32(sh(1, 2, 1, 2), 0, 1, 10, 11)}},
	{name: "BatchNormalization-1/consumed_inputs_is_test", op: "BatchNormalization", opset: 1,
		attrs: optest.A{"is_test": 1, "epsilon": float32(0), "consumed_inputs": []int64{0, 0, 0, 1, 1}},
		in:    []*tensor.Tensor{f32(sh(1, 2, 1, 2), 1, 2, 3, 4), f32(sh(2), 1, 2), f32(sh(2), 0, 10), f32(sh(2), 1, 3), f32(sh(2), 1, 4)},
		want:  []*tensor.Tensor{f32(sh(1, 2, 1, 2), 0, 1, 10, 11)}},
	{name: "InstanceNormalization-1/consumed_inputs", op: "InstanceNormalization", opset: 1,
		attrs: optest.A{"consumed_inputs": []int64{0, 0, 0}},
		in:    []*tensor.Tensor{f32(sh(1, 1, 2), 1, 3), f32(sh(1), 1), f32(sh(1), 0)},
		want:  []*tensor.Tensor{f32(sh(1, 1, 2), -0.999995, 0.999995)}},
	// GroupNormalization-18: scale and bias per group; 21: per channel.
	// Groups {1,3} and {5,7}: mean 2 / 6, variance 1, epsilon 0 → -1, 1.
	{name: "GroupNormalization-18/scale_per_group", op: "GroupNormalization", opset: 18, attrs: optest.A{"num_groups": 2, "epsilon": float32(0)},
		in:   []*tensor.Tensor{f32(sh(1, 4, 1, 1), 1, 3, 5, 7), f32(sh(2), 1, 2), f32(sh(2), 0, 10)},
		want: []*tensor.Tensor{f32(sh(1, 4, 1, 1), -1, 1, 8, 12)}},
	{name: "GroupNormalization-21/scale_per_channel", op: "GroupNormalization", opset: 21, attrs: optest.A{"num_groups": 2, "epsilon": float32(0)},
		in:   []*tensor.Tensor{f32(sh(1, 4, 1, 1), 1, 3, 5, 7), f32(sh(4), 1, 3, 2, 2), f32(sh(4), 0, 0, 10, 10)},
		want: []*tensor.Tensor{f32(sh(1, 4, 1, 1), -1, 3, 8, 12)}},
	{name: "GroupNormalization-21/per_group_scale_refused", op: "GroupNormalization", opset: 21, attrs: optest.A{"num_groups": 2, "epsilon": float32(0)},
		in: []*tensor.Tensor{f32(sh(1, 4, 1, 1), 1, 3, 5, 7), f32(sh(2), 1, 2), f32(sh(2), 0, 10)}, err: "scale"},

	// ---- Dropout: inference is the identity; the mask is T before 10, bool from 10 ----
	{name: "Dropout-7/mask_is_T", op: "Dropout", opset: 7,
		in: []*tensor.Tensor{f32(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2), f32(sh(2), 1, 1)}},
	{name: "Dropout-10/mask_is_bool", op: "Dropout", opset: 10,
		in: []*tensor.Tensor{f32(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2), bools(sh(2), true, true)}},
	{name: "Dropout-6/is_test", op: "Dropout", opset: 6, attrs: optest.A{"is_test": 1},
		in: []*tensor.Tensor{f32(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2)}},

	// ---- Upsample: height/width_scale (1) → scales attribute (7) → scales input (9) ----
	{name: "Upsample-1/height_width_scale", op: "Upsample", opset: 1, attrs: optest.A{"height_scale": float32(2), "width_scale": float32(2)},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 2, 4), 1, 1, 2, 2, 1, 1, 2, 2)}},
	{name: "Upsample-7/scales_attribute", op: "Upsample", opset: 7, attrs: optest.A{"scales": []float32{1, 1, 1, 3}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 6), 1, 1, 1, 2, 2, 2)}},
	{name: "Upsample-9/scales_input", op: "Upsample", opset: 9,
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), f32(sh(4), 1, 1, 2, 1)}, want: []*tensor.Tensor{f32(sh(1, 1, 2, 2), 1, 2, 1, 2)}},

	// ---- RoiAlign: output_half_pixel (10) → coordinate_transformation_mode, default half_pixel (16) ----
	// X[h, w] = w on a 4×4 map; RoI (0, 0, 2, 2), one bin, one sample at the bin centre:
	// 10: x = 0 + 1 = 1; 16: corners shifted by -0.5, x = 0.5.
	{name: "RoiAlign-10/output_half_pixel", op: "RoiAlign", opset: 10,
		attrs: optest.A{"output_height": 1, "output_width": 1, "sampling_ratio": 1},
		in:    []*tensor.Tensor{f32(sh(1, 1, 4, 4), 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3), f32(sh(1, 4), 0, 0, 2, 2), i64(sh(1), 0)},
		want:  []*tensor.Tensor{f32(sh(1, 1, 1, 1), 1)}},
	{name: "RoiAlign-16/half_pixel_default", op: "RoiAlign", opset: 16,
		attrs: optest.A{"output_height": 1, "output_width": 1, "sampling_ratio": 1},
		in:    []*tensor.Tensor{f32(sh(1, 1, 4, 4), 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3), f32(sh(1, 4), 0, 0, 2, 2), i64(sh(1), 0)},
		want:  []*tensor.Tensor{f32(sh(1, 1, 1, 1), 0.5)}},

	// ---- GridSample: modes bilinear/bicubic (16) renamed linear/cubic (20) ----
	{name: "GridSample-16/bilinear", op: "GridSample", opset: 16, attrs: optest.A{"mode": "bilinear", "align_corners": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 0, 10), f32(sh(1, 1, 1, 2), 0, 0)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 5)}},
	{name: "GridSample-20/linear", op: "GridSample", opset: 20, attrs: optest.A{"mode": "linear", "align_corners": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 0, 10), f32(sh(1, 1, 1, 2), 0, 0)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 5)}},
	{name: "GridSample-20/bilinear_refused", op: "GridSample", opset: 20, attrs: optest.A{"mode": "bilinear"},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 0, 10), f32(sh(1, 1, 1, 2), 0, 0)}, err: "bilinear"},

	// ---- DFT: axis attribute (17) → axis input, default -2 (20) ----
	// DFT of [1, 2]: [3, -1] (real), imaginary parts 0.
	{name: "DFT-17/axis_attribute", op: "DFT", opset: 17, attrs: optest.A{"axis": 1},
		in: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), 3, 0, -1, 0)}},
	{name: "DFT-20/axis_input", op: "DFT", opset: 20,
		in: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2), nil, i64(sh(), 1)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), 3, 0, -1, 0)}},

	// ---- Constant: value_* attributes (12) ----
	{name: "Constant-12/value_float", op: "Constant", opset: 12, attrs: optest.A{"value_float": float32(2.5)},
		want: []*tensor.Tensor{f32(sh(), 2.5)}},
	{name: "Constant-12/value_ints", op: "Constant", opset: 12, attrs: optest.A{"value_ints": []int64{1, 2}},
		want: []*tensor.Tensor{i64(sh(2), 1, 2)}},

	// ---- Shape: start/end (15) ----
	{name: "Shape-15/start_end", op: "Shape", opset: 15, attrs: optest.A{"start": 1, "end": -1},
		in: []*tensor.Tensor{zeros(2, 3, 4)}, want: []*tensor.Tensor{i64(sh(1), 3)}},

	// ---- Mod: fmod (10) ----
	{name: "Mod-10/integer_sign_of_divisor", op: "Mod", opset: 10,
		in: []*tensor.Tensor{i64(sh(2), -4, 4), i64(sh(2), 3, -3)}, want: []*tensor.Tensor{i64(sh(2), 2, -2)}},
	{name: "Mod-10/fmod_sign_of_dividend", op: "Mod", opset: 10, attrs: optest.A{"fmod": 1},
		in: []*tensor.Tensor{f32(sh(2), -4, 4), f32(sh(2), 3, -3)}, want: []*tensor.Tensor{f32(sh(2), -1, 1)}},

	// ---- Round: half to even (11) ----
	{name: "Round-11/half_to_even", op: "Round", opset: 11,
		in: []*tensor.Tensor{f32(sh(4), 0.5, 1.5, 2.5, -2.5)}, want: []*tensor.Tensor{f32(sh(4), 0, 2, 2, -2)}},
	// ---- Pooling windows that start in the right padding: dropped (stated from 22) ----
	// X [1, 5, 2], kernel 2, stride 2, pads (0, 2), ceil_mode: ceil((3 + 2 - 1 - 1) / 2 + 1) = 3
	// windows starting at 0, 2, 4; the one at 4 lies wholly in the right padding. The formula
	// of versions before 22 counts it, though it pools no element (its value is undefined);
	// gort drops it at every version, as 22 states (a deliberate deviation, docs/op-versions.md).
	{name: "MaxPool-12/window_in_right_pad_dropped_too", op: "MaxPool", opset: 12,
		attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}, "pads": []int64{0, 0, 0, 2}, "ceil_mode": 1},
		in:    []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 2)}},
	{name: "MaxPool-22/window_in_right_pad_ignored", op: "MaxPool", opset: 22,
		attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}, "pads": []int64{0, 0, 0, 2}, "ceil_mode": 1},
		in:    []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 2)}},
	{name: "AveragePool-22/window_in_right_pad_ignored", op: "AveragePool", opset: 22,
		attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}, "pads": []int64{0, 0, 0, 2}, "ceil_mode": 1},
		in:    []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, 2)}},

	// ---- integer division truncates (the text of Div-6 on; Div-7 is the first with numpy broadcasting) ----
	{name: "Div-7/integer_truncates", op: "Div", opset: 7,
		in: []*tensor.Tensor{i64(sh(2), -7, 7), i64(sh(2), 2, -2)}, want: []*tensor.Tensor{i64(sh(2), -3, -3)}},

	// ---- reductions over an empty set (text of 11/13): 0, 1, -inf, +inf ----
	{name: "ReduceMax-13/empty_is_minus_inf", op: "ReduceMax", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 2)}, want: []*tensor.Tensor{f32(sh(2), float32(math.Inf(-1)), float32(math.Inf(-1)))}},
	{name: "ReduceMin-13/empty_is_plus_inf", op: "ReduceMin", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 2)}, want: []*tensor.Tensor{f32(sh(2), float32(math.Inf(1)), float32(math.Inf(1)))}},
	{name: "ReduceProd-13/empty_is_one", op: "ReduceProd", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 1)}},
	{name: "ReduceSum-13/empty_is_zero", op: "ReduceSum", opset: 13, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 2), i64(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(2), 0, 0)}},
	{name: "ReduceLogSumExp-13/empty_is_minus_inf", op: "ReduceLogSumExp", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 1)}, want: []*tensor.Tensor{f32(sh(1), float32(math.Inf(-1)))}},

	// ---- negative axes (11) ----
	{name: "Split-11/negative_axis", op: "Split", opset: 11, attrs: optest.A{"axis": -1},
		in: []*tensor.Tensor{f32(sh(1, 4), 0, 1, 2, 3)}, want: []*tensor.Tensor{f32(sh(1, 2), 0, 1), f32(sh(1, 2), 2, 3)}},
	{name: "Compress-11/negative_axis", op: "Compress", opset: 11, attrs: optest.A{"axis": -1},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), bools(sh(2), false, true)}, want: []*tensor.Tensor{f32(sh(2, 1), 2, 4)}},
	{name: "TopK-11/negative_axis", op: "TopK", opset: 11, attrs: optest.A{"axis": -2},
		in:   []*tensor.Tensor{f32(sh(2, 1), 1, 4), i64(sh(1), 1)},
		want: []*tensor.Tensor{f32(sh(1, 1), 4), i64(sh(1, 1), 1)}},
	{name: "Gather-11/negative_index", op: "Gather", opset: 11,
		in: []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(1), -1)}, want: []*tensor.Tensor{f32(sh(1), 3)}},

	// ---- scatter reductions: none (11/13), add/mul (16), max/min (18) ----
	{name: "ScatterElements-16/reduction_add", op: "ScatterElements", opset: 16, attrs: optest.A{"reduction": "add"},
		in:   []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(2), 0, 0), f32(sh(2), 10, 20)},
		want: []*tensor.Tensor{f32(sh(3), 31, 2, 3)}},
	{name: "ScatterElements-16/max_refused", op: "ScatterElements", opset: 16, attrs: optest.A{"reduction": "max"},
		in: []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(2), 1, 1), f32(sh(2), 5, 0)}, err: "max"},
	{name: "ScatterElements-18/reduction_max", op: "ScatterElements", opset: 18, attrs: optest.A{"reduction": "max"},
		in:   []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(2), 1, 1), f32(sh(2), 5, 0)},
		want: []*tensor.Tensor{f32(sh(3), 1, 5, 3)}},
	{name: "ScatterND-16/reduction_mul", op: "ScatterND", opset: 16, attrs: optest.A{"reduction": "mul"},
		in:   []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(2, 1), 2, 2), f32(sh(2), 2, 5)},
		want: []*tensor.Tensor{f32(sh(3), 1, 2, 30)}},
	{name: "ScatterND-18/reduction_min", op: "ScatterND", opset: 18, attrs: optest.A{"reduction": "min"},
		in:   []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(1, 1), 2), f32(sh(1), -4)},
		want: []*tensor.Tensor{f32(sh(3), 1, 2, -4)}},
	{name: "Scatter-11/negative_index", op: "Scatter", opset: 11,
		in:   []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(1), -1), f32(sh(1), 9)},
		want: []*tensor.Tensor{f32(sh(3), 1, 2, 9)}},

	// ---- GatherND batch_dims (12) ----
	{name: "GatherND-12/batch_dims", op: "GatherND", opset: 12, attrs: optest.A{"batch_dims": 1},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(2, 1), 1, 0)}, want: []*tensor.Tensor{f32(sh(2), 2, 3)}},

	// ---- Optional*: tensors accepted as inputs from 18 ----
	{name: "OptionalHasElement-18/tensor_input", op: "OptionalHasElement", opset: 18,
		in: []*tensor.Tensor{f32(sh(1), 1)}, want: []*tensor.Tensor{bools(sh(), true)}},
	{name: "OptionalGetElement-18/tensor_input", op: "OptionalGetElement", opset: 18,
		in: []*tensor.Tensor{f32(sh(1), 7)}, want: []*tensor.Tensor{f32(sh(1), 7)}},

	// ---- CumSum / EyeLike: first versions, spot checks of the attributes ----
	{name: "CumSum-11/exclusive_reverse", op: "CumSum", opset: 11, attrs: optest.A{"exclusive": 1, "reverse": 1},
		in: []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(), 0)}, want: []*tensor.Tensor{f32(sh(3), 5, 3, 0)}},
	{name: "EyeLike-9/k_and_dtype", op: "EyeLike", opset: 9, attrs: optest.A{"k": 1, "dtype": int(tensor.Int64)},
		in: []*tensor.Tensor{zeros(2, 3)}, want: []*tensor.Tensor{i64(sh(2, 3), 0, 1, 0, 0, 0, 1)}},
	// ---- numpy broadcasting from 7 (8 for the variadic ops): [2,1] with [3] gives [2,3] ----
	{name: "Mul-7/multidirectional", op: "Mul", opset: 7,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 1, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 1, 2, 3, 2, 4, 6)}},
	{name: "Sub-7/multidirectional", op: "Sub", opset: 7,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 1, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 0, -1, -2, 1, 0, -1)}},
	{name: "Pow-7/multidirectional", op: "Pow", opset: 7,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 1, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 1, 1, 1, 2, 4, 8)}},
	{name: "Pow-12/integer_exponent", op: "Pow", opset: 12,
		in: []*tensor.Tensor{f32(sh(2), 2, 3), i64(sh(2), 2, 3)}, want: []*tensor.Tensor{f32(sh(2), 4, 27)}},
	{name: "Pow-7/mixed_types_refused", op: "Pow", opset: 7,
		in: []*tensor.Tensor{f32(sh(2), 2, 3), i64(sh(2), 2, 3)}, err: "dtype"},
	{name: "And-7/multidirectional", op: "And", opset: 7,
		in:   []*tensor.Tensor{bools(sh(2, 1), true, false), bools(sh(2), true, false)},
		want: []*tensor.Tensor{bools(sh(2, 2), true, false, false, false)}},
	{name: "Or-7/multidirectional", op: "Or", opset: 7,
		in:   []*tensor.Tensor{bools(sh(2, 1), true, false), bools(sh(2), true, false)},
		want: []*tensor.Tensor{bools(sh(2, 2), true, true, true, false)}},
	{name: "Xor-7/multidirectional", op: "Xor", opset: 7,
		in:   []*tensor.Tensor{bools(sh(2, 1), true, false), bools(sh(2), true, false)},
		want: []*tensor.Tensor{bools(sh(2, 2), false, true, true, false)}},
	{name: "Equal-7/multidirectional", op: "Equal", opset: 7,
		in:   []*tensor.Tensor{i64(sh(2, 1), 1, 2), i64(sh(2), 1, 2)},
		want: []*tensor.Tensor{bools(sh(2, 2), true, false, false, true)}},
	{name: "Less-7/multidirectional", op: "Less", opset: 7,
		in:   []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(2), 1, 2)},
		want: []*tensor.Tensor{bools(sh(2, 2), false, true, false, false)}},
	{name: "Greater-7/multidirectional", op: "Greater", opset: 7,
		in:   []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(2), 1, 2)},
		want: []*tensor.Tensor{bools(sh(2, 2), false, false, true, false)}},
	{name: "Max-8/multidirectional", op: "Max", opset: 8,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 0, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 1, 2, 3, 2, 2, 3)}},
	{name: "Min-8/multidirectional", op: "Min", opset: 8,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 0, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 0, 1, 1, 0, 2, 2)}},
	{name: "Sum-8/multidirectional", op: "Sum", opset: 8,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 0, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 1, 3, 4, 2, 4, 5)}},
	{name: "Mean-8/multidirectional", op: "Mean", opset: 8,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), f32(sh(3), 1, 2, 3)}, want: []*tensor.Tensor{f32(sh(2, 3), 1, 1.5, 2, 1.5, 2, 2.5)}},
	{name: "Sum-1/consumed_inputs_ignored", op: "Sum", opset: 1, attrs: optest.A{"consumed_inputs": []int64{0, 0}},
		in: []*tensor.Tensor{f32(sh(2), 1, 2), f32(sh(2), 3, 4)}, want: []*tensor.Tensor{f32(sh(2), 4, 6)}},

	// ---- Gemm: C broadcasts unidirectionally (7), C optional (11) ----
	// A = [[1, 2]], B = [[1, 0], [0, 1]]: A·B = [[1, 2]].
	{name: "Gemm-7/c_unidirectional", op: "Gemm", opset: 7,
		in:   []*tensor.Tensor{f32(sh(1, 2), 1, 2), f32(sh(2, 2), 1, 0, 0, 1), f32(sh(2), 10, 20)},
		want: []*tensor.Tensor{f32(sh(1, 2), 11, 22)}},
	{name: "Gemm-6/broadcast_attribute", op: "Gemm", opset: 6, attrs: optest.A{"broadcast": 1, "beta": float32(2)},
		in:   []*tensor.Tensor{f32(sh(1, 2), 1, 2), f32(sh(2, 2), 1, 0, 0, 1), f32(sh(1), 10)},
		want: []*tensor.Tensor{f32(sh(1, 2), 21, 22)}},
	{name: "Gemm-11/c_omitted", op: "Gemm", opset: 11, attrs: optest.A{"alpha": float32(3)},
		in:   []*tensor.Tensor{f32(sh(1, 2), 1, 2), f32(sh(2, 2), 1, 0, 0, 1)},
		want: []*tensor.Tensor{f32(sh(1, 2), 3, 6)}},

	// ---- negative axes (11), continued ----
	{name: "Concat-11/negative_axis", op: "Concat", opset: 11, attrs: optest.A{"axis": -1},
		in: []*tensor.Tensor{f32(sh(1, 1), 1), f32(sh(1, 2), 2, 3)}, want: []*tensor.Tensor{f32(sh(1, 3), 1, 2, 3)}},
	{name: "Hardmax-11/negative_axis_coerced", op: "Hardmax", opset: 11, attrs: optest.A{"axis": -2},
		in: []*tensor.Tensor{f32(sh(1, 2, 2), 1, 3, 2, 0)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), 0, 1, 0, 0)}},
	{name: "ArgMin-11/negative_axis", op: "ArgMin", opset: 11, attrs: optest.A{"axis": -1},
		in: []*tensor.Tensor{f32(sh(2, 2), 3, 1, 0, 5)}, want: []*tensor.Tensor{i64(sh(2, 1), 1, 0)}},
	{name: "ReduceL1-11/negative_axis", op: "ReduceL1", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, -2, -3, 4)}, want: []*tensor.Tensor{f32(sh(2), 3, 7)}},
	{name: "ReduceL1-18/axes_input", op: "ReduceL1", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, -2, -3, 4), i64(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(2), 4, 6)}},
	{name: "ReduceL2-11/negative_axis", op: "ReduceL2", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(1, 2), 3, -4)}, want: []*tensor.Tensor{f32(sh(1), 5)}},
	{name: "ReduceLogSum-18/axes_input", op: "ReduceLogSum", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(1, 2), 1, 0), i64(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "ReduceLogSumExp-18/axes_input", op: "ReduceLogSumExp", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(1, 2), 0, 0), i64(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(1), 0.6931472)}},
	{name: "ReduceProd-18/axes_input", op: "ReduceProd", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(2), 3, 8)}},
	{name: "ReduceSumSquare-18/axes_input", op: "ReduceSumSquare", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(2), 5, 25)}},
	{name: "ReduceMin-18/axes_input", op: "ReduceMin", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 0), i64(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(2), 1, 0)}},
	{name: "ReduceMax-18/axes_input", op: "ReduceMax", opset: 18, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 0), i64(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(2), 2, 3)}},
	{name: "ReduceMin-20/bool", op: "ReduceMin", opset: 20, attrs: optest.A{"keepdims": 0},
		in: []*tensor.Tensor{bools(sh(2, 2), true, true, false, true), i64(sh(1), 1)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},

	// ---- pooling attributes added later: ceil_mode (10), dilations (10 / 19), LpPool ceil_mode (18) ----
	{name: "AveragePool-10/ceil_mode", op: "AveragePool", opset: 10, attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}, "ceil_mode": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, 2)}},
	{name: "AveragePool-19/dilations", op: "AveragePool", opset: 19, attrs: optest.A{"kernel_shape": []int64{1, 2}, "dilations": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 1.5)}},
	{name: "MaxPool-10/dilations", op: "MaxPool", opset: 10, attrs: optest.A{"kernel_shape": []int64{1, 2}, "dilations": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 2)}},
	{name: "LpPool-18/ceil_mode", op: "LpPool", opset: 18, attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}, "ceil_mode": 1, "p": 2},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 3, 4, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 2)}},

	// ---- BatchNormalization-14: training_mode; running statistics with momentum ----
	// X = [1, 3] over N: mean 2, population variance 1; running_mean = 0·0.9 + 2·0.1, running_var = 1·0.9 + 1·0.1.
	{name: "BatchNormalization-14/training_mode", op: "BatchNormalization", opset: 14,
		attrs: optest.A{"training_mode": 1, "epsilon": float32(0), "momentum": float32(0.9)},
		in:    []*tensor.Tensor{f32(sh(2, 1, 1, 1), 1, 3), f32(sh(1), 1), f32(sh(1), 0), f32(sh(1), 0), f32(sh(1), 1)},
		want:  []*tensor.Tensor{f32(sh(2, 1, 1, 1), -1, 1), f32(sh(1), 0.2), f32(sh(1), 1)}},
	{name: "BatchNormalization-9/per_channel", op: "BatchNormalization", opset: 9, attrs: optest.A{"epsilon": float32(0)},
		in:   []*tensor.Tensor{f32(sh(1, 2, 1, 2), 1, 2, 3, 4), f32(sh(2), 1, 2), f32(sh(2), 0, 10), f32(sh(2), 1, 3), f32(sh(2), 1, 4)},
		want: []*tensor.Tensor{f32(sh(1, 2, 1, 2), 0, 1, 10, 11)}},

	// ---- Dropout-12: ratio and training_mode inputs; ratio 0 in training keeps everything ----
	{name: "Dropout-12/training_ratio_0", op: "Dropout", opset: 12,
		in:   []*tensor.Tensor{f32(sh(2), 1, 2), tensor.Scalar[float32](0), tensor.Scalar(true)},
		want: []*tensor.Tensor{f32(sh(2), 1, 2), bools(sh(2), true, true)}},

	// ---- Floor/Ceil-13: integral values, ±Inf and NaN returned as is ----
	{name: "Floor-13/special_values", op: "Floor", opset: 13,
		in:   []*tensor.Tensor{f32(sh(4), float32(math.Inf(-1)), float32(math.NaN()), 3, -2.5)},
		want: []*tensor.Tensor{f32(sh(4), float32(math.Inf(-1)), float32(math.NaN()), 3, -3)}},
	{name: "Ceil-13/special_values", op: "Ceil", opset: 13,
		in:   []*tensor.Tensor{f32(sh(4), float32(math.Inf(1)), float32(math.NaN()), 3, -2.5)},
		want: []*tensor.Tensor{f32(sh(4), float32(math.Inf(1)), float32(math.NaN()), 3, -2)}},

	// ---- Pad-13: bool data with a bool constant ----
	{name: "Pad-13/bool_constant", op: "Pad", opset: 13,
		in:   []*tensor.Tensor{bools(sh(1), false), i64(sh(2), 1, 0), tensor.Scalar(true)},
		want: []*tensor.Tensor{bools(sh(2), true, false)}},
	// ---- more negative axes (11) and empty-set results (13) of reductions ----
	{name: "ReduceMax-11/negative_axis", op: "ReduceMax", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 4, 3)}, want: []*tensor.Tensor{f32(sh(2), 2, 4)}},
	{name: "ReduceMin-11/negative_axis", op: "ReduceMin", opset: 11, attrs: optest.A{"axes": []int64{-2}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 4, 0)}, want: []*tensor.Tensor{f32(sh(2), 1, 0)}},
	{name: "ReduceMean-11/negative_axis", op: "ReduceMean", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 4, 3)}, want: []*tensor.Tensor{f32(sh(2), 1.5, 3.5)}},
	{name: "ReduceProd-11/negative_axis", op: "ReduceProd", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 4, 3)}, want: []*tensor.Tensor{f32(sh(2), 2, 12)}},
	{name: "ReduceSumSquare-11/negative_axis", op: "ReduceSumSquare", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 4, 3)}, want: []*tensor.Tensor{f32(sh(2), 5, 25)}},
	{name: "ReduceLogSum-11/negative_axis", op: "ReduceLogSum", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(1, 2), 0.5, 0.5)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "ReduceLogSumExp-11/negative_axis", op: "ReduceLogSumExp", opset: 11, attrs: optest.A{"axes": []int64{-1}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(1, 2), 0, 0)}, want: []*tensor.Tensor{f32(sh(1), 0.6931472)}},
	{name: "ReduceL1-13/empty_is_zero", op: "ReduceL1", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 1)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "ReduceL2-13/empty_is_zero", op: "ReduceL2", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 1)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "ReduceSumSquare-13/empty_is_zero", op: "ReduceSumSquare", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 1)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "ReduceLogSum-13/empty_is_minus_inf", op: "ReduceLogSum", opset: 13, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{zeros(0, 1)}, want: []*tensor.Tensor{f32(sh(1), float32(math.Inf(-1)))}},

	// ---- Slice-11: negative axes, INT_MIN end when slicing backward ----
	{name: "Slice-11/negative_axis_int_min_end", op: "Slice", opset: 11,
		in:   []*tensor.Tensor{f32(sh(3), 0, 1, 2), i64(sh(1), -1), i64(sh(1), math.MinInt64), i64(sh(1), -1), i64(sh(1), -1)},
		want: []*tensor.Tensor{f32(sh(3), 2, 1, 0)}},

	// ---- types added at 14: small integers ----
	{name: "Add-14/uint8", op: "Add", opset: 14,
		in: []*tensor.Tensor{tensor.Of(sh(2), []uint8{1, 250}), tensor.Of(sh(2), []uint8{3, 4})}, want: []*tensor.Tensor{tensor.Of(sh(2), []uint8{4, 254})}},
	{name: "Mul-14/int8", op: "Mul", opset: 14,
		in: []*tensor.Tensor{tensor.Of(sh(2), []int8{-3, 5}), tensor.Of(sh(2), []int8{4, 5})}, want: []*tensor.Tensor{tensor.Of(sh(2), []int8{-12, 25})}},
	{name: "Sub-14/uint16", op: "Sub", opset: 14,
		in: []*tensor.Tensor{tensor.Of(sh(1), []uint16{500}), tensor.Of(sh(1), []uint16{200})}, want: []*tensor.Tensor{tensor.Of(sh(1), []uint16{300})}},
	{name: "Div-14/int16", op: "Div", opset: 14,
		in: []*tensor.Tensor{tensor.Of(sh(1), []int16{-7}), tensor.Of(sh(1), []int16{2})}, want: []*tensor.Tensor{tensor.Of(sh(1), []int16{-3})}},

	// ---- defaults stated in 11: strides 1 ----
	{name: "MaxPool-11/default_strides", op: "MaxPool", opset: 11, attrs: optest.A{"kernel_shape": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 5)}},
	{name: "MaxUnpool-11/default_strides", op: "MaxUnpool", opset: 11, attrs: optest.A{"kernel_shape": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 5), i64(sh(1, 1, 1, 1), 1)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 0, 5)}},
	// Conv-11 SAME_UPPER: output ceil(4 / 2) = 2, total pad (2-1)·2 + 3 - 4 = 1, at the end.
	{name: "Conv-11/auto_pad_same_upper", op: "Conv", opset: 11, attrs: optest.A{"auto_pad": "SAME_UPPER", "strides": []int64{1, 2}},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 2, 3, 4), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 6, 7)}},
	// SAME_LOWER puts the odd pad at the beginning: windows (pad, 1, 2) and (2, 3, 4).
	{name: "Conv-11/auto_pad_same_lower", op: "Conv", opset: 11, attrs: optest.A{"auto_pad": "SAME_LOWER", "strides": []int64{1, 2}},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 2, 3, 4), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 3, 9)}},

	// ---- Transpose-25: perm values must lie in [0, rank-1] ----
	{name: "Transpose-25/perm_out_of_range", op: "Transpose", opset: 25, attrs: optest.A{"perm": []int64{0, 2}},
		in: []*tensor.Tensor{zeros(2, 3)}, err: "perm"},
	// ---- Range: float16 from 27, with stash_type ----
	// stash_type 0 accumulates in float16: 2048 + 1 = 2049 is a tie between 2048 and 2050 and
	// rounds to even, 2048, so the sequence never moves.
	{name: "Range-27/float16_stash_0_accumulates", op: "Range", opset: 27, attrs: optest.A{"stash_type": 0},
		in:   []*tensor.Tensor{f16(sh(), 2048), f16(sh(), 2052), f16(sh(), 1)},
		want: []*tensor.Tensor{f16(sh(4), 2048, 2048, 2048, 2048)}},
	{name: "Range-11/float16_refused", op: "Range", opset: 11,
		in: []*tensor.Tensor{f16(sh(), 0), f16(sh(), 2), f16(sh(), 1)}, err: "float16"},

	// ---- CastLike: saturate (19) for float8 targets: 1000 saturates to 448 (0x7E) or becomes NaN (0x7F) ----
	{name: "CastLike-19/saturate_default", op: "CastLike", opset: 19,
		in:   []*tensor.Tensor{f32(sh(1), 1000), tensor.Of(sh(1), []uint8{0}).WithDType(tensor.Float8E4M3FN)},
		want: []*tensor.Tensor{tensor.Of(sh(1), []uint8{0x7E}).WithDType(tensor.Float8E4M3FN)}},
	{name: "CastLike-19/saturate_0", op: "CastLike", opset: 19, attrs: optest.A{"saturate": 0},
		in:   []*tensor.Tensor{f32(sh(1), 1000), tensor.Of(sh(1), []uint8{0}).WithDType(tensor.Float8E4M3FN)},
		want: []*tensor.Tensor{tensor.Of(sh(1), []uint8{0x7F}).WithDType(tensor.Float8E4M3FN)}},
	// ---- first versions: defaults and modes a converter from an old opset meets ----
	// Upsample is asymmetric (x / scale), linear clamps at the edge: positions 0, 0.5, 1, 1.5 of [1, 3].
	{name: "Upsample-1/bilinear", op: "Upsample", opset: 1, attrs: optest.A{"height_scale": float32(1), "width_scale": float32(2), "mode": "bilinear"},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 3)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 2, 3, 3)}},
	{name: "Upsample-7/linear", op: "Upsample", opset: 7, attrs: optest.A{"scales": []float32{1, 1, 1, 2}, "mode": "linear"},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 3)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 2, 3, 3)}},
	{name: "Split-1/split_attribute", op: "Split", opset: 1, attrs: optest.A{"split": []int64{1, 4}},
		in: []*tensor.Tensor{f32(sh(5), seq(5)...)}, want: []*tensor.Tensor{f32(sh(1), 0), f32(sh(4), 1, 2, 3, 4)}},
	{name: "Squeeze-1/no_axes_squeezes_all_ones", op: "Squeeze", opset: 1,
		in: []*tensor.Tensor{f32(sh(1, 2, 1), 1, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2)}},
	{name: "Transpose-1/default_perm_reverses", op: "Transpose", opset: 1,
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...)}, want: []*tensor.Tensor{f32(sh(3, 2), 0, 3, 1, 4, 2, 5)}},
	{name: "ArgMax-1/defaults_axis0_keepdims", op: "ArgMax", opset: 1,
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 4, 3, 2)}, want: []*tensor.Tensor{i64(sh(1, 2), 1, 0)}},
	{name: "SpaceToDepth-1/blocks", op: "SpaceToDepth", opset: 1, attrs: optest.A{"blocksize": 2},
		in: []*tensor.Tensor{f32(sh(1, 1, 2, 2), 0, 1, 2, 3)}, want: []*tensor.Tensor{f32(sh(1, 4, 1, 1), 0, 1, 2, 3)}},
	// LRN-1 defaults alpha 1e-4, beta 0.75, bias 1: y = x / (1 + 1e-4/size · x²)^0.75 with size 1, x = 10: 10 / 1.01^0.75.
	{name: "LRN-1/defaults", op: "LRN", opset: 1, attrs: optest.A{"size": 1},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 10)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 9.9256503)}},
	// ---- ConvTranspose-11: where an odd total padding goes ----
	// X [1, 2], W [1, 1, 1], stride 2: the full output is [1, 1, 3, 2, 2] (length 5); a requested
	// length of 4 leaves total padding 1. 11's formula: SAME_UPPER puts total/2 = 0 at the
	// start, anything else (NOTSET with output_shape, SAME_LOWER) puts total - total/2 = 1 there.
	{name: "ConvTranspose-11/output_shape_odd_pad_at_start", op: "ConvTranspose", opset: 11, attrs: optest.A{"strides": []int64{1, 2}, "output_shape": []int64{1, 4}},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 3, 2, 2)}},
	{name: "ConvTranspose-11/same_upper_odd_pad_at_end", op: "ConvTranspose", opset: 11, attrs: optest.A{"strides": []int64{1, 2}, "auto_pad": "SAME_UPPER"},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 1, 3, 2)}},
	{name: "ConvTranspose-11/same_lower_odd_pad_at_start", op: "ConvTranspose", opset: 11, attrs: optest.A{"strides": []int64{1, 2}, "auto_pad": "SAME_LOWER"},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 3, 2, 2)}}, // ConvTranspose-1: `auto_pads != SAME_UPPER` gives pads[start] = total/2, so NOTSET with
	// output_shape puts the odd unit at the end: [1, 1, 3, 2].
	{name: "ConvTranspose-1/output_shape_odd_pad_at_end", op: "ConvTranspose", opset: 1, attrs: optest.A{"strides": []int64{1, 2}, "output_shape": []int64{1, 4}},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 1, 3, 2)}},
	{name: "ConvTranspose-1/output_shape_even_pad", op: "ConvTranspose", opset: 1, attrs: optest.A{"strides": []int64{1, 2}, "output_shape": []int64{1, 3}},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), f32(sh(1, 1, 1, 3), 1, 1, 1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 3, 2)}},
	// ---- version 1 of the unary and variadic ops: `consumed_inputs` accepted and ignored ----
	{name: "Abs-1/consumed_inputs", op: "Abs", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), -2, 3)}, want: []*tensor.Tensor{f32(sh(2), 2, 3)}},
	{name: "Ceil-1/consumed_inputs", op: "Ceil", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 1.2, -1.2)}, want: []*tensor.Tensor{f32(sh(2), 2, -1)}},
	{name: "Floor-1/consumed_inputs", op: "Floor", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 1.8, -1.2)}, want: []*tensor.Tensor{f32(sh(2), 1, -2)}},
	{name: "Neg-1/consumed_inputs", op: "Neg", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 2, -3)}, want: []*tensor.Tensor{f32(sh(2), -2, 3)}},
	{name: "Reciprocal-1/consumed_inputs", op: "Reciprocal", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 4, -0.5)}, want: []*tensor.Tensor{f32(sh(2), 0.25, -2)}},
	{name: "Sqrt-1/consumed_inputs", op: "Sqrt", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 9, 0.25)}, want: []*tensor.Tensor{f32(sh(2), 3, 0.5)}},
	{name: "Exp-1/consumed_inputs", op: "Exp", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 0, 1)}, want: []*tensor.Tensor{f32(sh(2), 1, 2.7182817)}},
	{name: "Log-1/consumed_inputs", op: "Log", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 1, 2.7182817)}, want: []*tensor.Tensor{f32(sh(2), 0, 1)}},
	{name: "Sigmoid-1/consumed_inputs", op: "Sigmoid", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0.5)}},
	{name: "Tanh-1/consumed_inputs", op: "Tanh", opset: 1, attrs: ci(0), in: []*tensor.Tensor{f32(sh(2), 0, 1)}, want: []*tensor.Tensor{f32(sh(2), 0, 0.7615942)}},
	{name: "Max-1/consumed_inputs", op: "Max", opset: 1, attrs: ci(0, 0), in: []*tensor.Tensor{f32(sh(2), 1, 5), f32(sh(2), 3, 2)}, want: []*tensor.Tensor{f32(sh(2), 3, 5)}},
	{name: "Min-1/consumed_inputs", op: "Min", opset: 1, attrs: ci(0, 0), in: []*tensor.Tensor{f32(sh(2), 1, 5), f32(sh(2), 3, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2)}},
	{name: "Mean-1/consumed_inputs", op: "Mean", opset: 1, attrs: ci(0, 0), in: []*tensor.Tensor{f32(sh(2), 1, 5), f32(sh(2), 3, 2)}, want: []*tensor.Tensor{f32(sh(2), 2, 3.5)}},
	{name: "Sub-1/equal_shapes", op: "Sub", opset: 1, attrs: ci(0, 0), in: []*tensor.Tensor{f32(sh(2), 5, 1), f32(sh(2), 2, 3)}, want: []*tensor.Tensor{f32(sh(2), 3, -2)}},
	{name: "Div-1/equal_shapes", op: "Div", opset: 1, attrs: ci(0, 0), in: []*tensor.Tensor{f32(sh(2), 6, 1), f32(sh(2), 3, 4)}, want: []*tensor.Tensor{f32(sh(2), 2, 0.25)}},
	{name: "Or-1/no_broadcast", op: "Or", opset: 1, in: []*tensor.Tensor{bools(sh(2), true, false), bools(sh(2), false, false)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},
	{name: "Xor-1/no_broadcast", op: "Xor", opset: 1, in: []*tensor.Tensor{bools(sh(2), true, true), bools(sh(2), false, true)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},
	{name: "Less-1/no_broadcast", op: "Less", opset: 1, in: []*tensor.Tensor{f32(sh(2), 1, 3), f32(sh(2), 2, 2)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},

	// ---- other first versions with no node-suite case ----
	{name: "Gemm-1/c_same_shape", op: "Gemm", opset: 1, attrs: optest.A{"transB": 1},
		in:   []*tensor.Tensor{f32(sh(1, 2), 1, 2), f32(sh(2, 2), 1, 1, 0, 1), f32(sh(1, 2), 10, 20)},
		want: []*tensor.Tensor{f32(sh(1, 2), 13, 22)}},
	{name: "MatMul-1/batched", op: "MatMul", opset: 1,
		in:   []*tensor.Tensor{f32(sh(2, 1, 2), 1, 2, 3, 4), f32(sh(2, 1), 1, 1)},
		want: []*tensor.Tensor{f32(sh(2, 1, 1), 3, 7)}},
	{name: "Gather-1/axis1", op: "Gather", opset: 1, attrs: optest.A{"axis": 1},
		in: []*tensor.Tensor{f32(sh(2, 3), seq(6)...), i64(sh(2), 2, 0)}, want: []*tensor.Tensor{f32(sh(2, 2), 2, 0, 5, 3)}},
	{name: "Shape-1/whole_shape", op: "Shape", opset: 1, in: []*tensor.Tensor{zeros(2, 3)}, want: []*tensor.Tensor{i64(sh(2), 2, 3)}},
	{name: "Size-1/element_count", op: "Size", opset: 1, in: []*tensor.Tensor{zeros(2, 3)}, want: []*tensor.Tensor{i64(sh(), 6)}},
	{name: "Softplus-1/ln_1_plus_exp", op: "Softplus", opset: 1, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0.6931472)}},
	{name: "Softsign-1/x_over_1_plus_abs", op: "Softsign", opset: 1, in: []*tensor.Tensor{f32(sh(2), 1, -3)}, want: []*tensor.Tensor{f32(sh(2), 0.5, -0.75)}},
	{name: "LpNormalization-1/defaults_p2_last_axis", op: "LpNormalization", opset: 1,
		in: []*tensor.Tensor{f32(sh(2, 2), 3, 4, 0, 2)}, want: []*tensor.Tensor{f32(sh(2, 2), 0.6, 0.8, 0, 1)}},
	{name: "GlobalAveragePool-1/mean", op: "GlobalAveragePool", opset: 1,
		in: []*tensor.Tensor{f32(sh(1, 2, 1, 2), 1, 3, 5, 9)}, want: []*tensor.Tensor{f32(sh(1, 2, 1, 1), 2, 7)}},
	{name: "GlobalMaxPool-1/max", op: "GlobalMaxPool", opset: 1,
		in: []*tensor.Tensor{f32(sh(1, 2, 1, 2), 1, 3, 5, 9)}, want: []*tensor.Tensor{f32(sh(1, 2, 1, 1), 3, 9)}},
	// MVN-9 default axes (0, 2, 3): per channel over N, H, W; [1, 3] → mean 2, std 1.
	{name: "MeanVarianceNormalization-9/default_axes", op: "MeanVarianceNormalization", opset: 9,
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 3)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), -1, 1)}},
	{name: "ThresholdedRelu-10/default_alpha_1", op: "ThresholdedRelu", opset: 10,
		in: []*tensor.Tensor{f32(sh(3), 0.5, 1, 2)}, want: []*tensor.Tensor{f32(sh(3), 0, 0, 2)}},
	// HardSwish: x · max(0, min(1, x/6 + 1/2)).
	{name: "HardSwish-14/formula", op: "HardSwish", opset: 14,
		in: []*tensor.Tensor{f32(sh(3), -4, 1, 3)}, want: []*tensor.Tensor{f32(sh(3), 0, 0.6666667, 3)}},
	{name: "Celu-12/default_alpha", op: "Celu", opset: 12,
		in: []*tensor.Tensor{f32(sh(2), -1, 2)}, want: []*tensor.Tensor{f32(sh(2), -0.63212056, 2)}},
	{name: "Sign-9/signs", op: "Sign", opset: 9, in: []*tensor.Tensor{f32(sh(3), -2, 0, 5)}, want: []*tensor.Tensor{f32(sh(3), -1, 0, 1)}},
	{name: "IsInf-10/detect_negative_only", op: "IsInf", opset: 10, attrs: optest.A{"detect_positive": 0},
		in:   []*tensor.Tensor{f32(sh(3), float32(math.Inf(1)), float32(math.Inf(-1)), 1)},
		want: []*tensor.Tensor{bools(sh(3), false, true, false)}},
	{name: "IsNaN-9/nan", op: "IsNaN", opset: 9, in: []*tensor.Tensor{f32(sh(2), float32(math.NaN()), 1)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},
	{name: "GreaterOrEqual-12/ties", op: "GreaterOrEqual", opset: 12, in: []*tensor.Tensor{f32(sh(2), 1, 2), f32(sh(2), 1, 3)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},
	{name: "LessOrEqual-12/ties", op: "LessOrEqual", opset: 12, in: []*tensor.Tensor{f32(sh(2), 1, 4), f32(sh(2), 1, 3)}, want: []*tensor.Tensor{bools(sh(2), true, false)}},
	{name: "NonZero-9/row_major_indices", op: "NonZero", opset: 9,
		in: []*tensor.Tensor{f32(sh(2, 2), 0, 1, 1, 0)}, want: []*tensor.Tensor{i64(sh(2, 2), 0, 1, 1, 0)}},
	{name: "Expand-8/bidirectional", op: "Expand", opset: 8,
		in: []*tensor.Tensor{f32(sh(2, 1), 1, 2), i64(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(2, 2), 1, 1, 2, 2)}},
	{name: "Det-11/2x2", op: "Det", opset: 11, in: []*tensor.Tensor{f32(sh(2, 2), 3, 1, 4, 2)}, want: []*tensor.Tensor{f32(sh(), 2)}},
	{name: "Compress-9/no_axis_flattens", op: "Compress", opset: 9,
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), bools(sh(3), false, true, true)}, want: []*tensor.Tensor{f32(sh(2), 2, 3)}},
	// ---- assorted later changes ----
	// BatchNormalization-15: scale and B (T1) and mean and var (T2) may differ in type from X.
	// (2 - 1) / sqrt(1) · 2 + 1 = 3.
	{name: "BatchNormalization-15/mixed_types", op: "BatchNormalization", opset: 15, attrs: optest.A{"epsilon": float32(0)},
		in:   []*tensor.Tensor{f16(sh(1, 1, 1, 1), 2), f32(sh(1), 2), f32(sh(1), 1), f16(sh(1), 1), f16(sh(1), 1)},
		want: []*tensor.Tensor{f16(sh(1, 1, 1, 1), 3)}},
	// LpPool-11 SAME_UPPER: output ceil(3 / 1) = 3, total pad 1 at the end: windows (3, 4), (4, 0), (0, pad).
	{name: "LpPool-11/auto_pad_same_upper", op: "LpPool", opset: 11, attrs: optest.A{"kernel_shape": []int64{1, 2}, "p": 2, "auto_pad": "SAME_UPPER"},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 3, 4, 0)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 5, 4, 0)}},
	{name: "Mod-13/fmod_float", op: "Mod", opset: 13, attrs: optest.A{"fmod": 1},
		in: []*tensor.Tensor{f32(sh(2), 5.5, -5.5), f32(sh(2), 2, 2)}, want: []*tensor.Tensor{f32(sh(2), 1.5, -1.5)}},
	// Cast-13 states: ±0.0 to false, everything else (NaN included) to true.
	{name: "Cast-13/float_to_bool", op: "Cast", opset: 13, attrs: optest.A{"to": int(tensor.Bool)},
		in: []*tensor.Tensor{f32(sh(4), 0, float32(math.Copysign(0, -1)), 0.5, float32(math.NaN()))}, want: []*tensor.Tensor{bools(sh(4), false, false, true, true)}},
	// Resize-13: roi and scales optional. sizes 4 from 2, half_pixel, round_prefer_floor:
	// x_original = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 → 0, 0, 1, 1.
	{name: "Resize-13/roi_scales_omitted", op: "Resize", opset: 13, attrs: optest.A{"mode": "nearest"},
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 2), 1, 2), nil, nil, i64(sh(4), 1, 1, 1, 4)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 1, 1, 2, 2)}},
	// ---- first versions of trigonometric and other unary functions (7, 9), at points known exactly ----
	{name: "Sin-7/zero", op: "Sin", opset: 7, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Cos-7/zero", op: "Cos", opset: 7, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 1)}},
	{name: "Tan-7/zero", op: "Tan", opset: 7, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Asin-7/one", op: "Asin", opset: 7, in: []*tensor.Tensor{f32(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(1), 1.5707964)}},
	{name: "Acos-7/one", op: "Acos", opset: 7, in: []*tensor.Tensor{f32(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Atan-7/one", op: "Atan", opset: 7, in: []*tensor.Tensor{f32(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(1), 0.7853982)}},
	{name: "Sinh-9/zero", op: "Sinh", opset: 9, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Cosh-9/zero", op: "Cosh", opset: 9, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 1)}},
	{name: "Asinh-9/zero", op: "Asinh", opset: 9, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Acosh-9/one", op: "Acosh", opset: 9, in: []*tensor.Tensor{f32(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Atanh-9/zero", op: "Atanh", opset: 9, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	{name: "Erf-9/zero", op: "Erf", opset: 9, in: []*tensor.Tensor{f32(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(1), 0)}},
	// mish(1) = tanh(ln(1 + e)).
	{name: "Mish-18/one", op: "Mish", opset: 18, in: []*tensor.Tensor{f32(sh(2), 0, 1)}, want: []*tensor.Tensor{f32(sh(2), 0, 0.86509839)}},

	// ---- Clip-1: a bound without its attribute does not clip (Clip-6 defaults to ±3.402823e+38) ----
	{name: "Clip-1/absent_bound_unbounded", op: "Clip", opset: 1, attrs: optest.A{"min": float32(0), "consumed_inputs": []int64{0}},
		in:   []*tensor.Tensor{f32(sh(3), -1, 2, float32(math.Inf(1)))},
		want: []*tensor.Tensor{f32(sh(3), 0, 2, float32(math.Inf(1)))}},

	// ---- more version-1 defaults ----
	{name: "ArgMin-1/defaults_axis0_keepdims", op: "ArgMin", opset: 1,
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 4, 3, 2)}, want: []*tensor.Tensor{i64(sh(1, 2), 0, 1)}},
	{name: "LogSoftmax-1/coerced_2d", op: "LogSoftmax", opset: 1,
		in: []*tensor.Tensor{zeros(1, 2, 2)}, want: []*tensor.Tensor{f32(sh(1, 2, 2), -1.3862944, -1.3862944, -1.3862944, -1.3862944)}},
	{name: "ReduceMean-1/no_axes_keepdims", op: "ReduceMean", opset: 1,
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 2.5)}},
	{name: "ReduceMax-1/axes_attribute", op: "ReduceMax", opset: 1, attrs: optest.A{"axes": []int64{0}, "keepdims": 0},
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 5, 3, 4)}, want: []*tensor.Tensor{f32(sh(2), 3, 5)}},
	{name: "Constant-1/value", op: "Constant", opset: 1, attrs: optest.A{"value": f32(sh(2), 1.5, -2)},
		want: []*tensor.Tensor{f32(sh(2), 1.5, -2)}},
	{name: "Dropout-1/is_test_consumed_inputs", op: "Dropout", opset: 1, attrs: optest.A{"is_test": 1, "consumed_inputs": []int64{0}},
		in: []*tensor.Tensor{f32(sh(2), 1, 2)}, want: []*tensor.Tensor{f32(sh(2), 1, 2)}},
	{name: "Conv-1/basic", op: "Conv", opset: 1,
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 2, 3), f32(sh(1, 1, 1, 2), 1, -1)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), -1, -1)}},
	{name: "MaxPool-1/basic", op: "MaxPool", opset: 1, attrs: optest.A{"kernel_shape": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 5, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 5)}},
	{name: "MaxUnpool-9/strides", op: "MaxUnpool", opset: 9, attrs: optest.A{"kernel_shape": []int64{1, 2}, "strides": []int64{1, 2}},
		in: []*tensor.Tensor{f32(sh(1, 1, 1, 2), 5, 7), i64(sh(1, 1, 1, 2), 1, 2)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 4), 0, 5, 7, 0)}},

	// ---- first versions of indexing ops: negative indices from the start (11) ----
	{name: "GatherElements-11/negative_index", op: "GatherElements", opset: 11, attrs: optest.A{"axis": 1},
		in: []*tensor.Tensor{f32(sh(1, 3), 1, 2, 3), i64(sh(1, 2), -1, 0)}, want: []*tensor.Tensor{f32(sh(1, 2), 3, 1)}},
	{name: "ScatterElements-11/negative_index", op: "ScatterElements", opset: 11,
		in: []*tensor.Tensor{f32(sh(3), 1, 2, 3), i64(sh(1), -3), f32(sh(1), 9)}, want: []*tensor.Tensor{f32(sh(3), 9, 2, 3)}},
	{name: "ScatterND-11/rows", op: "ScatterND", opset: 11,
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(1, 1), 1), f32(sh(1, 2), 8, 9)}, want: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 8, 9)}},
	{name: "GatherND-11/pairs", op: "GatherND", opset: 11,
		in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4), i64(sh(2, 2), 1, 0, 0, 1)}, want: []*tensor.Tensor{f32(sh(2), 3, 2)}},

	// ---- losses (12): mean reduction by default ----
	// NLL picks -input[n][target[n]]: -(-2) = 2.
	{name: "NegativeLogLikelihoodLoss-12/mean", op: "NegativeLogLikelihoodLoss", opset: 12,
		in: []*tensor.Tensor{f32(sh(1, 2), -0.5, -2), i64(sh(1), 1)}, want: []*tensor.Tensor{f32(sh(), 2)}},
	// Equal scores: -log(1/2).
	{name: "SoftmaxCrossEntropyLoss-12/mean", op: "SoftmaxCrossEntropyLoss", opset: 12,
		in: []*tensor.Tensor{f32(sh(1, 2), 0, 0), i64(sh(1), 0)}, want: []*tensor.Tensor{f32(sh(), 0.6931472)}},

	// ---- NonMaxSuppression-10: a duplicate box is suppressed ----
	{name: "NonMaxSuppression-10/duplicate_suppressed", op: "NonMaxSuppression", opset: 10,
		in:   []*tensor.Tensor{f32(sh(1, 2, 4), 0, 0, 1, 1, 0, 0, 1, 1), f32(sh(1, 1, 2), 0.8, 0.9), i64(sh(1), 10), f32(sh(1), 0.5)},
		want: []*tensor.Tensor{i64(sh(1, 3), 0, 0, 1)}},
	// ---- GRU-14 / LSTM-14: layout 1 puts batch first in X, initial states and outputs ----
	// All weights zero: every gate is sigmoid(0) = 1/2 and every candidate tanh(0) = 0, so
	// GRU: H1 = H0 / 2; LSTM: C1 = C0 / 2, H1 = tanh(C1) / 2. Batch 2, sequence 1, hidden 1.
	{name: "GRU-14/layout_batch_first", op: "GRU", opset: 14, attrs: optest.A{"hidden_size": 1, "layout": 1},
		in:   []*tensor.Tensor{zeros(2, 1, 1), zeros(1, 3, 1), zeros(1, 3, 1), nil, nil, f32(sh(2, 1, 1), 2, 4)},
		want: []*tensor.Tensor{f32(sh(2, 1, 1, 1), 1, 2), f32(sh(2, 1, 1), 1, 2)}},
	{name: "LSTM-14/layout_batch_first", op: "LSTM", opset: 14, attrs: optest.A{"hidden_size": 1, "layout": 1},
		in:   []*tensor.Tensor{zeros(2, 1, 1), zeros(1, 4, 1), zeros(1, 4, 1), nil, nil, zeros(2, 1, 1), f32(sh(2, 1, 1), 2, 4)},
		want: []*tensor.Tensor{f32(sh(2, 1, 1, 1), 0.3807971, 0.4820138), f32(sh(2, 1, 1), 0.3807971, 0.4820138), f32(sh(2, 1, 1), 1, 2)}},
	{name: "GRU-7/layout_seq_first", op: "GRU", opset: 7, attrs: optest.A{"hidden_size": 1},
		in:   []*tensor.Tensor{zeros(1, 2, 1), zeros(1, 3, 1), zeros(1, 3, 1), nil, nil, f32(sh(1, 2, 1), 2, 4)},
		want: []*tensor.Tensor{f32(sh(1, 1, 2, 1), 1, 2), f32(sh(1, 2, 1), 1, 2)}},
	// ---- Constant-11: sparse_value (values [5] at flat index 1 of a [3] tensor) ----
	{name: "Constant-11/sparse_value", op: "Constant", opset: 11,
		attrs: optest.A{"sparse_value": &pb.SparseTensorProto{Values: protoconv.Proto("v", f32(sh(1), 5)), Indices: protoconv.Proto("i", i64(sh(1), 1)), Dims: []int64{3}}},
		want:  []*tensor.Tensor{f32(sh(3), 0, 5, 0)}},
	// ---- CastLike-24: round_mode for float8e8m0 (powers of two, code = exponent + 127) ----
	// 2.5 and 3 lie between 2 (0x80) and 4 (0x81): up → 4, 4; down → 2, 2; nearest → 2, 4 (3 is a tie, up).
	{name: "CastLike-24/round_mode_up_default", op: "CastLike", opset: 24,
		in:   []*tensor.Tensor{f32(sh(2), 2.5, 3), e8m0(0)},
		want: []*tensor.Tensor{e8m0(0x81, 0x81)}},
	{name: "CastLike-24/round_mode_down", op: "CastLike", opset: 24, attrs: optest.A{"round_mode": "down"},
		in:   []*tensor.Tensor{f32(sh(2), 2.5, 3), e8m0(0)},
		want: []*tensor.Tensor{e8m0(0x80, 0x80)}},
	{name: "CastLike-24/round_mode_nearest", op: "CastLike", opset: 24, attrs: optest.A{"round_mode": "nearest"},
		in:   []*tensor.Tensor{f32(sh(2), 2.5, 3), e8m0(0)},
		want: []*tensor.Tensor{e8m0(0x80, 0x81)}},
	// ---- Quantize/DequantizeLinear: output_dtype (23), float8 inputs (19), float8e8m0 (24) ----
	// x / scale = -2, 2: int8 with output_dtype (23); without it (21) the default uint8 saturates -2 to 0.
	{name: "QuantizeLinear-23/output_dtype_int8", op: "QuantizeLinear", opset: 23, attrs: optest.A{"output_dtype": int(tensor.Int8)},
		in: []*tensor.Tensor{f32(sh(2), -1, 1), f32(sh(), 0.5)}, want: []*tensor.Tensor{tensor.Of(sh(2), []int8{-2, 2})}},
	{name: "QuantizeLinear-21/default_uint8", op: "QuantizeLinear", opset: 21,
		in: []*tensor.Tensor{f32(sh(2), -1, 1), f32(sh(), 0.5)}, want: []*tensor.Tensor{tensor.Of(sh(2), []uint8{0, 2})}},
	// y_scale may be float8e8m0 from 24: code 0x80 is 2^(128-127) = 2, so 4 and 6 quantize to 2 and 3.
	{name: "QuantizeLinear-24/float8e8m0_scale", op: "QuantizeLinear", opset: 24,
		in: []*tensor.Tensor{f32(sh(2), 4, 6), tensor.Of(sh(), []uint8{0x80}).WithDType(tensor.Float8E8M0)}, want: []*tensor.Tensor{tensor.Of(sh(2), []uint8{2, 3})}},
	// float8e4m3fn 0x38 is 1.0 (exponent 7 - bias 7, mantissa 0); times scale 2.
	{name: "DequantizeLinear-19/float8_input", op: "DequantizeLinear", opset: 19,
		in: []*tensor.Tensor{tensor.Of(sh(1), []uint8{0x38}).WithDType(tensor.Float8E4M3FN), f32(sh(), 2)}, want: []*tensor.Tensor{f32(sh(1), 2)}},
	{name: "DequantizeLinear-23/output_dtype_float16", op: "DequantizeLinear", opset: 23, attrs: optest.A{"output_dtype": int(tensor.Float16)},
		in: []*tensor.Tensor{tensor.Of(sh(1), []int8{3}), f32(sh(), 0.5)}, want: []*tensor.Tensor{f16(sh(1), 1.5)}},
	{name: "DequantizeLinear-24/float8e8m0_scale", op: "DequantizeLinear", opset: 24, attrs: optest.A{"output_dtype": int(tensor.Float)},
		in: []*tensor.Tensor{tensor.Of(sh(1), []int8{3}), tensor.Of(sh(), []uint8{0x80}).WithDType(tensor.Float8E8M0)}, want: []*tensor.Tensor{f32(sh(1), 6)}},
	// ---- version 1 of the remaining reductions: no axes reduces everything, keepdims 1 ----
	// X = [[1, 2], [3, 4]]: L1 10, L2 sqrt(30), LogSum ln 10, LogSumExp ln(e + e² + e³ + e⁴), Min 1, Prod 24, SumSquare 30.
	{name: "ReduceL1-1/all_axes", op: "ReduceL1", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 10)}},
	{name: "ReduceL2-1/all_axes", op: "ReduceL2", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 5.4772256)}},
	{name: "ReduceLogSum-1/all_axes", op: "ReduceLogSum", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 2.3025851)}},
	{name: "ReduceLogSumExp-1/all_axes", op: "ReduceLogSumExp", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 4.4401897)}},
	{name: "ReduceMin-1/all_axes", op: "ReduceMin", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 1)}},
	{name: "ReduceProd-1/all_axes", op: "ReduceProd", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 24)}},
	{name: "ReduceSumSquare-1/all_axes", op: "ReduceSumSquare", opset: 1, in: []*tensor.Tensor{f32(sh(2, 2), 1, 2, 3, 4)}, want: []*tensor.Tensor{f32(sh(1, 1), 30)}},

	// ---- first versions of quantized and region ops ----
	// (3 - 1) · 0.5 = 1.
	{name: "DequantizeLinear-10/zero_point", op: "DequantizeLinear", opset: 10,
		in: []*tensor.Tensor{tensor.Of(sh(1), []uint8{3}), f32(sh(), 0.5), tensor.Of(sh(), []uint8{1})}, want: []*tensor.Tensor{f32(sh(1), 1)}},
	// (2 - 0)·1 × (3 - 0)·1 = 6, requantized with scale 1, zero point 0.
	{name: "QLinearMatMul-10/unit_scales", op: "QLinearMatMul", opset: 10,
		in: []*tensor.Tensor{tensor.Of(sh(1, 1), []uint8{2}), f32(sh(), 1), tensor.Of(sh(), []uint8{0}),
			tensor.Of(sh(1, 1), []uint8{3}), f32(sh(), 1), tensor.Of(sh(), []uint8{0}), f32(sh(), 1), tensor.Of(sh(), []uint8{0})},
		want: []*tensor.Tensor{tensor.Of(sh(1, 1), []uint8{6})}},
	{name: "MaxRoiPool-1/whole_map", op: "MaxRoiPool", opset: 1, attrs: optest.A{"pooled_shape": []int64{1, 1}},
		in: []*tensor.Tensor{f32(sh(1, 1, 2, 2), 1, 2, 3, 4), f32(sh(1, 5), 0, 0, 0, 1, 1)}, want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 4)}},
	// With zero offsets DeformConv is Conv: [1, 2, 3] with kernel [1, -1] gives [-1, -1].
	{name: "DeformConv-19/zero_offsets", op: "DeformConv", opset: 19,
		in:   []*tensor.Tensor{f32(sh(1, 1, 1, 3), 1, 2, 3), f32(sh(1, 1, 1, 2), 1, -1), zeros(1, 4, 1, 2)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 2), -1, -1)}},

	// ---- version 1 of the recurrent layers (sequence first), hand-derived with tiny weights ----
	// RNN: H1 = tanh(X·W + H0·R) = tanh(0 + 0.5·1).
	{name: "RNN-1/recurrence", op: "RNN", opset: 1, attrs: optest.A{"hidden_size": 1},
		in:   []*tensor.Tensor{zeros(1, 1, 1), zeros(1, 1, 1), f32(sh(1, 1, 1), 1), nil, nil, f32(sh(1, 1, 1), 0.5)},
		want: []*tensor.Tensor{f32(sh(1, 1, 1, 1), 0.46211716), f32(sh(1, 1, 1), 0.46211716)}},
	{name: "GRU-1/zero_weights", op: "GRU", opset: 1, attrs: optest.A{"hidden_size": 1},
		in:   []*tensor.Tensor{zeros(1, 2, 1), zeros(1, 3, 1), zeros(1, 3, 1), nil, nil, f32(sh(1, 2, 1), 2, 4)},
		want: []*tensor.Tensor{f32(sh(1, 1, 2, 1), 1, 2), f32(sh(1, 2, 1), 1, 2)}},
	{name: "LSTM-1/zero_weights", op: "LSTM", opset: 1, attrs: optest.A{"hidden_size": 1},
		in:   []*tensor.Tensor{zeros(1, 2, 1), zeros(1, 4, 1), zeros(1, 4, 1), nil, nil, zeros(1, 2, 1), f32(sh(1, 2, 1), 2, 4)},
		want: []*tensor.Tensor{f32(sh(1, 1, 2, 1), 0.3807971, 0.4820138), f32(sh(1, 2, 1), 0.3807971, 0.4820138), f32(sh(1, 2, 1), 1, 2)}},

	// ---- random generators: degenerate distributions are deterministic ----
	{name: "RandomUniform-1/low_equals_high", op: "RandomUniform", opset: 1, attrs: optest.A{"shape": []int64{2}, "low": float32(2), "high": float32(2)},
		want: []*tensor.Tensor{f32(sh(2), 2, 2)}},
	{name: "RandomNormal-1/zero_scale", op: "RandomNormal", opset: 1, attrs: optest.A{"shape": []int64{2}, "mean": float32(3), "scale": float32(0)},
		want: []*tensor.Tensor{f32(sh(2), 3, 3)}},
	{name: "RandomUniformLike-1/input_shape", op: "RandomUniformLike", opset: 1, attrs: optest.A{"low": float32(1), "high": float32(1)},
		in: []*tensor.Tensor{zeros(1, 2)}, want: []*tensor.Tensor{f32(sh(1, 2), 1, 1)}},
	{name: "RandomNormalLike-1/input_shape", op: "RandomNormalLike", opset: 1, attrs: optest.A{"mean": float32(-1), "scale": float32(0)},
		in: []*tensor.Tensor{zeros(2, 1)}, want: []*tensor.Tensor{f32(sh(2, 1), -1, -1)}},
	{name: "Bernoulli-15/certain_probabilities", op: "Bernoulli", opset: 15,
		in: []*tensor.Tensor{f32(sh(2), 0, 1)}, want: []*tensor.Tensor{f32(sh(2), 0, 1)}},
	// Unnormalised log-probabilities (-inf, 0): every draw is class 1; int32 by default.
	{name: "Multinomial-7/certain_class", op: "Multinomial", opset: 7, attrs: optest.A{"sample_size": 3},
		in: []*tensor.Tensor{f32(sh(1, 2), float32(math.Inf(-1)), 0)}, want: []*tensor.Tensor{i32(sh(1, 3), 1, 1, 1)}},

	// ---- integer types in the type constraints ----
	// erf of an integer, truncated back: 0 up to |x| = 5, ±1 from 6 (erf(6) is 1 in float64).
	{name: "Erf-9/integers", op: "Erf", opset: 9,
		in: []*tensor.Tensor{i32(sh(4), 0, 5, 6, -7)}, want: []*tensor.Tensor{i32(sh(4), 0, 0, 1, -1)}},
	// image [1, 3], blocks [1, 2]: two block positions; pixel p sums column l, row k with l + k = p:
	// [1, 2 + 3, 4].
	{name: "Col2Im-18/int32", op: "Col2Im", opset: 18,
		in:   []*tensor.Tensor{i32(sh(1, 2, 2), 1, 2, 3, 4), i64(sh(2), 1, 3), i64(sh(2), 1, 2)},
		want: []*tensor.Tensor{i32(sh(1, 1, 1, 3), 1, 5, 4)}},
}

// TestVersionSemantics runs versionCases.
func TestVersionSemantics(t *testing.T) {
	for _, c := range versionCases {
		t.Run(c.name, func(t *testing.T) {
			nOut := max(len(c.want), 1)
			outs, err := optest.Run(optest.Call{Op: c.op, Opset: c.opset, Attrs: c.attrs, In: c.in, NOut: nOut})
			if c.err != "" {
				if err == nil {
					t.Fatalf("ran, want an error mentioning %q; outputs %v", c.err, outs)
				}
				if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.err)) {
					t.Fatalf("error %q does not mention %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) < len(c.want) {
				t.Fatalf("%d outputs, want %d", len(outs), len(c.want))
			}
			for i, w := range c.want {
				if w != nil {
					expectClose(t, i, outs[i], w)
				}
			}
		})
	}
}

// expectClose compares dtype, shape and values; floats within 1e-6
// relative (tighter than optest.Expect, so that Selu-1's and Selu-6's
// defaults, 4e-5 apart, are told apart).
func expectClose(t *testing.T, i int, got, want *tensor.Tensor) {
	t.Helper()
	if got == nil {
		t.Fatalf("output %d missing", i)
	}
	if got.DType() != want.DType() || !equalShape(got.Shape(), want.Shape()) {
		t.Fatalf("output %d: got %s%v, want %s%v", i, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	if want.DType() == tensor.Float || want.DType() == tensor.Double {
		g, _ := got.Float64s()
		w, _ := want.Float64s()
		for j := range w {
			if math.IsNaN(w[j]) != math.IsNaN(g[j]) || math.IsInf(w[j], 0) && g[j] != w[j] ||
				math.Abs(g[j]-w[j]) > 1e-6*math.Max(1, math.Abs(w[j])) {
				t.Fatalf("output %d: got %v, want %v", i, g, w)
			}
		}
		return
	}
	if gs, ws := got.String(), want.String(); gs != ws {
		t.Fatalf("output %d: got %s, want %s", i, gs, ws)
	}
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestOpVersionsDoc keeps docs/op-versions.md true to the registry: one row
// per registered op version, and every TestVersionSemantics case it cites
// exists.
func TestOpVersionsDoc(t *testing.T) {
	b, err := os.ReadFile("../docs/op-versions.md")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range versionCases {
		names[c.name] = true
	}
	rows := map[string]int{}
	cite := regexp.MustCompile("`TestVersionSemantics/([^`]+)`")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 8 || strings.TrimSpace(f[1]) == "op" || strings.HasPrefix(strings.TrimSpace(f[1]), "---") {
			continue
		}
		rows[strings.TrimSpace(f[1])+"-"+strings.TrimSpace(f[2])]++
		for _, m := range cite.FindAllStringSubmatch(f[5], -1) {
			if !names[m[1]] {
				t.Errorf("docs/op-versions.md cites TestVersionSemantics/%s, which does not exist", m[1])
			}
		}
	}
	for _, d := range op.Default.Domains() {
		for _, name := range op.Default.Ops(d) {
			full := name
			if d != "" {
				full = d + "." + name
			}
			for _, v := range op.Default.Versions(d, name) {
				k := fmt.Sprintf("%s-%d", full, v)
				if rows[k] != 1 {
					t.Errorf("docs/op-versions.md has %d rows for %s, want 1", rows[k], k)
				}
				delete(rows, k)
			}
		}
	}
	for k := range rows {
		t.Errorf("docs/op-versions.md has a row for %s, which is not registered", k)
	}
}

// TestIf11BranchShapes: from If-11 the branches may produce tensors of
// different shapes (If-1 required the same shape), so one node yields [1, 2]
// or [3] depending on the condition.
func TestIf11BranchShapes(t *testing.T) {
	branch := func(name string, v *tensor.Tensor) *pb.AttributeProto {
		g := &pb.GraphProto{Name: name,
			Node:   []*pb.NodeProto{{OpType: "Constant", Output: []string{name + "_y"}, Attribute: []*pb.AttributeProto{{Name: "value", Type: pb.AttributeProto_TENSOR, T: protoconv.Proto("v", v)}}}},
			Output: []*pb.ValueInfoProto{{Name: name + "_y"}}}
		return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_GRAPH, G: g}
	}
	attrs := []*pb.AttributeProto{branch("then_branch", f32(sh(2), 1, 2)), branch("else_branch", f32(sh(1), 3))}
	for _, c := range []struct {
		cond bool
		want *tensor.Tensor
	}{{true, f32(sh(2), 1, 2)}, {false, f32(sh(1), 3)}} {
		out, err := modeltest.Run(modeltest.Node{Op: "If", Opset: 11, Attrs: attrs, In: []*tensor.Tensor{tensor.Scalar(c.cond)}, Fed: 1})
		if err != nil {
			t.Fatalf("cond %v: %v", c.cond, err)
		}
		expectClose(t, 0, out[0], c.want)
	}
}
