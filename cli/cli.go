// Package cli is gort's command line: the verbs below, their flags, output
// and exit codes. It is the one implementation behind both commands: the
// native binary (cmd/gort) and the npm package's `gort` (js/bin/gort.mjs),
// which runs cmd/gort compiled for GOOS=js (dist/gort-cli.wasm); there,
// Go's os package reads and writes files and stdout/stderr through Node's
// fs.
//
//	gort check   model.onnx             every problem of the model, with stable codes
//	gort inspect model.onnx             inputs, outputs, opsets, ops, what gort cannot run
//	gort print   model.onnx             the graph with inferred types and shapes
//	gort run     model.onnx [inputs]    run on given or random inputs
//	gort compare model.onnx [inputs] --expected ...   compare outputs with expected ones
//	gort diverge model.onnx [inputs] --reference ...  the first node whose output differs
//	gort bench   model.onnx [inputs]    cold create, first run, median and p90 of N runs
//
// Every verb takes --help and --json. Exit codes: 0 ok, 1 the check or the
// comparison failed (or the run did), 2 usage error or unreadable input.
package cli

import (
	"fmt"
	"io"
	"os"

	_ "github.com/gort-dev/gort/ops" // registers the operators
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

type verb struct {
	name, args, summary string
	run                 func(e *env, args []string) int
}

var verbs []verb

func init() {
	verbs = []verb{
		{"check", "model.onnx", "check the model and list every finding (errors and warnings)", cmdCheck},
		{"inspect", "model.onnx", "inputs, outputs, opsets, op counts, shape coverage and the nodes gort cannot run", cmdInspect},
		{"info", "model.onnx", "same as inspect", cmdInspect},
		{"print", "model.onnx", "print the graph with inferred types and shapes (text or --json)", cmdPrint},
		{"run", "model.onnx", "run the model on given inputs (or random ones) and summarize the outputs", cmdRun},
		{"compare", "model.onnx", "run the model and compare its outputs with expected ones", cmdCompare},
		{"diverge", "model.onnx", "name the first node whose output differs from a reference", cmdDiverge},
		{"bench", "model.onnx", "load once, run N times: cold create, first run, median and p90", cmdBench},
	}
}

// env is where a command writes; tests substitute buffers.
type env struct {
	out, err io.Writer
	color    bool // colour the output (stdout is a terminal)
	progress bool // show progress on stderr (stderr is a terminal)
}

// Main runs the command line args (without the program name) on the
// process's stdout and stderr and returns the exit code. Colour only when
// stdout is a terminal and NO_COLOR is unset; progress on stderr only when
// it is a terminal.
func Main(args []string) int {
	e := &env{out: os.Stdout, err: os.Stderr, color: isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "", progress: isTerminal(os.Stderr)}
	return e.main(args)
}

// Run runs the command line args writing to stdout and stderr, without
// colour or progress.
func Run(args []string, stdout, stderr io.Writer) int {
	return (&env{out: stdout, err: stderr}).main(args)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (e *env) main(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		e.usage(e.out)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, v := range verbs {
		if v.name == args[0] {
			return v.run(e, args[1:])
		}
	}
	fmt.Fprintf(e.err, "gort: unknown command %q\n\n", args[0])
	e.usage(e.err)
	return exitUsage
}

func (e *env) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gort <command> model.onnx [options]   (gort <command> --help for its options)")
	fmt.Fprintln(w)
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-8s %s\n", v.name, v.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 check or comparison failed, 2 usage error or unreadable input.")
}
