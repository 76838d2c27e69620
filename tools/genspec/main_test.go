package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed table is what the generator writes from the committed
// changelogs now.
func TestGeneratedFileUpToDate(t *testing.T) {
	root = "../.."
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(root + "/" + out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go run ./tools/genspec", out)
	}
}
