package mcpserver

import (
	"testing"
)

// A result's audit target comes from the typed result: a record's id,
// none for a list.
func TestResultID(t *testing.T) {
	type inner struct {
		ID string `json:"id"`
	}
	type outer struct {
		inner
		Name string `json:"name"`
	}
	type list struct {
		Items []inner `json:"items"`
	}
	for _, tc := range []struct {
		out  any
		want string
	}{{&inner{"a"}, "a"}, {outer{inner{"b"}, "n"}, "b"}, {&list{[]inner{{"c"}}}, ""}, {nil, ""}, {(*inner)(nil), ""}, {"x", ""}} {
		if got := resultID(tc.out); got != tc.want {
			t.Errorf("resultID(%#v) = %q, want %q", tc.out, got, tc.want)
		}
	}
}
