//go:build js && wasm

package jsval

import (
	"syscall/js"
	"testing"
)

// Run with: GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./wasm/...

type inner struct {
	A int    `js:"a"`
	B string `js:"b,omitempty"`
	C bool   `js:"-"`
}

type outer struct {
	Name  string         `js:"name"`
	Dims  []any          `js:"dims"`
	In    *inner         `js:"in"`
	Nil   *inner         `js:"nil"`
	M     map[string]int `js:"m"`
	Plain float64
}

func TestToJS(t *testing.T) {
	v := ToJS(outer{Name: "x", Dims: []any{1, "N", -1}, In: &inner{A: 3, C: true}, M: map[string]int{"k": 2}, Plain: 1.5})
	json := js.Global().Get("JSON").Call("stringify", v).String()
	want := `{"name":"x","dims":[1,"N",-1],"in":{"a":3},"nil":null,"m":{"k":2},"Plain":1.5}`
	if json != want {
		t.Fatalf("got %s\nwant %s", json, want)
	}
	if !ToJS(nil).IsNull() || ToJS([]string(nil)).Length() != 0 {
		t.Fatal("nil conversions")
	}
}

func TestFromJS(t *testing.T) {
	o := js.Global().Get("JSON").Call("parse", `{"n": 3, "f": 1.5, "big": 1e300, "ints": [1, 2], "strs": ["a"], "map": {"a": 1}}`)
	if n, err := Int(o.Get("n")); err != nil || n != 3 {
		t.Fatal(n, err)
	}
	for _, k := range []string{"f", "big", "strs"} {
		if _, err := Int(o.Get(k)); err == nil {
			t.Fatalf("Int(%s) should fail", k)
		}
	}
	if v, err := Ints(o.Get("ints")); err != nil || len(v) != 2 || v[1] != 2 {
		t.Fatal(v, err)
	}
	if _, err := Strings(o.Get("ints")); err == nil {
		t.Fatal("Strings of numbers should fail")
	}
	if m, err := IntMap(o.Get("map")); err != nil || m["a"] != 1 {
		t.Fatal(m, err)
	}
	if m, err := IntMap(js.Undefined()); err != nil || m != nil {
		t.Fatal(m, err)
	}
	if !Get(js.Undefined(), "x").IsUndefined() || len(Keys(o)) != 6 {
		t.Fatal("Get/Keys")
	}
	if d := Describe(js.Global().Get("Uint8Array").New(1)); d != "a Uint8Array" {
		t.Fatal(d)
	}
}
