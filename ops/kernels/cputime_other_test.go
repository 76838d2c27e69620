//go:build !js

package kernels

import "syscall"

// cpuMicros is the process's user+system CPU time in µs.
func cpuMicros() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e3
}
