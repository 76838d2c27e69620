package rnn

// SetFast turns the float32 path on or off and returns the previous setting.
func SetFast(on bool) bool {
	old := fastEnabled
	fastEnabled = on
	return old
}
