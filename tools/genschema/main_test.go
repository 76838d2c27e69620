package main

import (
	"bytes"
	"os"
	"testing"
)

// TestUpToDate regenerates the schema table in memory and compares it with the
// committed file, so a changed generator or changelog cannot go unnoticed.
func TestUpToDate(t *testing.T) {
	got, err := Generate(os.DirFS("../.."), Sources)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../" + Output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go run ./tools/genschema", Output)
	}
}

func TestParseArity(t *testing.T) {
	cases := []struct {
		text                   string
		minIn, maxIn, min, max int
	}{
		{"### <a name=\"X-1\"></a>**X-1**</a>\n#### Inputs (2 - &#8734;)\n\n<dt><tt>a</tt> (variadic) : T</dt>\n#### Outputs\n<dt><tt>y</tt> : T</dt>\n<dt><tt>z</tt> (optional) : T</dt>\n", 2, -1, 1, 2},
		{"### <a name=\"X-1\"></a>**X-1**</a>\n#### Inputs\n\n<dt><tt>a</tt> : T</dt>\n<dt><tt>b</tt> (optional) : T</dt>\n<dt><tt>c</tt> : tensor(int64)</dt>\n#### Outputs\n<dt><tt>y</tt> (variadic) : T</dt>\n", 3, 3, 1, -1},
	}
	for i, c := range cases {
		ops, err := parse(bytes.NewReader([]byte(c.text)))
		if err != nil || len(ops) != 1 {
			t.Fatalf("case %d: %v %d", i, err, len(ops))
		}
		o := ops[0]
		if o.minIn != c.minIn || o.maxIn != c.maxIn || o.minOut != c.min || o.maxOut != c.max {
			t.Errorf("case %d: got %d-%d / %d-%d", i, o.minIn, o.maxIn, o.minOut, o.maxOut)
		}
	}
	if got := splitTypes("map(int64, string), tensor(float)"); len(got) != 2 || got[0] != "map(int64,string)" {
		t.Errorf("splitTypes: %q", got)
	}
}
