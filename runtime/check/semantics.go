package check

import (
	"strings"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/schema"
)

// semantics checks what the schemas cannot say: that control-flow bodies
// take and return as many values as their node passes and expects, and that
// an Einsum equation names one term per input.
func (g *graphCtx) semantics(n *pb.NodeProto, s *schema.Schema, add func(Severity, string, string, string, ...any)) {
	body := func(name string) *pb.GraphProto {
		for _, a := range n.GetAttribute() {
			if a.GetName() == name {
				return a.GetG()
			}
		}
		return nil
	}
	nin, nout := len(n.GetInput()), len(n.GetOutput())
	switch s.OpType {
	case "If":
		for _, br := range []string{"then_branch", "else_branch"} {
			if b := body(br); b != nil && len(b.GetOutput()) != nout {
				add(Error, "BODY_ARITY", "", "%s returns %d values; the node has %d outputs", br, len(b.GetOutput()), nout)
			}
		}
	case "Loop":
		b := body("body")
		if b == nil {
			return
		}
		carried := nin - 2
		if len(b.GetInput()) != carried+2 {
			add(Error, "BODY_ARITY", "", "the body takes %d inputs; Loop passes the iteration number, the condition and %d carried values", len(b.GetInput()), max(carried, 0))
		}
		if len(b.GetOutput()) < carried+1 || nout != len(b.GetOutput())-1 {
			add(Error, "BODY_ARITY", "", "the body returns %d values; Loop with %d carried values and %d outputs needs the condition, the carried values and one per scan output (%d)", len(b.GetOutput()), max(carried, 0), nout, nout+1)
		}
	case "Scan":
		b := body("body")
		if b == nil {
			return
		}
		passed := nin
		if s.Version < 9 {
			passed-- // Scan-8's first input is sequence_lens
		}
		if len(b.GetInput()) != passed {
			add(Error, "BODY_ARITY", "", "the body takes %d inputs; Scan passes %d (states and scan slices)", len(b.GetInput()), passed)
		}
		if len(b.GetOutput()) != nout {
			add(Error, "BODY_ARITY", "", "the body returns %d values; Scan has %d outputs", len(b.GetOutput()), nout)
		}
	case "SequenceMap":
		if b := body("body"); b != nil {
			if len(b.GetInput()) != nin {
				add(Error, "BODY_ARITY", "", "the body takes %d inputs; SequenceMap passes %d", len(b.GetInput()), nin)
			}
			if len(b.GetOutput()) != nout {
				add(Error, "BODY_ARITY", "", "the body returns %d values; SequenceMap has %d outputs", len(b.GetOutput()), nout)
			}
		}
	case "Einsum":
		for _, a := range n.GetAttribute() {
			if a.GetName() != "equation" {
				continue
			}
			lhs, _, _ := strings.Cut(string(a.GetS()), "->")
			if terms := len(strings.Split(lhs, ",")); terms != nin {
				add(Error, "EINSUM_TERMS", "", "equation %q has %d terms for %d inputs", string(a.GetS()), terms, nin)
			}
		}
	}
}
