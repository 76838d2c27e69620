package options

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/plan"
)

// obj is a JS object as wasm/options.go converts it.
type obj = map[string]any

func TestDefaults(t *testing.T) {
	for _, o := range []any{nil, obj{}, obj{"onProgress": Opaque("a function"), "executionMode": "sequential"}} {
		s, err := Parse(o)
		if err != nil {
			t.Fatalf("%v: %v", o, err)
		}
		want := &Session{Providers: []string{WASM}, WebGPUMinElements: webgpu.DefaultMinElements, LogSeverityLevel: 2, OutputLocation: CPU}
		if !reflect.DeepEqual(s, want) {
			t.Errorf("Parse(%v) = %+v, want %+v", o, s, want)
		}
		if s.Load.Optimization != plan.All || s.Load.ExternalData != nil {
			t.Errorf("Parse(%v): level %v, external data %v; want all and none", o, s.Load.Optimization, s.Load.ExternalData)
		}
	}
}

// TestOptions reads every option's accepted forms; each case's check says
// what the option set.
func TestOptions(t *testing.T) {
	data := []byte{1, 2, 3, 4}
	for _, c := range []struct {
		name  string
		in    obj
		check func(s *Session) bool
	}{
		{"providers wasm", obj{"executionProviders": []any{"wasm"}}, func(s *Session) bool { return !s.WebGPU && eq(s.Providers, WASM) }},
		{"providers cpu alias", obj{"executionProviders": []any{"cpu"}}, func(s *Session) bool { return eq(s.Providers, WASM) }},
		{"providers {name}", obj{"executionProviders": []any{obj{"name": "webgpu", "preferredLayout": "NHWC"}, "wasm"}}, func(s *Session) bool { return s.WebGPU && eq(s.Providers, WebGPU, WASM) }},
		{"providers any case", obj{"executionProviders": []any{"WebGPU"}}, func(s *Session) bool { return s.WebGPU && eq(s.Providers, WebGPU) }},
		{"webgpu after the cpu", obj{"executionProviders": []any{"cpu", "webgpu"}}, func(s *Session) bool { return !s.WebGPU && eq(s.Providers, WASM, WebGPU) }},
		{"foreign and unknown skipped", obj{"executionProviders": []any{obj{"name": "webnn"}, "foo", "cpu", "wasm"}}, func(s *Session) bool { return !s.WebGPU && eq(s.Providers, WASM) }},
		{"webgpuMinElements", obj{"webgpuMinElements": 0.0}, func(s *Session) bool { return s.WebGPUMinElements == 0 }},
		{"webgpuMinElements Go int", obj{"webgpuMinElements": 10}, func(s *Session) bool { return s.WebGPUMinElements == 10 }},
		{"level disabled", obj{"graphOptimizationLevel": "disabled"}, func(s *Session) bool { return s.Load.Optimization == plan.Disabled }},
		{"level basic", obj{"graphOptimizationLevel": "basic"}, func(s *Session) bool { return s.Load.Optimization == plan.Basic }},
		{"level extended", obj{"graphOptimizationLevel": "extended"}, func(s *Session) bool { return s.Load.Optimization == plan.Extended }},
		{"level all", obj{"graphOptimizationLevel": "all"}, func(s *Session) bool { return s.Load.Optimization == plan.All }},
		{"level empty is all", obj{"graphOptimizationLevel": ""}, func(s *Session) bool { return s.Load.Optimization == plan.All }},
		{"freeDimensionOverrides", obj{"freeDimensionOverrides": obj{"batch": 2.0, "len": 0.0}}, func(s *Session) bool {
			return reflect.DeepEqual(s.Load.FreeDimensionOverrides, map[string]int64{"batch": 2, "len": 0})
		}},
		{"externalData", obj{"externalData": []any{obj{"path": "w.bin", "data": data}}}, func(s *Session) bool {
			return reflect.DeepEqual(s.Load.ExternalData, map[string][]byte{"w.bin": data})
		}},
		{"externalData empty", obj{"externalData": []any{}}, func(s *Session) bool { return s.Load.ExternalData != nil && len(s.Load.ExternalData) == 0 }},
		{"maxTensorBytes", obj{"maxTensorBytes": 1024.0}, func(s *Session) bool { return s.Load.MaxTensorBytes == 1024 }},
		{"logSeverityLevel", obj{"logSeverityLevel": 0.0}, func(s *Session) bool { return s.LogSeverityLevel == 0 }},
		{"logSeverityLevel fatal", obj{"logSeverityLevel": 4.0}, func(s *Session) bool { return s.LogSeverityLevel == 4 }},
		{"intraOpNumThreads", obj{"intraOpNumThreads": 3.0}, func(s *Session) bool { return s.Threads == 3 }},
		{"output location", obj{"preferredOutputLocation": "gpu-buffer"}, func(s *Session) bool { return s.OutputLocation == GPUBuffer }},
		{"output locations", obj{"preferredOutputLocation": obj{"y": "gpu-buffer", "z": "cpu"}}, func(s *Session) bool {
			return s.OutputLocation == CPU && reflect.DeepEqual(s.OutputLocations, map[string]string{"y": GPUBuffer, "z": CPU})
		}},
		{"null is not given", obj{"executionProviders": nil, "graphOptimizationLevel": nil, "logSeverityLevel": nil}, func(s *Session) bool {
			return eq(s.Providers, WASM) && s.LogSeverityLevel == 2
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(s) {
				t.Errorf("Parse(%v) = %+v", c.in, s)
			}
		})
	}
}

// TestErrors: a bad option is GORT_INVALID_ARGUMENT naming it and what it
// takes.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{"fast", `session options must be an object, got "fast"`},
		{[]any{}, "session options must be an object, got an array"},
		{Opaque("a function"), "session options must be an object, got a function"},
		{obj{"executionProviders": "wasm"}, `executionProviders must be an array of provider names or {name} objects, got "wasm"`},
		{obj{"executionProviders": []any{"wasm", 5.0}}, "executionProviders[1] must be a provider name or {name}, got 5"},
		{obj{"executionProviders": []any{obj{"name": true}}}, "executionProviders[0] must be a provider name or {name}, got an object"},
		{obj{"executionProviders": []any{"webgl", "foo"}}, "no execution provider can serve this session: webgl: gort has no webgl backend yet; foo: unknown execution provider. gort provides: wasm, cpu, webgpu"},
		{obj{"executionProviders": []any{"WebNN"}}, "WebNN: gort has no WebNN backend yet"},
		{obj{"executionProviders": []any{}}, "no execution provider can serve this session: the list is empty. gort provides: wasm, cpu, webgpu"},
		{obj{"webgpuMinElements": -1.0}, "webgpuMinElements must be a non-negative integer, got -1"},
		{obj{"webgpuMinElements": 1.5}, "webgpuMinElements must be a non-negative integer, got 1.5"},
		{obj{"webgpuMinElements": "10"}, `webgpuMinElements must be a non-negative integer, got "10"`},
		{obj{"graphOptimizationLevel": "fast"}, `graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got "fast"`},
		{obj{"graphOptimizationLevel": "ALL"}, `graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got "ALL"`},
		{obj{"graphOptimizationLevel": 99.0}, "graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got 99"},
		{obj{"freeDimensionOverrides": []any{1.0}}, "freeDimensionOverrides must be an object such as {batch: 1}, got an array"},
		{obj{"freeDimensionOverrides": obj{"batch": -1.0}}, "freeDimensionOverrides.batch must be a non-negative integer, got -1"},
		{obj{"freeDimensionOverrides": obj{"batch": "2"}}, `freeDimensionOverrides.batch must be a non-negative integer, got "2"`},
		{obj{"freeDimensionOverrides": obj{"batch": 1e300}}, "freeDimensionOverrides.batch must be a non-negative integer, got 1e+300"},
		{obj{"externalData": obj{}}, "externalData must be an array of {path, data}, got an object"},
		{obj{"externalData": []any{nil}}, "externalData[0] must be {path, data}, got null"},
		{obj{"externalData": []any{obj{"data": []byte{1}}}}, "externalData[0].path must be a string, got null"},
		{obj{"externalData": []any{obj{"path": "w.bin", "data": 3.0}}}, "externalData[0].data must be bytes (a Uint8Array or ArrayBuffer) or a URL or file path to read, got 3"},
		{obj{"externalData": []any{obj{"path": "w.bin", "data": Opaque("a Float32Array")}}}, "got a Float32Array"},
		{obj{"maxTensorBytes": 0.0}, "maxTensorBytes must be a positive integer, got 0"},
		{obj{"logSeverityLevel": 7.0}, "logSeverityLevel must be an integer from 0 (verbose) to 4 (fatal), got 7"},
		{obj{"intraOpNumThreads": 1.5}, "intraOpNumThreads must be an integer from 0 (env.wasm.numThreads) to 16, got 1.5"},
		{obj{"intraOpNumThreads": 17.0}, "intraOpNumThreads must be an integer from 0 (env.wasm.numThreads) to 16, got 17"},
		{obj{"logSeverityLevel": "warning"}, `logSeverityLevel must be an integer from 0 (verbose) to 4 (fatal), got "warning"`},
		{obj{"preferredOutputLocation": "texture"}, `preferredOutputLocation must be 'cpu', 'gpu-buffer' or {outputName: location} of those, got "texture"`},
		{obj{"preferredOutputLocation": obj{"y": true}}, "preferredOutputLocation must be 'cpu', 'gpu-buffer' or {outputName: location} of those, got true"},
	} {
		_, err := Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%v): no error, want %q", c.in, c.want)
			continue
		}
		if errs.CodeOf(err) != errs.InvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%v) = %v (%s), want GORT_INVALID_ARGUMENT with %q", c.in, err, errs.CodeOf(err), c.want)
		}
	}
}

func TestGPUOutputs(t *testing.T) {
	outputs := []string{"y", "z"}
	for _, c := range []struct {
		pol  any
		want []string
		err  string
	}{
		{nil, []string{}, ""},
		{"cpu", []string{}, ""},
		{"gpu-buffer", []string{"y", "z"}, ""},
		{obj{"z": "gpu-buffer"}, []string{"z"}, ""},
		{obj{"y": "cpu", "z": "gpu-buffer"}, []string{"z"}, ""},
		{obj{"nope": "gpu-buffer"}, nil, `preferredOutputLocation names "nope", which is not an output; the outputs are y, z`},
	} {
		s, err := Parse(obj{"preferredOutputLocation": c.pol})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.GPUOutputs(outputs)
		if c.err != "" {
			if err == nil || errs.CodeOf(err) != errs.InvalidArgument || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.pol, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %v, %v; want %v", c.pol, got, err, c.want)
		}
	}
}

func TestParseLevel(t *testing.T) {
	for name, want := range map[string]plan.Level{"all": plan.All, "extended": plan.Extended, "basic": plan.Basic, "disabled": plan.Disabled, "": plan.All} {
		if l, err := ParseLevel(name); err != nil || l != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", name, l, err, want)
		}
		if name != "" && want.String() != name {
			t.Errorf("%v.String() = %q, want %q", want, want.String(), name)
		}
	}
	if _, err := ParseLevel("most"); err == nil || !strings.Contains(err.Error(), `graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got "most"`) {
		t.Errorf("ParseLevel(most): %v", err)
	}
}

// TestLevelZero: the zero Level is All, the default, and the levels
// include one another from All down to Disabled.
func TestLevelZero(t *testing.T) {
	var l plan.Level
	if l != plan.All || l.String() != "all" {
		t.Errorf("zero Level = %v, want all", l)
	}
	order := []plan.Level{plan.All, plan.Extended, plan.Basic, plan.Disabled}
	for i, a := range order {
		for j, b := range order {
			if a.Includes(b) != (i <= j) {
				t.Errorf("%v.Includes(%v) = %v", a, b, a.Includes(b))
			}
		}
	}
}

func TestProviders(t *testing.T) {
	if got := Names(); !eq(got, "wasm", "cpu", "webgpu") {
		t.Errorf("Names() = %v", got)
	}
	for _, n := range Names() {
		if p, ok := Lookup(strings.ToUpper(n)); !ok || (p.Name != n && !eq(p.Aliases, n)) {
			t.Errorf("Lookup(%q) = %v, %v", strings.ToUpper(n), p, ok)
		}
	}
	for _, f := range Foreign {
		if _, ok := Lookup(f); ok {
			t.Errorf("%q is both gort's and foreign", f)
		}
	}
}

func eq(got []string, want ...string) bool { return reflect.DeepEqual(got, want) }
