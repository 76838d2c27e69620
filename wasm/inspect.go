//go:build js && wasm

package main

import (
	"bytes"
	"syscall/js"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/check"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/printer"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/wasm/jsval"
)

// inspect(kind, model: Uint8Array, options) → Promise<object>: the model
// checks of the JS API, as objects shaped like the CLI's JSON (jsval reads
// the json tags; encoding/json itself would add 460 KB gzip to gort.wasm):
//   - "check": runtime/check.Report
//   - "print": runtime/printer.Model (options.json false: the text form)
//   - "capabilities": unsupported nodes (check.Capabilities) and what the
//     plan stage did with the session options given (folded, fused,
//     placements).
//
// options: {externalData?: [{path, data}]} and, for capabilities, the
// session options of load.
func inspect(args []js.Value) (func() (any, error), error) {
	if len(args) < 2 || args[0].Type() != js.TypeString {
		return nil, argErr("inspect needs a kind and the model bytes")
	}
	kind := args[0].String()
	model, err := copyBytes(args[1], "model")
	if err != nil {
		return nil, err
	}
	var o js.Value
	if len(args) > 2 {
		o = args[2]
	}
	opts, err := sessionOptions(o)
	if err != nil {
		return nil, err
	}
	asJSON := true
	if v := jsval.Get(o, "json"); v.Type() == js.TypeBoolean {
		asJSON = v.Bool()
	}
	switch kind {
	case "check":
		return func() (any, error) {
			return check.Bytes(model, &check.Options{ExternalData: opts.ExternalData}), nil
		}, nil
	case "print":
		return func() (any, error) {
			mp, err := decodeModel(model)
			if err != nil {
				return nil, err
			}
			pm := printer.Build(mp, shapes.Model(mp, nil))
			if !asJSON {
				var b bytes.Buffer
				if err := printer.Text(&b, pm); err != nil {
					return nil, err
				}
				return b.String(), nil
			}
			return pm, nil
		}, nil
	case "capabilities":
		return func() (any, error) { return capabilities(model, opts) }, nil
	}
	return nil, argErr("inspect: unknown kind %q", kind)
}

func decodeModel(model []byte) (*pb.ModelProto, error) {
	mp := &pb.ModelProto{}
	if err := protoconv.Unmarshal(model, mp, "ONNX model", graph.MinStructureBytes); err != nil {
		return nil, err
	}
	return mp, nil
}

// placement is where one step of the plan runs.
type placement struct {
	Node   string `json:"node"`
	Op     string `json:"op"`
	Device string `json:"device"`
	Reason string `json:"reason,omitempty"`
}

type capabilityReport struct {
	*check.Capabilities
	Folded     []string    `json:"folded"`
	Removed    []string    `json:"removed"`
	Fused      []string    `json:"fused"`
	Placements []placement `json:"placements"`
	LoadError  string      `json:"loadError,omitempty"`
}

func capabilities(model []byte, opts runtime.Options) (any, error) {
	mp, err := decodeModel(model)
	if err != nil {
		return nil, err
	}
	rep := capabilityReport{Capabilities: check.CapabilitiesOf(mp, nil)}
	s, err := runtime.Load(model, &opts)
	if err != nil {
		rep.LoadError = err.Error()
		return rep, nil
	}
	r := s.Plan().Report
	rep.Folded, rep.Removed, rep.Fused = r.Folded, r.Removed, r.Fused
	rep.Placements = placements(s)
	return rep, nil
}

func placements(s *runtime.Session) []placement {
	var out []placement
	for _, st := range s.Plan().Steps {
		out = append(out, placement{Node: st.Node.Name, Op: st.Node.OpType, Device: string(st.Device), Reason: st.Reason})
	}
	return out
}
