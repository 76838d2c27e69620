package main

import (
	"bytes"
	"os"
	"testing"
)

func TestGeneratedFileUpToDate(t *testing.T) {
	root = "../.."
	got, err := os.ReadFile(root + "/" + out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, generate()) {
		t.Errorf("%s is stale: run go run ./tools/genjsoptions", out)
	}
}
