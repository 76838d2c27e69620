package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// opset is the one ai.onnx version every generated model imports: 17 is the
// first with LayerNormalization, and onnxruntime-web 1.30 and -node 1.23 both
// run it.
const opset = 17

// graph builds one ONNX graph (a model's main graph or an If branch). Node and
// value names come from one counter shared by a model's graphs, so a branch
// never shadows an outer name; weights come from one seeded generator, so a
// model's bytes depend only on its seed.
type graph struct {
	g    *pb.GraphProto
	rng  *rand.Rand
	next *int
	// q8 writes linear layers as onnxruntime's dynamic int8 quantization does
	// (DynamicQuantizeLinear, MatMulInteger; see quantLinear).
	q8 bool
}

func newGraph(name string, seed uint64) *graph {
	n := 0
	return &graph{g: &pb.GraphProto{Name: name}, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), next: &n}
}

// sub starts a subgraph (an If branch) that shares the counter and the
// generator.
func (b *graph) sub(name string) *graph {
	return &graph{g: &pb.GraphProto{Name: name}, rng: b.rng, next: b.next}
}

func (b *graph) name(prefix string) string {
	*b.next++
	return fmt.Sprintf("%s_%d", prefix, *b.next)
}

func tensorType(dt tensor.DType, dims []int) *pb.TypeProto {
	tt := &pb.TypeProto_Tensor{ElemType: int32(dt)}
	if dims != nil {
		tt.Shape = &pb.TensorShapeProto{}
		for _, d := range dims {
			tt.Shape.Dim = append(tt.Shape.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
		}
	}
	return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: tt}}
}

func (b *graph) input(name string, dt tensor.DType, dims ...int) string {
	b.g.Input = append(b.g.Input, &pb.ValueInfoProto{Name: name, Type: tensorType(dt, dims)})
	return name
}

// output declares a graph output; dims nil leaves the shape to inference.
func (b *graph) output(name string, dt tensor.DType, dims []int) {
	b.g.Output = append(b.g.Output, &pb.ValueInfoProto{Name: name, Type: tensorType(dt, dims)})
}

// init adds an initializer and returns its name.
func (b *graph) init(prefix string, t *tensor.Tensor) string {
	name := b.name(prefix)
	b.g.Initializer = append(b.g.Initializer, protoconv.Proto(name, t))
	return name
}

// ints adds an int64 constant initializer.
func (b *graph) ints(prefix string, v ...int64) string {
	return b.init(prefix, tensor.Of([]int{len(v)}, v))
}

// weight adds a float initializer of the given dtype (Float or Float16) drawn
// uniformly from ±scale.
func (b *graph) weight(prefix string, dt tensor.DType, scale float64, shape ...int) string {
	v := b.draw(scale, shape...)
	t := tensor.Of(shape, v)
	if dt != tensor.Float {
		t = tensor.New(dt, shape...)
		copy(t.F32(), v)
	}
	return b.init(prefix, t)
}

// draw returns values drawn uniformly from ±scale, as many as shape holds.
func (b *graph) draw(scale float64, shape ...int) []float32 {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((2*b.rng.Float64() - 1) * scale)
	}
	return v
}

// heScale is the bound of a uniform draw whose variance is 2/fanIn, which
// keeps activations of a deep ReLU network near unit scale.
func heScale(fanIn int) float64 { return math.Sqrt(6 / float64(fanIn)) }

type attr = *pb.AttributeProto

func aInt(name string, v int64) attr {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

func aInts(name string, v ...int64) attr {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}

func aFloat(name string, v float32) attr {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v}
}

func aString(name, v string) attr {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}

func aGraph(name string, g *graph) attr {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_GRAPH, G: g.g}
}

// nodeN adds a node with nOut fresh outputs and returns their names.
func (b *graph) nodeN(op string, nOut int, inputs []string, attrs ...attr) []string {
	n := &pb.NodeProto{OpType: op, Name: b.name(op), Input: inputs, Attribute: attrs}
	for i := 0; i < nOut; i++ {
		n.Output = append(n.Output, b.name("t"))
	}
	b.g.Node = append(b.g.Node, n)
	return n.Output
}

// node adds a one-output node and returns the output's name.
func (b *graph) node(op string, inputs []string, attrs ...attr) string {
	return b.nodeN(op, 1, inputs, attrs...)[0]
}

// rename gives value from the name to (graph outputs get fixed names).
func (b *graph) rename(from, to string) {
	for _, n := range b.g.Node {
		for i, o := range n.Output {
			if o == from {
				n.Output[i] = to
			}
		}
		for i, in := range n.Input {
			if in == from {
				n.Input[i] = to
			}
		}
	}
}

func model(g *graph, doc string) *pb.ModelProto {
	return &pb.ModelProto{
		IrVersion:    8,
		OpsetImport:  []*pb.OperatorSetIdProto{{Version: opset}},
		ProducerName: "gort-genmodels",
		DocString:    doc,
		Graph:        g.g,
	}
}

// randInput draws a float32 input tensor in [lo, hi) from its own seeded
// generator (inputs do not depend on how many weights a model has).
func randInput(seed uint64, lo, hi float32, shape ...int) *tensor.Tensor {
	r := rand.New(rand.NewPCG(seed, 1))
	t := tensor.New(tensor.Float, shape...)
	for i := range t.F32() {
		t.F32()[i] = lo + (hi-lo)*r.Float32()
	}
	return t
}
