package httpserver

import "time"

// SetHeldCheckEvery makes the instance that holds a session look up
// whether it was ended elsewhere this often, until the returned function
// restores it.
func SetHeldCheckEvery(d time.Duration) (restore func()) {
	old := heldCheckEvery
	heldCheckEvery = d
	return func() { heldCheckEvery = old }
}
