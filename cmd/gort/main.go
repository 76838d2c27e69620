// Command gort checks, inspects, prints, runs and compares ONNX models
// natively: `gort <check|inspect|print|run|compare|diverge|bench> model.onnx
// [options]`. The verbs live in package cli. The npm package's `gort`
// command is this program compiled for GOOS=js (js/dist/gort-cli.wasm).
package main

import (
	"os"

	"github.com/gort-dev/gort/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
