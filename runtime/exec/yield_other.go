//go:build !js

package exec

// schedYield is not needed where goroutines are preempted.
func schedYield() {}
