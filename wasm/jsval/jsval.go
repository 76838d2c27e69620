//go:build js && wasm

// Package jsval converts between Go values and JavaScript values for gort's
// WebAssembly bridge.
//
// It exists because the bridge passes small structured values (session
// metadata, options, error details) across the boundary and hand-writing
// js.Value plumbing for each would be noisy and error-prone; the usual
// third-party helper is not available from the module proxy, so gort keeps its
// own. It is deliberately not used for tensor payloads: those cross as bulk
// byte copies (see package main), never element by element.
package jsval

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"syscall/js"
)

var (
	object = js.Global().Get("Object")
	array  = js.Global().Get("Array")
)

// ToJS converts a Go value to a JavaScript value.
//
// Supported: nil (null), js.Value (as is), bool, all integer and float kinds
// (JS numbers; integers beyond 2^53 lose precision, callers needing exact
// 64-bit integers use typed arrays), string, slices and arrays (JS arrays),
// maps with string keys (plain objects, keys in sorted order for stable
// output), pointers (followed; nil → null) and structs (plain objects using
// the `js:"name"` tag, else the `json:"name"` tag, else the field name;
// `js:"-"` skips, `,omitempty` drops zero values; an untagged embedded
// struct's fields are inlined). Anything else panics: the bridge only converts values it built
// itself, so an unsupported type is a programming error.
func ToJS(v any) js.Value {
	if v == nil {
		return js.Null()
	}
	if jv, ok := v.(js.Value); ok {
		return jv
	}
	return toJS(reflect.ValueOf(v))
}

func toJS(rv reflect.Value) js.Value {
	switch rv.Kind() {
	case reflect.Invalid:
		return js.Null()
	case reflect.Bool:
		return js.ValueOf(rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return js.ValueOf(float64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return js.ValueOf(float64(rv.Uint()))
	case reflect.Float32, reflect.Float64:
		return js.ValueOf(rv.Float())
	case reflect.String:
		return js.ValueOf(rv.String())
	case reflect.Interface, reflect.Pointer:
		if rv.IsNil() {
			return js.Null()
		}
		if jv, ok := rv.Interface().(js.Value); ok {
			return jv
		}
		return toJS(rv.Elem())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return array.New(0)
		}
		n := rv.Len()
		a := array.New(n)
		for i := 0; i < n; i++ {
			a.SetIndex(i, toJS(rv.Index(i)))
		}
		return a
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			panic(fmt.Sprintf("jsval: map key type %s is not string", rv.Type().Key()))
		}
		o := object.New()
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			o.Set(k.String(), toJS(rv.MapIndex(k)))
		}
		return o
	case reflect.Struct:
		if jv, ok := rv.Interface().(js.Value); ok {
			return jv
		}
		o := object.New()
		setFields(o, rv)
		return o
	}
	panic(fmt.Sprintf("jsval: cannot convert %s to JavaScript", rv.Type()))
}

// setFields sets a struct's exported fields on o; an untagged embedded
// struct's fields are set as the outer struct's own (as encoding/json does).
func setFields(o js.Value, rv reflect.Value) {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag == "" {
			inner := rv.Field(i)
			if inner.Kind() == reflect.Pointer {
				if inner.IsNil() {
					continue
				}
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				setFields(o, inner)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		name, omitEmpty := fieldName(f)
		if name == "-" {
			continue
		}
		fv := rv.Field(i)
		if omitEmpty && fv.IsZero() {
			continue
		}
		o.Set(name, toJS(fv))
	}
}

// fieldName reads the js tag, or else the json tag (for report types shared
// with the CLI's JSON output).
func fieldName(f reflect.StructField) (name string, omitEmpty bool) {
	tag := f.Tag.Get("js")
	if tag == "" {
		tag = f.Tag.Get("json")
	}
	if tag == "" {
		return f.Name, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, opts == "omitempty"
}

// IsNullish reports whether v is undefined or null.
func IsNullish(v js.Value) bool { return v.IsUndefined() || v.IsNull() }

// Get returns o[key], or undefined when o itself is null or undefined, so that
// optional option objects can be read without checks at every level.
func Get(o js.Value, key string) js.Value {
	if IsNullish(o) || (o.Type() != js.TypeObject && o.Type() != js.TypeFunction) {
		return js.Undefined()
	}
	return o.Get(key)
}

// Keys returns the own enumerable property names of a JS object.
func Keys(o js.Value) []string {
	if IsNullish(o) || o.Type() != js.TypeObject {
		return nil
	}
	ks := object.Call("keys", o)
	out := make([]string, ks.Length())
	for i := range out {
		out[i] = ks.Index(i).String()
	}
	return out
}

// IsArray reports whether v is a JS array.
func IsArray(v js.Value) bool { return array.Call("isArray", v).Bool() }

// Int converts a JS number to an int64, requiring an exact integer. (BigInts
// are converted to numbers by the JS side, which knows their type.)
func Int(v js.Value) (int64, error) {
	switch v.Type() {
	case js.TypeNumber:
		f := v.Float()
		if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
			return 0, fmt.Errorf("%v is not an integer", f)
		}
		return int64(f), nil
	}
	return 0, fmt.Errorf("expected an integer, got %s", describe(v))
}

// Ints converts a JS array of integers.
func Ints(v js.Value) ([]int64, error) {
	if !IsArray(v) {
		return nil, fmt.Errorf("expected an array of integers, got %s", describe(v))
	}
	out := make([]int64, v.Length())
	for i := range out {
		n, err := Int(v.Index(i))
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

// Strings converts a JS array of strings.
func Strings(v js.Value) ([]string, error) {
	if !IsArray(v) {
		return nil, fmt.Errorf("expected an array of strings, got %s", describe(v))
	}
	out := make([]string, v.Length())
	for i := range out {
		e := v.Index(i)
		if e.Type() != js.TypeString {
			return nil, fmt.Errorf("element %d: expected a string, got %s", i, describe(e))
		}
		out[i] = e.String()
	}
	return out, nil
}

// IntMap converts a plain object of integers ({name: 3}).
func IntMap(v js.Value) (map[string]int64, error) {
	if IsNullish(v) {
		return nil, nil
	}
	if v.Type() != js.TypeObject || IsArray(v) {
		return nil, fmt.Errorf("expected an object mapping names to integers, got %s", describe(v))
	}
	out := map[string]int64{}
	for _, k := range Keys(v) {
		n, err := Int(v.Get(k))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// describe names a JS value's type for error messages.
func describe(v js.Value) string {
	switch v.Type() {
	case js.TypeObject:
		if IsArray(v) {
			return "an array"
		}
		if c := v.Get("constructor"); c.Type() == js.TypeFunction {
			return "a " + c.Get("name").String()
		}
		return "an object"
	case js.TypeUndefined:
		return "undefined"
	case js.TypeNull:
		return "null"
	}
	return "a " + v.Type().String()
}

// Describe is describe for callers outside the package.
func Describe(v js.Value) string { return describe(v) }
