package ml

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestLabelEncoder(t *testing.T) {
	cases := []struct {
		name  string
		opset int
		at    optest.A
		in    *tensor.Tensor
		want  *tensor.Tensor
	}{
		{"v1 string to int", 1, optest.A{"classes_strings": []string{"x", "y"}, "default_int64": 9}, tensor.Of([]int{3}, []string{"y", "z", "x"}), tensor.Of([]int{3}, []int64{1, 9, 0})},
		{"v1 int to string", 1, optest.A{"classes_strings": []string{"x", "y"}}, tensor.Of([]int{3}, []int64{1, 5, 0}), tensor.Of([]int{3}, []string{"y", "_Unused", "x"})},
		{"v2 float keys, NaN matches", 2, optest.A{"keys_floats": []float32{float32(math.NaN()), 1.5}, "values_strings": []string{"nan", "one"}},
			tensor.Of([]int{2, 2}, []float32{1.5, float32(math.NaN()), 2, 1.5}), tensor.Of([]int{2, 2}, []string{"one", "nan", "_Unused", "one"})},
		{"v4 tensors", 4, optest.A{"keys_tensor": tensor.Of([]int{2}, []int64{7, 8}), "values_tensor": tensor.Of([]int{2}, []float64{0.5, 1.5})},
			tensor.Of([]int{3}, []int64{8, 1, 7}), tensor.Of([]int{3}, []float64{1.5, math.Copysign(0, -1), 0.5})},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Domain: Domain, Op: "LabelEncoder", Opset: c.opset, Attrs: c.at, In: []*tensor.Tensor{c.in}})
		optest.Expect(t, c.name, got[0], c.want)
	}
}

func TestArrayFeatureExtractorAndBinarizer(t *testing.T) {
	x := tensor.Of([]int{2, 1, 3}, []int64{1, 2, 3, 4, 5, 6})
	got := optest.MustRun(t, optest.Call{Domain: Domain, Op: "ArrayFeatureExtractor", Opset: 1, In: []*tensor.Tensor{x, tensor.Of([]int{2}, []int64{2, 0})}})
	optest.Expect(t, "extract", got[0], tensor.Of([]int{2, 1, 2}, []int64{3, 1, 6, 4}))
	got = optest.MustRun(t, optest.Call{Domain: Domain, Op: "Binarizer", Opset: 1, Attrs: optest.A{"threshold": float32(0.5)}, In: []*tensor.Tensor{tensor.Of([]int{3}, []float32{0.5, 0.6, float32(math.NaN())})}})
	optest.Expect(t, "binarize", got[0], tensor.Of([]int{3}, []float32{0, 1, 0}))
}

// TestTreeEnsemble: two trees over 2 features, two targets, averaged.
// Tree A (node 0): x1 < 2 ? leaf 0 (t0, 10) : node 1 (x0 == 5 ? leaf 1 (t1, 4) : leaf 2 (t0, -2)).
// Tree B (node 2): x0 ∈ {1, 3} ? leaf 3 (t1, 6) : leaf 4 (t0, 1); NaN goes true.
func TestTreeEnsemble(t *testing.T) {
	at := optest.A{
		"aggregate_function":              0,
		"n_targets":                       2,
		"tree_roots":                      []int64{0, 2},
		"nodes_featureids":                []int64{1, 0, 0},
		"nodes_modes":                     tensor.Of([]int{3}, []uint8{1, 4, 6}),
		"nodes_splits":                    tensor.Of([]int{3}, []float32{2, 5, 0}),
		"membership_values":               tensor.Of([]int{3}, []float32{1, 3, float32(math.NaN())}),
		"nodes_truenodeids":               []int64{0, 1, 3},
		"nodes_trueleafs":                 []int64{1, 1, 1},
		"nodes_falsenodeids":              []int64{1, 2, 4},
		"nodes_falseleafs":                []int64{0, 1, 1},
		"nodes_missing_value_tracks_true": []int64{0, 0, 1},
		"leaf_targetids":                  []int64{0, 1, 0, 1, 0},
		"leaf_weights":                    tensor.Of([]int{5}, []float32{10, 4, -2, 6, 1}),
	}
	x := tensor.Of([]int{3, 2}, []float32{3, 1, 5, 7, float32(math.NaN()), 9})
	// Row 0: A leaf 0 (t0 10), B leaf 3 (t1 6) → [5, 3].
	// Row 1: A x0==5 → leaf 1 (t1 4), B 5∉set → leaf 4 (t0 1) → [0.5, 2].
	// Row 2: A x1=9 → node 1, NaN==5 false (tracks false) → leaf 2 (t0 -2); B NaN → true leaf 3 (t1 6) → [-1, 3].
	got := optest.MustRun(t, optest.Call{Domain: Domain, Op: "TreeEnsemble", Opset: 5, Attrs: at, In: []*tensor.Tensor{x}})
	optest.Expect(t, "average", got[0], tensor.Of([]int{3, 2}, []float32{5, 3, 0.5, 2, -1, 3}))
}
