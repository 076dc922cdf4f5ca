// Package insider proves that a caller is one of the service's own
// packages. Only a package under service/ may import it, so only they can
// make a Pass, and only they can call what asks for one
// (service.Service.Store): an adapter reaches the store through the
// service's operations, never around them, and the compiler says so.
package insider

// Pass is the proof, held by value: service/catalog passes Pass{}.
type Pass struct{}
