// Package errs defines gort's error type and its stable codes.
//
// Every error that leaves the public API is an *Error with a Code that users
// can match on (the JS package exposes it as err.code). Codes never change
// meaning once published; new situations get new codes.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, user-matchable error category.
type Code string

const (
	// BadModel: the model bytes or graph are malformed (truncated protobuf,
	// dangling names, cycles, inconsistent initializers, ...).
	BadModel Code = "GORT_BAD_MODEL"
	// UnsupportedOp: an operator (or the version the model's opset needs) is
	// not implemented. Loading still succeeds; running the node fails.
	UnsupportedOp Code = "GORT_UNSUPPORTED_OP"
	// InvalidFeed: a feed given to Run has the wrong name, dtype or shape.
	InvalidFeed Code = "GORT_INVALID_FEED"
	// InvalidArgument: an API argument (not a feed) is wrong, e.g. an unknown output name.
	InvalidArgument Code = "GORT_INVALID_ARGUMENT"
	// TooLarge: a tensor would exceed the memory budget or its element count overflows.
	TooLarge Code = "GORT_TOO_LARGE"
	// ExternalData: the model refers to external tensor data that was not provided.
	ExternalData Code = "GORT_EXTERNAL_DATA"
	// Runtime: a node failed while running (incompatible shapes, bad index values, ...).
	Runtime Code = "GORT_RUNTIME"
	// Aborted: the run was cancelled by the caller.
	Aborted Code = "GORT_ABORTED"
	// Internal: a bug in gort (a recovered panic). Please report it.
	Internal Code = "GORT_INTERNAL"
	// DeviceLost: an accelerator (WebGPU device) went away mid-run. The
	// executor catches it and reruns on the CPU; it reaches callers only
	// when no CPU fallback exists.
	DeviceLost Code = "GORT_DEVICE_LOST"
	// WorkerLost: a worker thread failed or stopped while computing part
	// of a step. The caller computes that part itself and stops using the
	// worker; it reaches callers only in logs.
	WorkerLost Code = "GORT_WORKER_LOST"
)

// Error is the error type of the whole runtime. Node and Tensor name the place
// in the model the error is about, when there is one.
type Error struct {
	Code   Code
	Node   string // node name (or "OpType #index" when unnamed)
	Tensor string // tensor / value / input name
	Msg    string
	Err    error // wrapped cause, may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	if e.Node != "" {
		fmt.Fprintf(&b, "node %s: ", e.Node)
	}
	if e.Tensor != "" {
		fmt.Fprintf(&b, "%q: ", e.Tensor)
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, errs.Code(...)) style matching possible through
// sentinel errors created with New(code, "").
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Node == "" && t.Tensor == "" && t.Code == e.Code
}

// New returns an error with the given code and formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Sentinel returns a value to use with errors.Is to test an error's code.
func Sentinel(code Code) error { return &Error{Code: code} }

// CodeOf returns the code of err, or Internal if err is not a gort error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// AtNode returns a copy of err located at the named node. Errors that are not
// *Error become Runtime errors wrapping the original.
func AtNode(err error, node string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.Node == "" {
			c.Node = node
		}
		return &c
	}
	return &Error{Code: Runtime, Node: node, Msg: err.Error()}
}

// WithTensor returns e with its Tensor field set (e is modified and returned).
func (e *Error) WithTensor(name string) *Error { e.Tensor = name; return e }

// WithNode returns e with its Node field set (e is modified and returned).
func (e *Error) WithNode(name string) *Error { e.Node = name; return e }
