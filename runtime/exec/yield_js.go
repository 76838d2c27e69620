//go:build js

package exec

import "runtime"

// schedYield lets the Go scheduler run other goroutines (timers included):
// WebAssembly has one thread and no preemption.
func schedYield() { runtime.Gosched() }
