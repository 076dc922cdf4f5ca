package mcpserver_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Every call writes one log line with the same fields in the same order:
// its request id, the tool, how long it took, its outcome, who called
// and, in a tenant, which one; refused outside any tenant, the tenant it
// tried.
func TestCallLogLine(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	cs := w.session("http", owner)
	p := testkit.OK[product](t, cs, "get_product", map[string]any{"tenant_id": technova, "sku": "NB-DELL-5440"})
	testkit.Call(t, cs, "get_product", map[string]any{"tenant_id": "00000000-0000-7000-8000-000000000000", "id": p.ID})
	user := w.userID(owner)
	want := []*regexp.Regexp{
		regexp.MustCompile(`^time=\S+ level=INFO msg="tool call" request_id=[0-9a-f-]{36} tool=get_product duration=\S+ outcome=ok user_id=` + user + ` tenant_id=` + technova + `$`),
		regexp.MustCompile(`^time=\S+ level=INFO msg="tool call" request_id=[0-9a-f-]{36} tool=get_product duration=\S+ outcome=Error user_id=` + user + ` target_id=\S+$`),
	}
	var got []string
	for _, l := range strings.Split(w.log.String(), "\n") {
		if strings.Contains(l, "tool=get_product") {
			got = append(got, l)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("log lines of get_product:\n%s", strings.Join(got, "\n"))
	}
	for i, re := range want {
		if !re.MatchString(got[i]) {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], re)
		}
	}
}
