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
	return map[string][]seed{
		"com.microsoft/BiasAdd":                          contrib(bsh, vec, bsh),
		"com.microsoft/SkipSimplifiedLayerNormalization": contrib(bsh, bsh, vec),
		"/MaxRoiPool": {{name: "hand-written", opset: 22, c: config{nOut: 1, inputs: []*tensor.Tensor{x, rois},
			attrs: []*pb.AttributeProto{ints("pooled_shape", 2, 2)}}}},
	}
}
