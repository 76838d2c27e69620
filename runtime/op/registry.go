package op

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/gort-dev/gort/runtime/tensor"
)

// Kernel runs one node. Inputs hold nil for omitted optional inputs; the
// kernel returns one value per output slot (nil for unrequested optional
// outputs is allowed). Kernels must not modify their inputs.
type Kernel interface {
	Run(ctx *Context, in []*tensor.Tensor) ([]*tensor.Tensor, error)
}

// ValueKernel is a kernel over general values (sequences, optionals); ops
// such as SequenceAt, Optional or Loop with sequence state implement it instead.
type ValueKernel interface {
	RunValues(ctx *Context, in []tensor.Value) ([]tensor.Value, error)
}

// AttrsKernel is implemented by a kernel that exposes the attributes its
// builder parsed, as a struct its op package exports (nn.GemmAttrs…), so
// that an accelerator lowers the node from the same values the CPU kernel
// runs with instead of reading the node a second time.
type AttrsKernel interface {
	Attrs() any
}

// WithAttrs returns k exposing attrs (AttrsKernel).
func WithAttrs(k Kernel, attrs any) Kernel { return attrsKernel{k, attrs} }

type attrsKernel struct {
	Kernel
	attrs any
}

func (k attrsKernel) Attrs() any { return k.attrs }

// RandomKernel is implemented by kernels whose outputs are drawn at random
// (the random generators; Dropout, whose mask is random in training): the
// plan never folds them into constants, whatever their inputs.
type RandomKernel interface {
	DrawsAtRandom()
}

// Random returns k marked as a RandomKernel.
func Random(k Kernel) Kernel { return randomKernel{k} }

type randomKernel struct{ Kernel }

func (randomKernel) DrawsAtRandom() {}

// KernelFunc adapts a function to Kernel.
type KernelFunc func(ctx *Context, in []*tensor.Tensor) ([]*tensor.Tensor, error)

func (f KernelFunc) Run(ctx *Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	return f(ctx, in)
}

// Builder makes a kernel (Kernel or ValueKernel) for a node, parsing and
// validating its attributes once.
type Builder func(n *Node) (any, error)

// Default domain names: "" and "ai.onnx" are the same domain.
const DefaultDomain = ""

// CanonicalDomain maps "ai.onnx" to "".
func CanonicalDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

type key struct{ domain, op string }

// Registry maps (domain, op_type, since_version) to builders.
type Registry struct {
	mu      sync.RWMutex
	entries map[key]map[int]Builder
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: map[key]map[int]Builder{}} }

// Default is the registry package ops fills in its init functions.
var Default = NewRegistry()

// Register adds builder for op_type in domain at each of the since_versions.
// One builder commonly serves several versions and reads Node.Version for the
// differences.
func (r *Registry) Register(domain, opType string, versions []int, b Builder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key{CanonicalDomain(domain), opType}
	m := r.entries[k]
	if m == nil {
		m = map[int]Builder{}
		r.entries[k] = m
	}
	for _, v := range versions {
		if _, dup := m[v]; dup {
			panic(fmt.Sprintf("op: %s-%d registered twice", opType, v))
		}
		m[v] = b
	}
}

// Register registers in the Default registry.
func Register(opType string, versions []int, b Builder) {
	Default.Register(DefaultDomain, opType, versions, b)
}

// Versions lists the implemented since_versions of an op, ascending.
func (r *Registry) Versions(domain, opType string) []int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var vs []int
	for v := range r.entries[key{CanonicalDomain(domain), opType}] {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	return vs
}

// Ops lists the registered op types of a domain, sorted.
func (r *Registry) Ops(domain string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for k := range r.entries {
		if k.domain == CanonicalDomain(domain) {
			out = append(out, k.op)
		}
	}
	sort.Strings(out)
	return out
}

// Domains lists the domains that have at least one registered op, sorted
// (the default domain, "", first). Callers that walk the registry use it
// instead of a hand-written domain list, which silently misses a domain
// added later.
func (r *Registry) Domains() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for k := range r.entries {
		if !seen[k.domain] {
			seen[k.domain] = true
			out = append(out, k.domain)
		}
	}
	sort.Strings(out)
	return out
}

// List names every registered op version as "domain.Op-[v1 v2 ...]" (the
// default domain without prefix), sorted: the catalogue the CLI and the
// JS API's ops() show.
func (r *Registry) List() []string {
	var out []string
	for _, d := range r.Domains() {
		for _, name := range r.Ops(d) {
			full := name
			if d != "" {
				full = d + "." + name
			}
			out = append(out, fmt.Sprintf("%s-%v", full, r.Versions(d, name)))
		}
	}
	sort.Strings(out)
	return out
}

// Resolution is the outcome of looking up an op for a model's opset.
type Resolution struct {
	Builder Builder
	Version int    // chosen since_version
	Problem string // why there is no builder ("" when Builder != nil)
}

// Resolve finds the implementation for opType at the model's opset for the
// domain: the largest implemented since_version ≤ opset. If the ONNX spec
// defines a newer version ≤ opset than that, the op is reported unsupported
// rather than silently run with older semantics.
func (r *Registry) Resolve(domain, opType string, opset int) Resolution {
	domain = CanonicalDomain(domain)
	impl := r.Versions(domain, opType)
	best := -1
	for _, v := range impl {
		if v <= opset {
			best = v
		}
	}
	needed := -1
	spec := SpecVersions(domain, opType)
	for _, v := range spec {
		if v <= opset {
			needed = v
		}
	}
	name := opType
	if domain != "" {
		name = domain + "." + opType
	}
	switch {
	case len(impl) == 0:
		if len(spec) == 0 && domain == "" {
			return Resolution{Problem: fmt.Sprintf("%s is not an ONNX operator and gort does not implement it", name)}
		}
		return Resolution{Problem: fmt.Sprintf("gort does not implement %s", name)}
	case needed > best:
		return Resolution{Problem: fmt.Sprintf("%s-%d needed for opset %d; gort implements %s", name, needed, opset, versionList(name, impl))}
	case best < 0:
		return Resolution{Problem: fmt.Sprintf("%s does not exist at opset %d; gort implements %s", name, opset, versionList(name, impl))}
	}
	r.mu.RLock()
	b := r.entries[key{domain, opType}][best]
	r.mu.RUnlock()
	return Resolution{Builder: b, Version: best}
}

func versionList(name string, vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return name + "-" + strings.Join(s, ", ")
}
