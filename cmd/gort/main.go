// Command gort checks, inspects, prints, runs and compares ONNX models
// natively: `gort <check|inspect|print|run|compare|diverge|bench> model.onnx
// [options]`. The verbs live in package cli, which the npm package's `gort`
// command runs too (compiled into gort.wasm).
package main

import (
	"os"

	"github.com/gort-dev/gort/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
