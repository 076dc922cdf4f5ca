package mcpserver

import (
	"context"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/views"
	"github.com/vitrine/vitrine/service"
)

// addViews serves the views of MCP Apps (package views) as resources. A
// view is the same for everyone and changes only with a release; reading
// one still goes through the pipeline, as every call does.
func (s *Server) addViews() {
	for _, v := range views.All {
		s.mcp.AddResource(&mcp.Resource{
			URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: views.MIMEType, Meta: views.Meta(s.imagesOrigin()),
		}, s.readView)
	}
}

func (s *Server) readView(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	out, requestID, err := s.handle(ctx, "resource read", "resources/read", req, func(context.Context, *service.Service, *vitrine.Caller) (any, about, error) {
		html := views.HTML(uri, s.imagesOrigin())
		if html == "" {
			return nil, about{target: uri}, vitrine.NotFound("View")
		}
		return readResult(untilDeploy, &mcp.ResourceContents{URI: uri, MIMEType: views.MIMEType, Text: html, Meta: views.Meta(s.imagesOrigin())}), about{target: uri}, nil
	})
	if err != nil {
		return nil, resourceError(err, requestID, uri)
	}
	return out.(*mcp.ReadResourceResult), nil
}

// imagesOrigin is the origin of the images the server serves itself (the
// demo's, beside its icons) when "https:" does not already allow it: that
// of an http:// server; "" otherwise.
func (s *Server) imagesOrigin() string {
	u, err := url.Parse(s.opts.IconsURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
