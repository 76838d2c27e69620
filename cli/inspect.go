package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/check"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/printer"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/shapes"
)

// readModel reads and decodes a model; a failure is exit code 2.
func (e *env) readModel(path string) (*pb.ModelProto, []byte, bool) {
	data, err := readFile(path)
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return nil, nil, false
	}
	mp := &pb.ModelProto{}
	if err := protoconv.Unmarshal(data, mp, "ONNX model", graph.DefaultMaxTensorBytes); err != nil {
		fmt.Fprintf(e.err, "gort: %s: %v\n", path, err)
		return nil, nil, false
	}
	return mp, data, true
}

func (e *env) writeJSON(v any) {
	enc := json.NewEncoder(e.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
	}
}

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	green  = "\x1b[32m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

func (e *env) paint(color, s string) string {
	if !e.color {
		return s
	}
	return color + s + reset
}

func cmdCheck(e *env, args []string) int {
	f := newFlags(e, "check", "model.onnx", "Checks the model as onnx.checker.check_model(full_check=True) would, but lists every\nfinding at once: severity, stable code, node (name and index), op and message.\nExit code 1 when there is an error finding.")
	extDir := f.String("external-dir", "", "directory holding the model's external data files (default: the model's directory)")
	noExt := f.Bool("no-external", false, "do not read external data files")
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	data, err := readFile(pos[0])
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return exitUsage
	}
	mp := &pb.ModelProto{}
	if err := protoconv.Unmarshal(data, mp, "ONNX model", graph.DefaultMaxTensorBytes); err != nil {
		// An unreadable model is still a report (one MODEL_DECODE finding), with exit code 2.
		rep := check.Bytes(data, nil)
		if *f.json {
			e.writeJSON(map[string]any{"model": pos[0], "ok": false, "errors": rep.Errors, "warnings": rep.Warnings, "findings": nonNil(rep.Findings)})
		} else {
			e.printFindings(rep.Findings)
		}
		return exitUsage
	}
	if len(data) == 0 {
		// Unreadable input, as check.Bytes (and so gort.check in JS) reports it.
		fmt.Fprintf(e.err, "gort: %s: the model is empty (0 bytes)\n", pos[0])
		return exitUsage
	}
	opts := &check.Options{}
	if !*noExt {
		opts.ExternalData = externalFiles(mp, pos[0], *extDir)
	}
	rep := check.Model(mp, opts)
	if *f.json {
		e.writeJSON(map[string]any{"model": pos[0], "ok": rep.OK(), "errors": rep.Errors, "warnings": rep.Warnings, "findings": nonNil(rep.Findings)})
	} else {
		e.printFindings(rep.Findings)
		summary := fmt.Sprintf("%s: %d error(s), %d warning(s)", pos[0], rep.Errors, rep.Warnings)
		if rep.OK() {
			summary = e.paint(green, summary)
		} else {
			summary = e.paint(red, summary)
		}
		fmt.Fprintln(e.out, summary)
	}
	if !rep.OK() {
		return exitFailed
	}
	return exitOK
}

func nonNil(f []check.Finding) []check.Finding {
	if f == nil {
		return []check.Finding{}
	}
	return f
}

func (e *env) printFindings(fs []check.Finding) {
	if len(fs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tCODE\tNODE\tOP\tMESSAGE")
	for _, f := range fs {
		sev := string(f.Severity)
		// Pad before colouring, so the escape codes do not disturb the columns.
		sev = fmt.Sprintf("%-8s", sev)
		if f.Severity == check.Error {
			sev = e.paint(red, sev)
		} else {
			sev = e.paint(yellow, sev)
		}
		node := f.Node
		if node != "" {
			node = fmt.Sprintf("%s (#%d)", node, f.NodeIndex)
		}
		if f.Graph != "" && f.Graph != "main" {
			node = f.Graph + ": " + node
		}
		msg := f.Message
		if f.Tensor != "" {
			msg = fmt.Sprintf("%q: %s", f.Tensor, msg)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sev, f.Code, dash(node), dash(f.Op), msg)
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// externalFiles reads the files external tensors name, from dir (default:
// the model's directory); missing files are left out (the checker reports them).
func externalFiles(mp *pb.ModelProto, modelPath, dir string) map[string][]byte {
	if dir == "" {
		dir = dirOf(modelPath)
	}
	files := map[string][]byte{}
	var visit func(g *pb.GraphProto)
	want := func(t *pb.TensorProto) {
		if t.GetDataLocation() != pb.TensorProto_EXTERNAL {
			return
		}
		for _, kv := range t.GetExternalData() {
			if kv.GetKey() == "location" && !strings.Contains(kv.GetValue(), "..") {
				if _, done := files[kv.GetValue()]; !done {
					if b, err := readFile(dir + string(os.PathSeparator) + kv.GetValue()); err == nil {
						files[kv.GetValue()] = b
					}
				}
			}
		}
	}
	visit = func(g *pb.GraphProto) {
		for _, t := range g.GetInitializer() {
			want(t)
		}
		for _, n := range g.GetNode() {
			for _, a := range n.GetAttribute() {
				if a.GetT() != nil {
					want(a.GetT())
				}
				if a.GetG() != nil {
					visit(a.GetG())
				}
				for _, sg := range a.GetGraphs() {
					visit(sg)
				}
			}
		}
	}
	visit(mp.GetGraph())
	return files
}

func dirOf(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[:i]
	}
	return "."
}

// inspection is inspect's JSON form.
type inspection struct {
	Model        string              `json:"model"`
	IRVersion    int64               `json:"irVersion"`
	Opsets       map[string]int64    `json:"opsets"`
	Producer     string              `json:"producer,omitempty"`
	Inputs       []*printer.Value    `json:"inputs"`
	Outputs      []*printer.Value    `json:"outputs"`
	Initializers int                 `json:"initializers"`
	Nodes        int                 `json:"nodes"`
	Ops          map[string]int      `json:"ops"`
	Shapes       shapeCoverage       `json:"shapes"`
	Capabilities *check.Capabilities `json:"capabilities"`
}

type shapeCoverage struct {
	Values   int `json:"values"`   // node outputs
	Ranked   int `json:"ranked"`   // with a known rank
	Complete int `json:"complete"` // with every dim known or symbolic
}

func cmdInspect(e *env, args []string) int {
	f := newFlags(e, "inspect", "model.onnx", "Summarizes the model: inputs and outputs with their types, opsets, op counts, how many\nvalue shapes inference determines, and every node gort cannot run (with the reason).")
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	mp, _, ok := e.readModel(pos[0])
	if !ok {
		return exitUsage
	}
	res := shapes.Model(mp, nil)
	pm := printer.Build(mp, res)
	in := inspection{Model: pos[0], IRVersion: pm.IRVersion, Opsets: pm.Opsets, Producer: pm.Producer, Ops: map[string]int{},
		Capabilities: check.CapabilitiesOf(mp, nil)}
	if pm.Graph != nil {
		in.Inputs, in.Outputs, in.Initializers, in.Nodes = pm.Graph.Inputs, pm.Graph.Outputs, len(pm.Graph.Initializers), len(pm.Graph.Nodes)
		for _, n := range pm.Graph.Nodes {
			in.Ops[n.Op]++
			for _, o := range n.Outputs {
				in.Shapes.Values++
				if o.Shape != nil {
					in.Shapes.Ranked++
					complete := true
					for _, d := range o.Shape {
						complete = complete && d != nil
					}
					if complete {
						in.Shapes.Complete++
					}
				}
			}
		}
	}
	if *f.json {
		e.writeJSON(in)
		return exitOK
	}
	w := e.out
	fmt.Fprintf(w, "%s: IR %d, opsets %s", pos[0], in.IRVersion, printer.OpsetList(in.Opsets))
	if in.Producer != "" {
		fmt.Fprintf(w, ", producer %s", in.Producer)
	}
	fmt.Fprintf(w, "\n%d nodes, %d initializers\n", in.Nodes, in.Initializers)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, v := range in.Inputs {
		fmt.Fprintf(tw, "  input\t%s\t%s\n", v.Name, dash(v.Type))
	}
	for _, v := range in.Outputs {
		fmt.Fprintf(tw, "  output\t%s\t%s\n", v.Name, dash(v.Type))
	}
	tw.Flush()
	ops := make([]string, 0, len(in.Ops))
	for o := range in.Ops {
		ops = append(ops, o)
	}
	sort.Slice(ops, func(i, j int) bool {
		if in.Ops[ops[i]] != in.Ops[ops[j]] {
			return in.Ops[ops[i]] > in.Ops[ops[j]]
		}
		return ops[i] < ops[j]
	})
	var parts []string
	for _, o := range ops {
		parts = append(parts, fmt.Sprintf("%s %d", o, in.Ops[o]))
	}
	fmt.Fprintf(w, "ops: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "shapes: %d of %d node outputs have a known rank, %d every dim\n", in.Shapes.Ranked, in.Shapes.Values, in.Shapes.Complete)
	c := in.Capabilities
	if len(c.Unsupported) == 0 {
		fmt.Fprintln(w, e.paint(green, fmt.Sprintf("gort can run all %d nodes", c.Nodes)))
		return exitOK
	}
	byOp := make([]string, 0, len(c.ByOp))
	for o := range c.ByOp {
		byOp = append(byOp, o)
	}
	sort.Slice(byOp, func(i, j int) bool {
		if c.ByOp[byOp[i]] != c.ByOp[byOp[j]] {
			return c.ByOp[byOp[i]] > c.ByOp[byOp[j]]
		}
		return byOp[i] < byOp[j]
	})
	for i, o := range byOp {
		byOp[i] = fmt.Sprintf("%s %d", o, c.ByOp[o])
	}
	fmt.Fprintln(w, e.paint(red, fmt.Sprintf("gort cannot run %d of %d nodes (%s):", len(c.Unsupported), c.Nodes, strings.Join(byOp, ", "))))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, u := range c.Unsupported {
		fmt.Fprintf(tw, "  %s (#%d)\t%s\t%s\n", u.Node, u.NodeIndex, u.Op, u.Reason)
	}
	tw.Flush()
	return exitOK
}

func cmdPrint(e *env, args []string) int {
	f := newFlags(e, "print", "model.onnx", "Prints the graph in the spirit of onnx.helper.printable_graph, with the inferred type and\nshape of every value and subgraphs indented; --json gives the same as a JSON document.")
	gpu := f.Bool("webgpu", false, "also show where a WebGPU session would run each node, and why a node stays on the CPU\n(WebGPU's placement rules and default cost threshold, decided without a device)")
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	mp, b, ok := e.readModel(pos[0])
	if !ok {
		return exitUsage
	}
	pm := printer.Build(mp, nil)
	if *gpu {
		s, err := runtime.Load(b, &runtime.Options{Accelerator: webgpu.Dry{Options: webgpu.Options{MinElements: webgpu.DefaultMinElements}}})
		if err != nil {
			fmt.Fprintf(e.err, "gort: %v\n", err)
			return exitFailed
		}
		pm.Place(s.Plan(), "cpu")
	}
	if *f.json {
		e.writeJSON(pm)
		return exitOK
	}
	if err := printer.Text(e.out, pm); err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return exitFailed
	}
	return exitOK
}
