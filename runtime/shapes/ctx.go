package shapes

import (
	"fmt"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/schema"
	"github.com/gort-dev/gort/runtime/tensor"
)

// A Rule infers the output shapes of one node: it sets them with Ctx.Set
// (element types already come from the op's schema) and reports the
// contradictions it sees with Ctx.Problem. A rule that panics leaves the
// node's outputs unknown, with the panic as the reason.
type Rule func(c *Ctx)

// A BodyRule gives the inputs of a node's subgraph attr (Loop's and Scan's
// body) the types the node implies, before the subgraph is inferred: one
// type per body input, in order; a zero Type leaves that input as declared.
type BodyRule func(c *Ctx, attr string, inputs int) []graph.Type

type opKey struct{ domain, op string }

var (
	rules  = map[opKey]Rule{}
	bodies = map[opKey]BodyRule{}
	noFold = map[opKey]func(*Ctx) bool{}
)

func key(domain, opType string) opKey { return opKey{op.CanonicalDomain(domain), opType} }

// Register binds an op to its shape rule. Each op registers its rule beside
// its kernels (in the init function that calls op.Register), so that one
// file says what the op does; registering an op twice panics.
func Register(domain, opType string, rule Rule) {
	k := key(domain, opType)
	if _, dup := rules[k]; dup {
		panic(fmt.Sprintf("shapes: a second rule for %s", qualified(k.domain, opType)))
	}
	rules[k] = rule
}

// Lookup returns an op's shape rule, nil when it has none.
func Lookup(domain, opType string) Rule { return rules[key(domain, opType)] }

// RegisterBody binds an op with a subgraph to the rule typing the
// subgraph's inputs.
func RegisterBody(domain, opType string, rule BodyRule) { bodies[key(domain, opType)] = rule }

// NoFold keeps inference from computing an op ahead on constant inputs (a
// random draw): always when when is nil, else for the nodes it accepts.
func NoFold(domain, opType string, when func(c *Ctx) bool) {
	if when == nil {
		when = func(*Ctx) bool { return true }
	}
	noFold[key(domain, opType)] = when
}

// Ctx is one node being inferred, as its rule sees it.
type Ctx struct {
	in      *inferrer
	p       *pb.NodeProto
	name    string
	index   int
	version int // since_version of the schema the opset selects (0: unknown)
	sch     *schema.Schema
	ins     []*Info // nil for an omitted or unknown input
	outs    []*Info
	attrs   map[string]*pb.AttributeProto
}

// Version is the since_version of the op's schema that the model's opset selects.
func (c *Ctx) Version() int { return c.version }

// NumIn is the number of inputs the node lists (omitted ones included).
func (c *Ctx) NumIn() int { return len(c.ins) }

// NumOut is the number of outputs the node lists (omitted ones included).
func (c *Ctx) NumOut() int { return len(c.outs) }

// Input returns what is known of input i (nil when omitted or unknown).
func (c *Ctx) Input(i int) *Info {
	if i < len(c.ins) {
		return c.ins[i]
	}
	return nil
}

// InputName is the name of the value input i reads.
func (c *Ctx) InputName(i int) string { return c.p.GetInput()[i] }

// Has reports whether input i is given (not omitted).
func (c *Ctx) Has(i int) bool { return i < len(c.p.GetInput()) && c.p.GetInput()[i] != "" }

// Shape returns input i's shape, or nil when its rank is unknown.
func (c *Ctx) Shape(i int) []graph.Dim {
	if x := c.Input(i); x.ShapeKnown() {
		return x.Type.Shape
	}
	return nil
}

// Out returns output i's Info (nil when the output is omitted), for rules
// that set more than a shape.
func (c *Ctx) Out(i int) *Info {
	if i < len(c.outs) {
		return c.outs[i]
	}
	return nil
}

// Problem reports a contradiction (code: BROADCAST, RANK, AXIS, …).
func (c *Ctx) Problem(code, format string, args ...any) {
	c.in.problem(c, code, "", format, args...)
}

// Set gives output i a shape (nil: unknown rank, with why).
func (c *Ctx) Set(i int, shape []graph.Dim, why string) {
	if i >= len(c.outs) || c.outs[i] == nil {
		return
	}
	o := c.outs[i]
	if o.Type.Kind == graph.KindUnknown {
		o.Type.Kind = graph.KindTensor
	}
	o.Type.Shape = shape
	if shape == nil && why != "" {
		o.Why = why
	}
}

// SetElem gives output i an element type.
func (c *Ctx) SetElem(i int, dt tensor.DType) {
	if i < len(c.outs) && c.outs[i] != nil {
		c.outs[i].Type.Kind = graph.KindTensor
		c.outs[i].Type.Elem = dt
	}
}

// SetSym records the symbolic elements of an integer output (a shape
// computation: Shape, Gather, Concat of dims).
func (c *Ctx) SetSym(i int, s []graph.Dim) {
	if i < len(c.outs) && c.outs[i] != nil {
		c.outs[i].Sym = s
	}
}

// Attr returns attribute name, nil when absent.
func (c *Ctx) Attr(name string) *pb.AttributeProto { return c.attrs[name] }

// AttrInt returns an integer attribute, def when absent.
func (c *Ctx) AttrInt(name string, def int64) int64 {
	if a := c.attrs[name]; a != nil {
		return a.GetI()
	}
	return def
}

// AttrFloat returns a float attribute, def when absent.
func (c *Ctx) AttrFloat(name string, def float32) float32 {
	if a := c.attrs[name]; a != nil {
		return a.GetF()
	}
	return def
}

// AttrInts returns an integer-list attribute; false when absent.
func (c *Ctx) AttrInts(name string) ([]int64, bool) {
	a := c.attrs[name]
	if a == nil {
		return nil, false
	}
	return a.GetInts(), true
}

// AttrIntsOr returns an integer-list attribute when it has n entries, else
// n copies of def.
func (c *Ctx) AttrIntsOr(name string, n int, def int64) []int64 {
	v, _ := c.AttrInts(name)
	if len(v) == n {
		return v
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = def
	}
	return out
}

// AttrString returns a string attribute, def when absent.
func (c *Ctx) AttrString(name, def string) string {
	if a := c.attrs[name]; a != nil {
		return string(a.GetS())
	}
	return def
}

// Ints returns the value of a constant integer input.
func (c *Ctx) Ints(i int) ([]int64, bool) {
	x := c.Input(i)
	if x == nil {
		return nil, false
	}
	if x.Const != nil {
		v, err := x.Const.Int64s()
		return v, err == nil
	}
	if x.Sym != nil {
		out := make([]int64, len(x.Sym))
		for j, d := range x.Sym {
			if !IsKnown(d) {
				return nil, false
			}
			out[j] = d.Value
		}
		return out, true
	}
	return nil, false
}

// Floats returns the value of a constant non-empty numeric input as
// float64s, nil when it is not one.
func (c *Ctx) Floats(i int) []float64 {
	x := c.Input(i)
	if x == nil || x.Const == nil || x.Const.Len() == 0 {
		return nil
	}
	v, err := x.Const.Float64s()
	if err != nil {
		return nil
	}
	return v
}

// Sym returns the symbolic elements of an integer input (constant or Shape-derived).
func (c *Ctx) Sym(i int) ([]graph.Dim, bool) {
	x := c.Input(i)
	if x == nil {
		return nil, false
	}
	return symOf(x)
}

func symOf(x *Info) ([]graph.Dim, bool) {
	if x.Sym != nil {
		return x.Sym, true
	}
	if x.Const != nil && x.Const.Len() <= 64 {
		if v, err := x.Const.Int64s(); err == nil {
			out := make([]graph.Dim, len(v))
			for j, n := range v {
				out[j] = Known(n)
				if n < 0 {
					out[j] = graph.Dim{Value: n} // kept: -1 and 0 mean something to Reshape
				}
			}
			return out, true
		}
	}
	return nil, false
}

// Body returns the inferred type of the i-th output of subgraph attr.
func (c *Ctx) Body(attr string, i int) *Info {
	a := c.attrs[attr]
	if a == nil || a.GetG() == nil || i >= len(a.GetG().GetOutput()) {
		return nil
	}
	return c.in.res.Values[a.GetG().GetOutput()[i].GetName()]
}

// FoldLimit is the most elements inference computes ahead (Options.MaxFoldElements).
func (c *Ctx) FoldLimit() int { return c.in.opts.MaxFoldElements }

// Axis normalizes axis a of a rank-r shape, reporting an AXIS problem when
// it is out of range.
func (c *Ctx) Axis(a int64, r int) (int, bool) {
	if a < -int64(r) || a >= int64(r) {
		c.Problem("AXIS", "axis %d is out of range for rank %d", a, r)
		return 0, false
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), true
}

// Broadcast merges shapes by NumPy's rule, reporting a BROADCAST problem
// when two dims conflict; false then, or when a shape is unknown.
func (c *Ctx) Broadcast(shapes ...[]graph.Dim) ([]graph.Dim, bool) {
	rank := 0
	for _, s := range shapes {
		if s == nil {
			return nil, false
		}
		rank = max(rank, len(s))
	}
	out := make([]graph.Dim, rank)
	for i := range out {
		out[i] = Known(1)
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			m, conflict := broadcastDims(out[off+i], d)
			if conflict {
				var txt []string
				for _, s := range shapes {
					txt = append(txt, ShapeString(s))
				}
				c.Problem("BROADCAST", "shapes %v cannot be broadcast (axis %d: %s against %s)", txt, off+i, out[off+i], d)
				return nil, false
			}
			out[off+i] = m
		}
	}
	return out, true
}
