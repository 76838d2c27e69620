package options

import (
	"fmt"
	"strings"
)

// The providers' names, as session.executionProviders reports them.
const (
	WASM   = "wasm"
	WebGPU = "webgpu"
)

// Provider is an execution provider gort serves. All of them are served by
// gort.wasm: WebGPU is a placement decision of its plan (wasm/webgpu.go),
// not a backend of its own.
type Provider struct {
	// Name is the provider's own name; Aliases are other names for it.
	Name    string
	Aliases []string
	// CPU: the provider runs nodes on the CPU. A CPU provider named
	// before 'webgpu' keeps the session on the CPU.
	CPU bool
}

// Providers are gort's execution providers, in the order error messages
// list them. This is the one list: js/src/options.gen.js is generated
// from it (tools/genjsoptions).
var Providers = []Provider{
	{Name: WASM, Aliases: []string{"cpu"}, CPU: true},
	{Name: WebGPU},
}

// Foreign are execution providers onnxruntime has and gort has not (yet):
// a list that names one skips it with ForeignText rather than
// UnknownText.
var Foreign = []string{"webgl", "webnn", "xnnpack", "cuda", "dml", "coreml", "nnapi", "qnn", "tensorrt", "openvino"}

// How a provider list that gort cannot serve is reported, here and by the
// JS package's backend choice (which gets them through options.gen.js):
// NoProviderText's first %s is the reasons, "name: reason" joined by "; ",
// or EmptyListText; its second is Names joined by ", ".
const (
	NoProviderText = "no execution provider can serve this session: %s. gort provides: %s"
	EmptyListText  = "the list is empty"
	ForeignText    = "gort has no %s backend yet"
	UnknownText    = "unknown execution provider"
)

// Names are the names executionProviders accepts for gort's providers,
// each provider's aliases after it.
func Names() []string {
	var out []string
	for _, p := range Providers {
		out = append(out, p.Name)
		out = append(out, p.Aliases...)
	}
	return out
}

// Lookup returns the provider a name names, in any case.
func Lookup(name string) (Provider, bool) {
	key := strings.ToLower(name)
	for _, p := range Providers {
		if p.Name == key {
			return p, true
		}
		for _, a := range p.Aliases {
			if a == key {
				return p, true
			}
		}
	}
	return Provider{}, false
}

// skipReason says why a name gort does not serve is skipped.
func skipReason(name string) string {
	key := strings.ToLower(name)
	for _, f := range Foreign {
		if f == key {
			return fmt.Sprintf(ForeignText, name)
		}
	}
	return UnknownText
}

// noProvider is the error for a list none of whose names gort serves.
func noProvider(reasons []string) error {
	r := strings.Join(reasons, "; ")
	if len(reasons) == 0 {
		r = EmptyListText
	}
	return bad(NoProviderText, r, strings.Join(Names(), ", "))
}
