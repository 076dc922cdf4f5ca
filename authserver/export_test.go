package authserver

// SetLimitTableSize makes the addresses each limit of servers built from
// now on keeps n, until the returned function restores it.
func SetLimitTableSize(n int) (restore func()) {
	old := limitTableSize
	limitTableSize = n
	return func() { limitTableSize = old }
}
