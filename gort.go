// Package gort is the entry point for Go programs: the runtime (package
// runtime) with the full operator set (package ops) registered.
//
//	s, err := gort.Load(modelBytes, nil)
//	out, err := s.Run(ctx, map[string]tensor.Value{"x": x})
//
// The core packages (runtime and below) know nothing of particular
// operators; a program that wants a smaller operator set imports
// runtime and registers its own ops in a registry instead.
package gort

import (
	"github.com/gort-dev/gort/runtime"

	_ "github.com/gort-dev/gort/ops" // registers every operator in op.Default
)

// Session, Options and RunOptions are the runtime's (see package runtime).
type (
	Session    = runtime.Session
	Options    = runtime.Options
	RunOptions = runtime.RunOptions
)

// Load decodes, validates and compiles a model (runtime.Load with every
// operator available).
func Load(data []byte, opts *Options) (*Session, error) { return runtime.Load(data, opts) }
