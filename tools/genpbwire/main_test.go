//go:build !gortlite

package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed files are what the generator writes now.
func TestGeneratedFilesUpToDate(t *testing.T) {
	dir = "../../runtime/onnxpb"
	for name, want := range generate() {
		got, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("runtime/onnxpb/%s is stale: run go run ./tools/genpbwire", name)
		}
	}
}
