//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/gort-dev/gort/options"
	"github.com/gort-dev/gort/wasm/jsval"
)

// sessionOptions parses a bridge call's session options (package options
// checks and defaults every one of them). Only the keys options.Parse
// reads are converted, so that whatever else the caller's object holds
// (onnxruntime's options gort has no use for) is never walked.
func sessionOptions(o js.Value) (*options.Session, error) {
	if jsval.IsNullish(o) {
		return options.Parse(nil)
	}
	if o.Type() != js.TypeObject || jsval.IsArray(o) || o.InstanceOf(uint8Array) {
		return options.Parse(toGo(o, 0))
	}
	m := map[string]any{}
	for _, k := range options.Keys() {
		m[k] = toGo(o.Get(k), 0)
	}
	return options.Parse(m)
}

// maxOptionDepth bounds how deep toGo follows nested values (option
// values are at most three levels deep; a cycle stops here).
const maxOptionDepth = 8

// toGo converts a JS value to the generic form options.Parse reads:
// undefined and null are nil, a Uint8Array is []byte (copied), arrays are
// []any, other objects map[string]any of their own enumerable keys, and
// what has no Go form (functions, symbols, bigints, other typed arrays) is
// an options.Opaque describing it.
func toGo(v js.Value, depth int) any {
	switch v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return nil
	case js.TypeBoolean:
		return v.Bool()
	case js.TypeNumber:
		return v.Float()
	case js.TypeString:
		return v.String()
	case js.TypeObject:
		if depth >= maxOptionDepth {
			return options.Opaque("a value nested too deep")
		}
		switch {
		case v.InstanceOf(uint8Array):
			b := make([]byte, v.Get("byteLength").Int())
			js.CopyBytesToGo(b, v)
			return b
		case jsval.IsArray(v):
			a := make([]any, v.Length())
			for i := range a {
				a[i] = toGo(v.Index(i), depth+1)
			}
			return a
		case arrayBuffer.Call("isView", v).Bool() || v.InstanceOf(arrayBuffer):
			return options.Opaque(jsval.Describe(v))
		}
		m := map[string]any{}
		for _, k := range jsval.Keys(v) {
			m[k] = toGo(v.Get(k), depth+1)
		}
		return m
	}
	return options.Opaque(jsval.Describe(v))
}
