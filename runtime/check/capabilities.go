package check

import (
	"fmt"
	"sort"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
)

// Capabilities says, before running, which nodes gort cannot run and why:
// an op or op version it does not implement, or an attribute value its
// builder refuses. Nodes of subgraphs and model-local function bodies count.
type Capabilities struct {
	Nodes       int               `json:"nodes"`
	Supported   int               `json:"supported"`
	Unsupported []UnsupportedNode `json:"unsupported"`
	// ByOp counts the unsupported nodes per op ("ai.onnx.ml.TreeEnsembleClassifier-3" style keys).
	ByOp map[string]int `json:"byOp"`
}

// UnsupportedNode is one node gort cannot run.
type UnsupportedNode struct {
	Graph     string `json:"graph"`
	Node      string `json:"node"`
	NodeIndex int    `json:"nodeIndex"`
	Op        string `json:"op"`
	Domain    string `json:"domain,omitempty"`
	Opset     int    `json:"opset"`
	Reason    string `json:"reason"`
}

// CapabilitiesOf inspects a decoded model against a registry (nil: op.Default).
func CapabilitiesOf(mp *pb.ModelProto, reg *op.Registry) (c *Capabilities) {
	if reg == nil {
		reg = op.Default
	}
	c = &Capabilities{ByOp: map[string]int{}, Unsupported: []UnsupportedNode{}}
	opsets := map[string]int{}
	for _, imp := range mp.GetOpsetImport() {
		opsets[op.CanonicalDomain(imp.GetDomain())] = int(imp.GetVersion())
	}
	funcs := map[string]bool{}
	for _, f := range mp.GetFunctions() {
		funcs[funcKey(f.GetDomain(), f.GetName(), f.GetOverload())] = true
	}
	var walk func(nodes []*pb.NodeProto, where string, opsets map[string]int, depth int)
	walk = func(nodes []*pb.NodeProto, where string, opsets map[string]int, depth int) {
		if depth > 64 {
			return
		}
		for i, n := range nodes {
			name := nodeName(n, i)
			for _, a := range n.GetAttribute() {
				gs := a.GetGraphs()
				if a.GetG() != nil {
					gs = append([]*pb.GraphProto{a.GetG()}, gs...)
				}
				for _, g := range gs {
					walk(g.GetNode(), fmt.Sprintf("%s/%s.%s", where, name, a.GetName()), opsets, depth+1)
				}
			}
			if funcs[funcKey(n.GetDomain(), n.GetOpType(), n.GetOverload())] {
				continue // inlined at load; its body is counted below
			}
			c.Nodes++
			domain := op.CanonicalDomain(n.GetDomain())
			reason := ""
			opset, ok := opsets[domain]
			if !ok {
				reason = fmt.Sprintf("the model does not import domain %q", n.GetDomain())
			} else if res := reg.Resolve(domain, n.GetOpType(), opset); res.Builder == nil {
				reason = res.Problem
			} else if why := tryBuild(res, n, name, domain, opset); why != "" {
				reason = why
			}
			if reason == "" {
				c.Supported++
				continue
			}
			c.Unsupported = append(c.Unsupported, UnsupportedNode{Graph: where, Node: name, NodeIndex: i, Op: n.GetOpType(), Domain: domain, Opset: opset, Reason: reason})
			key := n.GetOpType()
			if domain != "" {
				key = domain + "." + key
			}
			c.ByOp[key]++
		}
	}
	walk(mp.GetGraph().GetNode(), "main", opsets, 0)
	for _, f := range mp.GetFunctions() {
		fo := opsets
		if len(f.GetOpsetImport()) > 0 {
			fo = map[string]int{}
			for _, imp := range f.GetOpsetImport() {
				fo[op.CanonicalDomain(imp.GetDomain())] = int(imp.GetVersion())
			}
		}
		walk(f.GetNode(), "function "+funcKey(f.GetDomain(), f.GetName(), f.GetOverload()), fo, 0)
	}
	sort.SliceStable(c.Unsupported, func(i, j int) bool { return c.Unsupported[i].Op < c.Unsupported[j].Op })
	return c
}

// tryBuild runs the op's builder on the node's attributes: builders refuse
// attribute values gort does not implement. Nodes with subgraphs or
// attribute references are not built here (the loader builds them in context).
func tryBuild(res op.Resolution, n *pb.NodeProto, name, domain string, opset int) (why string) {
	attrs := map[string]*pb.AttributeProto{}
	for _, a := range n.GetAttribute() {
		if a.GetG() != nil || len(a.GetGraphs()) > 0 || a.GetRefAttrName() != "" {
			return ""
		}
		attrs[a.GetName()] = a
	}
	defer func() {
		if r := recover(); r != nil {
			why = "" // a builder that panics on a malformed node is the checker's business, not a capability
		}
	}()
	_, err := res.Builder(&op.Node{Name: name, OpType: n.GetOpType(), Domain: domain, Inputs: n.GetInput(), Outputs: n.GetOutput(),
		Version: res.Version, Opset: opset, Attrs: attrs, MaxBytes: 1 << 30})
	if err != nil {
		return err.Error()
	}
	return ""
}
