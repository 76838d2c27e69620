package ops_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Seeds: random inputs rarely get past the validation of ops with many
// related inputs and attributes (Conv, LSTM, Pad, If, ...), so the sweep
// also starts from configurations known to be valid, the one-node cases of
// the ONNX node suite that gort passes, and mutates them: fresh values of
// the same shape (hostile indices, NaNs), other shapes, omitted inputs and
// bad attribute values. Each seed runs unmutated at every registered version
// of its op too.

const (
	nodeSuite    = "../testdata/onnx-node/node"
	manifestPath = "../testdata/conformance/manifest.txt"
	// seedsPerOp bounds the node-suite cases used per op, seedMutations
	// the mutations of each seed per op version.
	seedsPerOp    = 3
	seedMutations = 24
)

// seed is a valid one-node configuration taken from the node suite.
type seed struct {
	name  string // the node-suite case
	opset int    // the opset the case imports for the op's domain
	c     config
}

// loadSeeds reads the passing one-node, tensor-only cases of the node suite,
// keyed by "domain/op".
func loadSeeds() (map[string][]seed, error) {
	passing := map[string]bool{}
	f, err := os.Open(manifestPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, ok := strings.CutSuffix(sc.Text(), " pass"); ok {
			passing[name] = true
		}
	}
	dirs, err := filepath.Glob(filepath.Join(nodeSuite, "test_*"))
	if err != nil {
		return nil, err
	}
	out := map[string][]seed{}
	for k, v := range handSeeds() {
		out[k] = append(out[k], v...)
	}
	for _, dir := range dirs {
		if !passing[filepath.Base(dir)] {
			continue
		}
		s, key, ok := readSeed(dir)
		if ok && len(out[key]) < seedsPerOp {
			out[key] = append(out[key], s)
		}
	}
	return out, nil
}

func readSeed(dir string) (seed, string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return seed{}, "", false
	}
	m := &pb.ModelProto{}
	if proto.Unmarshal(data, m) != nil {
		return seed{}, "", false
	}
	g := m.GetGraph()
	if len(g.GetNode()) != 1 || len(g.GetInitializer()) != 0 {
		return seed{}, "", false
	}
	n := g.GetNode()[0]
	feeds := map[string]*tensor.Tensor{}
	for i, in := range g.GetInput() {
		if in.GetType().GetTensorType() == nil {
			return seed{}, "", false // sequences, optionals: not a config
		}
		b, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			continue // an omitted optional input
		}
		tp := &pb.TensorProto{}
		if proto.Unmarshal(b, tp) != nil {
			return seed{}, "", false
		}
		t, err := protoconv.Tensor(tp, robustMaxBytes)
		if err != nil {
			return seed{}, "", false
		}
		feeds[in.GetName()] = t
	}
	c := config{nOut: len(n.GetOutput()), attrs: n.GetAttribute()}
	for _, name := range n.GetInput() {
		t := feeds[name]
		if name != "" && t == nil {
			return seed{}, "", false // fed by something other than a graph input
		}
		c.inputs = append(c.inputs, t)
	}
	opset := -1
	for _, o := range m.GetOpsetImport() {
		if canonical(o.GetDomain()) == canonical(n.GetDomain()) {
			opset = int(o.GetVersion())
		}
	}
	if opset < 0 {
		return seed{}, "", false
	}
	return seed{name: filepath.Base(dir), opset: opset, c: c}, canonical(n.GetDomain()) + "/" + n.GetOpType(), true
}

func canonical(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// mutate returns a variant of c: fresh values in one input, another shape,
// an omitted input, or one attribute at a hostile value.
func mutate(rng *rand.Rand, g *gen, c config) config {
	m := config{nOut: c.nOut, attrs: c.attrs, inputs: append([]*tensor.Tensor(nil), c.inputs...)}
	present := []int{}
	for i, in := range m.inputs {
		if in != nil {
			present = append(present, i)
		}
	}
	kind := rng.IntN(4)
	if len(present) == 0 || (kind == 3 && len(c.attrs) == 0) {
		kind = 3
		if len(c.attrs) == 0 {
			m.nOut = 1 + rng.IntN(3)
			return m
		}
	}
	switch kind {
	case 0: // same dtype and shape, fresh values
		i := present[rng.IntN(len(present))]
		m.inputs[i] = g.tensor(m.inputs[i].DType(), m.inputs[i].Shape())
	case 1: // same dtype, a perturbed or random shape
		i := present[rng.IntN(len(present))]
		sh := append([]int(nil), m.inputs[i].Shape()...)
		switch {
		case len(sh) > 0 && rng.IntN(2) == 0:
			d := rng.IntN(len(sh))
			sh[d] = max(0, sh[d]+[]int{-1, 1, -sh[d]}[rng.IntN(3)])
		case len(sh) > 0 && rng.IntN(2) == 0:
			sh = sh[1:]
		default:
			sh = g.shape()
		}
		m.inputs[i] = g.tensor(m.inputs[i].DType(), sh)
	case 2: // an input omitted, or the last one dropped
		i := present[rng.IntN(len(present))]
		if i == len(m.inputs)-1 && rng.IntN(2) == 0 {
			m.inputs = m.inputs[:i]
		} else {
			m.inputs[i] = nil
		}
	case 3: // one attribute at a test value of its type
		j := rng.IntN(len(c.attrs))
		vals := attrValues(relevantAttr{c.attrs[j].GetName(), c.attrs[j].GetType()})
		m.attrs = append([]*pb.AttributeProto(nil), c.attrs...)
		m.attrs[j] = vals[rng.IntN(len(vals))]
	}
	return m
}

// handSeeds are valid configurations for ops the node suite has no
// one-node tensor case of.
func handSeeds() map[string][]seed {
	ints := func(name string, v ...int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
	}
	x := tensor.New(tensor.Float, 2, 3, 4, 5)
	for i, d := 0, x.F32(); i < len(d); i++ {
		d[i] = float32(i%7) - 3
	}
	rois := tensor.Of([]int{2, 5}, []float32{0, 0, 0, 3, 2, 1, 1, 1, 4, 3})
	// The contrib ops whose inputs must agree in shape (ops/contrib).
	bsh := tensor.New(tensor.Float, 2, 3, 4)
	for i, d := 0, bsh.F32(); i < len(d); i++ {
		d[i] = float32(i%5) - 2
	}
	vec := tensor.Of([]int{4}, []float32{1, -0.5, 2, 0.25})
	contrib := func(in ...*tensor.Tensor) []seed {
		return []seed{{name: "hand-written", opset: 1, c: config{nOut: 1, inputs: in}}}
	}
	one := func(name string, v int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
	}
	withAttrs := func(in []*tensor.Tensor, nOut int, attrs ...*pb.AttributeProto) []seed {
		return []seed{{name: "hand-written", opset: 1, c: config{nOut: nOut, inputs: in, attrs: attrs}}}
	}
	// Attention (B 2, S 3, hidden 4, 2 heads): weights project to q, k, v.
	weights := tensor.New(tensor.Float, 4, 12)
	for i, d := 0, weights.F32(); i < len(d); i++ {
		d[i] = float32(i%9)/8 - 0.5
	}
	bias12 := tensor.New(tensor.Float, 12)
	// GroupQueryAttention (B 1, S 3, 2 query heads and 1 kv head of size 2).
	q1 := tensor.New(tensor.Float, 1, 3, 4)
	kv1 := tensor.New(tensor.Float, 1, 3, 2)
	for i := range q1.F32() {
		q1.F32()[i] = float32(i%3) - 1
	}
	// GatherBlockQuantized: 3 rows of 32 4-bit codes, one block per row.
	codes := tensor.New(tensor.Uint8, 3, 16)
	for i := range codes.Data().([]uint8) {
		codes.Data().([]uint8)[i] = uint8(i * 37)
	}
	// MatMulNBits: A (2, 32) times 3 columns of one 32-code 4-bit block.
	a32 := tensor.New(tensor.Float, 2, 32)
	packed := tensor.New(tensor.Uint8, 3, 1, 16)
	for i := range packed.Data().([]uint8) {
		packed.Data().([]uint8)[i] = uint8(i * 29)
	}
	ids23 := tensor.Of([]int{2, 3}, []int32{0, 4, 2, 1, 3, 0})
	segs23 := tensor.Of([]int{2, 3}, []int32{0, 0, 1, 1, 1, 0})
	emb := func(rows int) *tensor.Tensor {
		t := tensor.New(tensor.Float, rows, 4)
		for i, d := 0, t.F32(); i < len(d); i++ {
			d[i] = float32(i%7)/3 - 1
		}
		return t
	}
	// RotaryEmbedding: (B 1, S 3, hidden 4), one head, caches of 4 positions.
	cache := tensor.Of([]int{4, 2}, []float32{1, 1, 0.5, 0.8, 0, 0.6, -0.5, 0.3})
	return map[string][]seed{
		"com.microsoft/MatMulNBits": withAttrs([]*tensor.Tensor{a32, packed, tensor.Of([]int{3}, []float32{0.5, 1, 2})}, 1,
			one("K", 32), one("N", 3), one("bits", 4), one("block_size", 32)),
		"com.microsoft/RotaryEmbedding": withAttrs([]*tensor.Tensor{q1, tensor.Of([]int{1, 3}, []int64{0, 1, 2}), cache, cache}, 1,
			one("num_heads", 1)),
		"com.microsoft/Attention":          withAttrs([]*tensor.Tensor{bsh, weights, bias12}, 1, one("num_heads", 2)),
		"com.microsoft/MultiHeadAttention": withAttrs([]*tensor.Tensor{bsh, bsh, bsh}, 1, one("num_heads", 2)),
		"com.microsoft/GroupQueryAttention": withAttrs([]*tensor.Tensor{q1, kv1, kv1, nil, nil,
			tensor.Of([]int{1}, []int32{2}), tensor.Scalar(int32(3))}, 3, one("num_heads", 2), one("kv_num_heads", 1)),
		"com.microsoft/GatherBlockQuantized": withAttrs([]*tensor.Tensor{codes, tensor.Of([]int{2}, []int64{0, 2}),
			tensor.Of([]int{3, 1}, []float32{0.5, 0.25, 2})}, 1),
		// EmbedLayerNormalization: B 2, S 3, H 4; vocabulary 5, 3 positions, 2 segments.
		"com.microsoft/EmbedLayerNormalization": withAttrs([]*tensor.Tensor{ids23, segs23, emb(5), emb(3), emb(2), vec, vec,
			tensor.Of([]int{2, 3}, []int32{1, 1, 0, 1, 0, 0})}, 3),
		"com.microsoft/BiasAdd":                          contrib(bsh, vec, bsh),
		"com.microsoft/SkipSimplifiedLayerNormalization": contrib(bsh, bsh, vec),
		"/MaxRoiPool": {{name: "hand-written", opset: 22, c: config{nOut: 1, inputs: []*tensor.Tensor{x, rois},
			attrs: []*pb.AttributeProto{ints("pooled_shape", 2, 2)}}}},
	}
}
