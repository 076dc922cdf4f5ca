// Package sdkcost holds no code, only benchmarks: what a tools/call costs
// the official MCP Go SDK itself, on each of its HTTP paths, with a tool
// that does nothing. It is the minimal reproduction of the costs that only
// the SDK can remove (docs/benchmarks.md, "What only the SDK can fix"):
//
//	go test ./internal/sdkcost -bench . -benchmem
package sdkcost
