package shapes

import (
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
)

// Control flow: the bodies of Loop and Scan get their input types from the
// node (the op's BodyRule) before they are inferred, and the node's outputs
// come from the bodies' outputs (the op's Rule reads them with Ctx.Body).

func (in *inferrer) presetBody(c *Ctx, attr string, g *pb.GraphProto) {
	rule := bodies[key(c.p.GetDomain(), c.p.GetOpType())]
	if rule == nil {
		return
	}
	vals := in.res.Values
	ins := g.GetInput()
	for i, t := range rule(c, attr, len(ins)) {
		name := ""
		if i < len(ins) {
			name = ins[i].GetName()
		}
		if name == "" || t.Kind == graph.KindUnknown {
			continue
		}
		if _, exists := vals[name]; exists {
			continue
		}
		vals[name] = &Info{Type: t}
	}
}
