package mcpserver

import "testing"

// The tools not served yet still build their definitions.
func TestNotServedToolsBuild(t *testing.T) {
	for _, tools := range notServed {
		for _, tool := range tools() {
			if tool.Name == "" || tool.definition("") == nil {
				t.Errorf("a tool not served has no definition: %+v", tool)
			}
		}
	}
}
