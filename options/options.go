// Package options reads a session's options, as the JS package's
// InferenceSession.create takes them (onnxruntime-web's names and gort's
// own), into one Session: once, at the wasm boundary (wasm/main.go), with
// the one message per bad option naming it and what was expected. The JS
// package checks nothing here itself; what it needs before gort.wasm runs
// (the option names to pass on, the execution provider names to choose a
// backend by) it gets from js/src/options.gen.js, which tools/genjsoptions
// writes from this package.
//
// Parse takes the options as a generic tree, the form wasm/ converts a JS
// object to: nil (undefined or null, read as "not given"), bool, float64,
// string, []byte (a Uint8Array), []any, map[string]any, and Opaque for
// any other value. Go callers may also give int and int64 numbers.
package options

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/plan"
)

// Opaque is a value Parse has no use for (a function, a bigint, a typed
// array other than bytes), as messages describe it: "a function".
type Opaque string

// Where outputs go (preferredOutputLocation).
const (
	CPU       = "cpu"
	GPUBuffer = "gpu-buffer"
)

// Session is a session's options, parsed. The zero value is not the
// defaults: Parse(nil) is.
type Session struct {
	// Load is what runtime.Load takes: MaxTensorBytes
	// (maxTensorBytes), FreeDimensionOverrides (freeDimensionOverrides),
	// ExternalData (externalData: nil when not given, which the model
	// checker reads as "not checked") and Optimization
	// (graphOptimizationLevel). Accelerator and Log are left for the
	// caller (wasm/webgpu.go).
	Load runtime.Options
	// Providers are the execution providers named that gort serves, by
	// their own names, in the caller's order, each once; names gort does
	// not serve are skipped (executionProviders; default ['wasm']).
	Providers []string
	// WebGPU: the session asks for WebGPU placement ('webgpu' named
	// before any CPU provider).
	WebGPU bool
	// WebGPUMinElements is WebGPU's cost rule (webgpuMinElements; default
	// webgpu.DefaultMinElements).
	WebGPUMinElements int64
	// LogSeverityLevel is 0 (verbose) … 4 (fatal) (logSeverityLevel;
	// default 2, warnings).
	LogSeverityLevel int
	// OutputLocation is where the outputs that OutputLocations does not
	// name go, CPU or GPUBuffer; OutputLocations is per output
	// (preferredOutputLocation: a location, or {output: location}).
	OutputLocation  string
	OutputLocations map[string]string
	// Threads is how many threads the session's runs use, its own
	// included (intraOpNumThreads, onnxruntime's name; 0, the default,
	// takes env.wasm.numThreads). The JS package's worker pool acts on it
	// (js/src/threads.js).
	Threads int
}

// option is one key Parse reads; read sees only values that are given
// (not nil).
type option struct {
	key  string
	read func(s *Session, v any) error
}

// table is every option Parse reads. The defaults are Parse(nil)'s
// (defaults).
var table = []option{
	{"executionProviders", readProviders},
	{"webgpuMinElements", func(s *Session, v any) error {
		n, ok := integer(v)
		if !ok || n < 0 {
			return bad("webgpuMinElements must be a non-negative integer, got %s", describe(v))
		}
		s.WebGPUMinElements = n
		return nil
	}},
	{"graphOptimizationLevel", func(s *Session, v any) error {
		name, ok := v.(string)
		l, known := plan.ParseLevel(name)
		if !ok || !known {
			return levelError(v)
		}
		s.Load.Optimization = l
		return nil
	}},
	{"freeDimensionOverrides", readOverrides},
	{"externalData", readExternalData},
	{"maxTensorBytes", func(s *Session, v any) error {
		n, ok := integer(v)
		if !ok || n <= 0 {
			return bad("maxTensorBytes must be a positive integer, got %s", describe(v))
		}
		s.Load.MaxTensorBytes = n
		return nil
	}},
	{"logSeverityLevel", func(s *Session, v any) error {
		n, ok := integer(v)
		if !ok || n < 0 || n > 4 {
			return bad("logSeverityLevel must be an integer from 0 (verbose) to 4 (fatal), got %s", describe(v))
		}
		s.LogSeverityLevel = int(n)
		return nil
	}},
	{"preferredOutputLocation", readOutputLocation},
	{"intraOpNumThreads", func(s *Session, v any) error {
		n, ok := integer(v)
		if !ok || n < 0 || n > MaxThreads {
			return bad("intraOpNumThreads must be an integer from 0 (env.wasm.numThreads) to %d, got %s", MaxThreads, describe(v))
		}
		s.Threads = int(n)
		return nil
	}},
}

// MaxThreads bounds intraOpNumThreads: each thread is a Worker holding its
// own copy of the model.
const MaxThreads = 16

func defaults() *Session {
	return &Session{
		Providers:         []string{WASM},
		WebGPUMinElements: webgpu.DefaultMinElements,
		LogSeverityLevel:  2,
		OutputLocation:    CPU,
		// Load's zero value is runtime.Load's defaults, Optimization
		// plan.All among them.
	}
}

// Keys are the option names Parse reads, in its order. The JS package
// passes these on to gort.wasm (through options.gen.js).
func Keys() []string {
	out := make([]string, len(table))
	for i, o := range table {
		out[i] = o.key
	}
	return out
}

// Parse reads session options: nil gives the defaults, a map is read by
// key (keys it does not know are ignored: they are onnxruntime's options
// that gort has no use for, or the JS package's own). An option that is
// wrong is a GORT_INVALID_ARGUMENT error naming it and what it takes.
func Parse(o any) (*Session, error) {
	s := defaults()
	if o == nil {
		return s, nil
	}
	m, ok := o.(map[string]any)
	if !ok {
		return nil, bad("session options must be an object, got %s", describe(o))
	}
	for _, opt := range table {
		if v := m[opt.key]; v != nil {
			if err := opt.read(s, v); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// ParseLevel reads a graphOptimizationLevel name (a flag's value, say).
func ParseLevel(name string) (plan.Level, error) {
	l, ok := plan.ParseLevel(name)
	if !ok {
		return l, levelError(name)
	}
	return l, nil
}

func levelError(v any) error {
	return bad("graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got %s", describe(v))
}

// readProviders reads executionProviders: names or {name} objects (as
// onnxruntime-web takes them, other fields ignored), in order of
// preference. Names gort does not serve are skipped; a list without one
// that it does is an error giving each name's reason.
func readProviders(s *Session, v any) error {
	list, ok := v.([]any)
	if !ok {
		return bad("executionProviders must be an array of provider names or {name} objects, got %s", describe(v))
	}
	s.Providers = nil
	var reasons []string
	cpuSeen := false
	for i, e := range list {
		name, ok := e.(string)
		if m, isObj := e.(map[string]any); isObj {
			name, ok = m["name"].(string)
		}
		if !ok {
			return bad("executionProviders[%d] must be a provider name or {name}, got %s", i, describe(e))
		}
		p, known := Lookup(name)
		if !known {
			reasons = append(reasons, name+": "+skipReason(name))
			continue
		}
		if p.Name == WebGPU && !cpuSeen {
			s.WebGPU = true
		}
		cpuSeen = cpuSeen || p.CPU
		if !slices.Contains(s.Providers, p.Name) {
			s.Providers = append(s.Providers, p.Name)
		}
	}
	if len(s.Providers) == 0 {
		return noProvider(reasons)
	}
	return nil
}

func readOverrides(s *Session, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return bad("freeDimensionOverrides must be an object such as {batch: 1}, got %s", describe(v))
	}
	s.Load.FreeDimensionOverrides = map[string]int64{}
	for _, k := range sortedKeys(m) {
		n, ok := integer(m[k])
		if !ok || n < 0 {
			return bad("freeDimensionOverrides.%s must be a non-negative integer, got %s", k, describe(m[k]))
		}
		s.Load.FreeDimensionOverrides[k] = n
	}
	return nil
}

// readExternalData reads [{path, data}]: data is bytes here, the JS
// package having read the URLs and files that name it.
func readExternalData(s *Session, v any) error {
	list, ok := v.([]any)
	if !ok {
		return bad("externalData must be an array of {path, data}, got %s", describe(v))
	}
	s.Load.ExternalData = map[string][]byte{}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return bad("externalData[%d] must be {path, data}, got %s", i, describe(e))
		}
		p, ok := m["path"].(string)
		if !ok {
			return bad("externalData[%d].path must be a string, got %s", i, describe(m["path"]))
		}
		b, ok := m["data"].([]byte)
		if !ok {
			return bad("externalData[%d].data must be bytes (a Uint8Array or ArrayBuffer) or a URL or file path to read, got %s", i, describe(m["data"]))
		}
		s.Load.ExternalData[p] = b
	}
	return nil
}

func readOutputLocation(s *Session, v any) error {
	expected := func(v any) error {
		return bad("preferredOutputLocation must be 'cpu', 'gpu-buffer' or {outputName: location} of those, got %s", describe(v))
	}
	location := func(v any) (string, bool) {
		l, ok := v.(string)
		return l, ok && (l == CPU || l == GPUBuffer)
	}
	if m, ok := v.(map[string]any); ok {
		s.OutputLocations = map[string]string{}
		for _, k := range sortedKeys(m) {
			l, ok := location(m[k])
			if !ok {
				return expected(m[k])
			}
			s.OutputLocations[k] = l
		}
		return nil
	}
	l, ok := location(v)
	if !ok {
		return expected(v)
	}
	s.OutputLocation = l
	return nil
}

// GPUOutputs returns, of a session's outputs, those to leave in GPU
// buffers where a WebGPU step made them (preferredOutputLocation), in
// their order; the option naming a value that is not an output is an
// error.
func (s *Session) GPUOutputs(outputs []string) ([]string, error) {
	for _, k := range sortedKeys(s.OutputLocations) {
		if !slices.Contains(outputs, k) {
			return nil, bad("preferredOutputLocation names %q, which is not an output; the outputs are %s", k, strings.Join(outputs, ", "))
		}
	}
	out := []string{}
	for _, o := range outputs {
		l, ok := s.OutputLocations[o]
		if !ok {
			l = s.OutputLocation
		}
		if l == GPUBuffer {
			out = append(out, o)
		}
	}
	return out, nil
}

func bad(format string, a ...any) error { return errs.New(errs.InvalidArgument, format, a...) }

// integer reads an exact integer (JS numbers up to 2^53).
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// describe names a value as JS would show it in a message: scalars by
// value ("fast" quoted), others by kind.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return strconv.Quote(x)
	case []byte:
		return "a Uint8Array"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case Opaque:
		return string(x)
	}
	return "an unsupported value"
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
