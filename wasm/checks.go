//go:build js && wasm

package main

// The model-checking half of the bridge: check, shape inference, the graph
// printer, the capability report, tensor comparison, diverge and .npy/.npz.
// Results are the same documents the native CLI prints with --json (the Go
// structs carry identical json and js tags), converted by jsval.ToJS, so the
// three ways in — Go, JS and the CLIs — give the same shapes. (Not through
// encoding/json: its use of reflection's method lookup keeps every exported
// method of every type alive and costs 2 MB of gort.wasm.) One difference:
// NaN and infinities arrive as JS numbers, where JSON writes them as strings.

import (
	"context"
	"syscall/js"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/options"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/check"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/diverge"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/npy"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/printer"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"github.com/gort-dev/gort/wasm/jsval"
)

func registerChecks(api js.Value) {
	api.Set("check", asyncFunc(checkModel))
	api.Set("inferShapes", asyncFunc(inferShapes))
	api.Set("printGraph", asyncFunc(printGraph))
	api.Set("capabilities", asyncFunc(capabilities))
	api.Set("compareValues", asyncFunc(compareValues))
	api.Set("diverge", asyncFunc(divergeModel))
	api.Set("readNpy", asyncFunc(readNpy))
	api.Set("writeNpy", asyncFunc(writeNpy))
}

// asJSON hands a result to asyncFunc, which converts it with jsval.ToJS.
func asJSON(v any) (any, error) { return v, nil }

func decodeModel(b []byte) (*pb.ModelProto, error) {
	mp := &pb.ModelProto{}
	if err := protoconv.Unmarshal(b, mp, "ONNX model", graph.DefaultMaxTensorBytes); err != nil {
		return nil, err
	}
	return mp, nil
}

// check(model: Uint8Array, {externalData?: [{path, data}]}) → Promise<{ok, errors, warnings, findings}>.
// An undecodable model is a report with one MODEL_DECODE finding, not a rejection.
func checkModel(args []js.Value) (func() (any, error), error) {
	model, err := bytesArg(args, "check needs the model bytes", "model")
	if err != nil {
		return nil, err
	}
	// externalData as load reads it; not given (null), the files the model
	// names are not checked.
	var o js.Value
	if len(args) > 1 {
		o = args[1]
	}
	so, err := sessionOptions(o) // options.go
	if err != nil {
		return nil, err
	}
	opts := &check.Options{ExternalData: so.Load.ExternalData}
	return func() (any, error) {
		r := check.Bytes(model, opts)
		f := r.Findings
		if f == nil {
			f = []check.Finding{}
		}
		return checkResult{OK: r.OK(), Errors: r.Errors, Warnings: r.Warnings, Findings: f}, nil
	}, nil
}

// inferShapes(model) → Promise<{values: {name: {name, type, elem, shape, why}}, problems: [...]}>.
func inferShapes(args []js.Value) (func() (any, error), error) {
	model, err := bytesArg(args, "inferShapes needs the model bytes", "model")
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		mp, err := decodeModel(model)
		if err != nil {
			return nil, err
		}
		res := shapes.Model(mp, nil)
		problems := res.Problems
		if problems == nil {
			problems = []shapes.Problem{}
		}
		return shapesResult{Values: printer.Values(res), Problems: problems}, nil
	}, nil
}

// printGraph(model, {json?: boolean, executionProviders?, webgpuDryRun?,
// ...load's options}) → Promise<string | model document>. With
// executionProviders naming 'webgpu', each node also shows where a session
// with those options runs it, and why it stays on the CPU; webgpuDryRun
// shows the same by WebGPU's rules without a device.
func printGraph(args []js.Value) (func() (any, error), error) {
	model, so, err := modelArgs("printGraph", args)
	if err != nil {
		return nil, err
	}
	asDoc := len(args) > 1 && jsval.Get(args[1], "json").Truthy()
	dry := len(args) > 1 && jsval.Get(args[1], "webgpuDryRun").Truthy()
	return func() (any, error) {
		mp, err := decodeModel(model)
		if err != nil {
			return nil, err
		}
		m := printer.Build(mp, nil)
		if dry || so.WebGPU {
			opts := so.Load
			cpu := options.WASM
			if dry {
				// WebGPU's placement rules and default cost threshold without a
				// device (what `gort print --webgpu` shows).
				opts.Accelerator = webgpu.Dry{Options: webgpu.Options{MinElements: webgpu.DefaultMinElements}}
				cpu = "cpu"
			} else {
				openDevice(so, &opts)
			}
			s, err := runtime.Load(model, &opts)
			if err != nil {
				return nil, err
			}
			m.Place(s.Plan(), cpu)
		}
		if asDoc {
			return asJSON(m)
		}
		var sb stringBuilder
		if err := printer.Text(&sb, m); err != nil {
			return nil, err
		}
		return string(sb), nil
	}, nil
}

type stringBuilder []byte

func (s *stringBuilder) Write(p []byte) (int, error) { *s = append(*s, p...); return len(p), nil }

// capabilities(model, options) → Promise<{nodes, supported, unsupported: [...], byOp,
// folded, removed, fused, placements: [{node, op, device, reason}], loadError?}>: the
// nodes gort cannot run, and what the plan stage does with the model under
// the given session options (load's options).
func capabilities(args []js.Value) (func() (any, error), error) {
	model, so, err := modelArgs("capabilities", args)
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		mp, err := decodeModel(model)
		if err != nil {
			return nil, err
		}
		rep := capabilityReport{Capabilities: check.CapabilitiesOf(mp, nil)}
		opts := so.Load
		dev := openDevice(so, &opts) // webgpu.go: executionProviders
		s, err := runtime.Load(model, &opts)
		if err != nil {
			rep.LoadError = err.Error()
			return asJSON(rep)
		}
		r := s.Plan().Report
		rep.Folded, rep.Removed, rep.Fused = r.Folded, r.Removed, r.Fused
		rep.Placements = dev.info(s).Placements
		return asJSON(rep)
	}, nil
}

type capabilityReport struct {
	*check.Capabilities
	Folded     []string    `json:"folded"`
	Removed    []string    `json:"removed"`
	Fused      []string    `json:"fused"`
	Placements []placement `json:"placements"`
	LoadError  string      `json:"loadError,omitempty"`
}

func tolerance(o js.Value) compare.Tolerance {
	tol := compare.DefaultTolerance
	if v := jsval.Get(o, "rtol"); v.Type() == js.TypeNumber {
		tol.Rtol = v.Float()
	}
	if v := jsval.Get(o, "atol"); v.Type() == js.TypeNumber {
		tol.Atol = v.Float()
	}
	return tol
}

// compareValues(got: wire tensor, want: wire tensor, {rtol?, atol?}) → Promise<Stats>.
func compareValues(args []js.Value) (func() (any, error), error) {
	if len(args) < 2 {
		return nil, argErr("compareValues needs two tensors")
	}
	got, err := tensorFromJS(args[0])
	if err != nil {
		return nil, argErr("got: %v", err)
	}
	want, err := tensorFromJS(args[1])
	if err != nil {
		return nil, argErr("want: %v", err)
	}
	var o js.Value
	if len(args) > 2 {
		o = args[2]
	}
	tol := tolerance(o)
	return func() (any, error) { return asJSON(compare.TensorStats(got, want, tol)) }, nil
}

// sessionAndFeeds loads args[0] (model bytes, returned too) and reads args[1]
// (feeds by name, in the wire format) for diverge.
func sessionAndFeeds(args []js.Value) ([]byte, *runtime.Session, map[string]tensor.Value, error) {
	model, err := copyBytes(args[0], "model")
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := runtime.Load(model, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	feeds, err := feedsFromJS(s, args[1], nil)
	return model, s, feeds, err
}

// diverge(model, feeds: {name: wire}, {reference?: {value: wire tensor}, unoptimized?: boolean, rtol?, atol?})
// → Promise<{diverged, divergence, summary}>.
func divergeModel(args []js.Value) (func() (any, error), error) {
	if len(args) < 3 {
		return nil, argErr("diverge needs the model bytes, feeds and options")
	}
	model, s, feeds, err := sessionAndFeeds(args)
	if err != nil {
		return nil, err
	}
	o := args[2]
	tol := tolerance(o)
	ref := map[string]tensor.Value{}
	if r := jsval.Get(o, "reference"); !jsval.IsNullish(r) {
		for _, k := range jsval.Keys(r) {
			t, err := tensorFromJS(r.Get(k))
			if err != nil {
				return nil, argErr("reference %q: %v", k, err)
			}
			ref[k] = t
		}
	}
	unopt := jsval.Get(o, "unoptimized").Truthy()
	if unopt == (len(ref) > 0) {
		return nil, argErr("diverge needs exactly one of reference and unoptimized")
	}
	return func() (any, error) {
		var d *diverge.Divergence
		var sum diverge.Summary
		if unopt {
			plain, err := runtime.Load(model, &runtime.Options{Optimization: plan.Disabled})
			if err != nil {
				return nil, err
			}
			d, sum, err = diverge.Sessions(context.Background(), s, plain, feeds, tol)
			if err != nil {
				return nil, err
			}
		} else {
			run, err := diverge.Record(context.Background(), s, feeds)
			if err != nil {
				return nil, err
			}
			d, sum = diverge.First(run, ref, tol)
		}
		return divergeResult{Diverged: d != nil, Divergence: d, Summary: sum}, nil
	}, nil
}

// namedToJS builds {name: wire value} with the names in order.
func namedToJS(names []string, value func(string) tensor.Value) (js.Value, error) {
	res := js.Global().Get("Object").New()
	for _, n := range names {
		w, err := valueToJS(value(n))
		if err != nil {
			return js.Value{}, err
		}
		res.Set(n, w)
	}
	return res, nil
}

// readNpy(bytes) → Promise<wire tensor | {name: wire tensor}>: a .npy file gives one tensor, an .npz (a zip) an object by array name.
func readNpy(args []js.Value) (func() (any, error), error) {
	b, err := bytesArg(args, "readNpy needs bytes", "bytes")
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		if len(b) >= 2 && b[0] == 'P' && b[1] == 'K' {
			arrays, names, err := npy.ReadNPZ(b, 0)
			if err != nil {
				return nil, err
			}
			return namedToJS(names, func(n string) tensor.Value { return arrays[n] })
		}
		t, err := npy.Read(b, 0)
		if err != nil {
			return nil, err
		}
		return valueToJS(t)
	}, nil
}

// writeNpy(wire tensor) → Promise<Uint8Array> (.npy), or writeNpy({name: wire tensor}) → .npz.
func writeNpy(args []js.Value) (func() (any, error), error) {
	if len(args) < 1 {
		return nil, argErr("writeNpy needs a tensor or an object of tensors")
	}
	var single *tensor.Tensor
	arrays := map[string]*tensor.Tensor{}
	var order []string
	if jsval.Get(args[0], "kind").Type() == js.TypeString {
		t, err := tensorFromJS(args[0])
		if err != nil {
			return nil, argErr("%v", err)
		}
		single = t
	} else {
		for _, k := range jsval.Keys(args[0]) {
			t, err := tensorFromJS(args[0].Get(k))
			if err != nil {
				return nil, argErr("%q: %v", k, err)
			}
			arrays[k] = t
			order = append(order, k)
		}
	}
	return func() (any, error) {
		var b []byte
		var err error
		if single != nil {
			b, err = npy.Write(single)
		} else {
			b, err = npy.WriteNPZ(arrays, order)
		}
		if err != nil {
			return nil, err
		}
		u := uint8Array.New(len(b))
		js.CopyBytesToJS(u, b)
		return u, nil
	}, nil
}

type checkResult struct {
	OK       bool            `js:"ok"`
	Errors   int             `js:"errors"`
	Warnings int             `js:"warnings"`
	Findings []check.Finding `js:"findings"`
}

type shapesResult struct {
	Values   map[string]*printer.Value `js:"values"`
	Problems []shapes.Problem          `js:"problems"`
}

type divergeResult struct {
	Diverged   bool                `js:"diverged"`
	Divergence *diverge.Divergence `js:"divergence"`
	Summary    diverge.Summary     `js:"summary"`
}
