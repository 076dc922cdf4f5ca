package shapes

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExportTenantIn are export_tenant's arguments.
type ExportTenantIn struct {
	TenantArg
}

// ExportTenantOut is an archive of the company, written or being written.
type ExportTenantOut struct {
	ExportID  string    `json:"export_id"`
	Status    string    `json:"status" jsonschema:"running (read uri again in a moment), done or failed."`
	Bytes     int64     `json:"bytes,omitempty"`
	SHA256    string    `json:"sha256,omitempty"`
	Error     string    `json:"error,omitempty"`
	URI       string    `json:"uri" jsonschema:"Read with resources/read for 24 hours."`
	URL       string    `json:"url,omitempty" jsonschema:"Or GET it, with the same bearer token."`
	ExpiresAt time.Time `json:"expires_at"`
}

// ResourceLink is the archive's link, which the result's content carries.
func (o ExportTenantOut) ResourceLink() *mcp.ResourceLink {
	l := &mcp.ResourceLink{URI: o.URI, Name: "export-" + o.ExportID + ".zip", Title: "Company archive", MIMEType: "application/zip"}
	if o.URL != "" {
		l.Description = "Also downloadable with an HTTP GET of " + o.URL + " with the same bearer token."
	}
	return l
}
