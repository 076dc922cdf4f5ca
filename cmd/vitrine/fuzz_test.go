package main

import (
	"strings"
	"testing"
)

// Whatever file the operator imports, its rows are read or refused with a
// clear error: never a panic or a hang.
func FuzzReadRows(f *testing.F) {
	for _, seed := range []string{
		"sku,name,price\nA-1,Caneta,2.50\n",
		"sku,name,price,stock,description\nA,\"Esferográfica, 1 mm\",1,10,\"x\"\"y\"\n",
		"\uFEFFSKU,Name,Price,Status\nA,B,1,archived\n",
		"sku,name\nA,B\n", "sku,name,price,colour\n", "", "sku,name,price\n\"unterminated\n",
		"sku,name,price,stock\nA,B,1,lots\n", "id,sku,name,price,version,created_at\nx,A,B,1,2,now\n",
	} {
		f.Add(seed, "csv")
	}
	for _, seed := range []string{`{"sku":"A","name":"B","price":"1","stock":3}`, "{}\n\n[1]", `{"stock":"x"}`, "not json"} {
		f.Add(seed, "jsonl")
	}
	f.Fuzz(func(t *testing.T, data, format string) {
		if format != "jsonl" {
			format = "csv"
		}
		rows, err := readRows(strings.NewReader(data), format)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without words")
			}
			return
		}
		n := 0
		for row, err := range rows {
			if err != nil {
				if !strings.HasPrefix(err.Error(), "line ") {
					t.Fatalf("an error that names no line: %v", err)
				}
				return
			}
			if row.line < 1 || n > len(data)+1 {
				t.Fatalf("row %+v after %d rows of %d bytes", row, n, len(data))
			}
			n++
		}
	})
}
