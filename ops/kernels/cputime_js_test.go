//go:build js

package kernels

import "syscall/js"

// cpuMicros is the process's user+system CPU time in µs (Node's
// process.cpuUsage): on a shared machine it varies far less than wall time.
func cpuMicros() float64 {
	u := js.Global().Get("process").Call("cpuUsage")
	return u.Get("user").Float() + u.Get("system").Float()
}
