package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/service"
)

// ToolFlags narrow the tools every caller sees.
type ToolFlags struct {
	Toolsets []string `env:"VITRINE_TOOLSETS" placeholder:"SET" help:"Serve only these toolsets: tenants, products, members, roles, audit. Default: all."`
	ReadOnly bool     `name:"read-only" env:"VITRINE_READ_ONLY" help:"Serve only the tools that change nothing."`
	Confirm  bool     `name:"confirm-destructive" env:"VITRINE_CONFIRM_DESTRUCTIVE" help:"Ask the user to confirm each delete_product, through the client (MCP elicitation), when the client can ask."`
}

func (f ToolFlags) options(o mcpserver.Options) mcpserver.Options {
	o.Toolsets, o.ReadOnly, o.ConfirmDestructive = f.Toolsets, f.ReadOnly, f.Confirm
	return o
}

// ServeCmd serves MCP over Streamable HTTP.
type ServeCmd struct {
	Addr string `default:"127.0.0.1:8080" env:"VITRINE_ADDR" placeholder:"HOST:PORT" help:"Address to listen on."`
	Demo bool   `env:"VITRINE_DEMO" help:"Fill the database with demo data first, and print each demo user's token and client configuration."`
	ToolFlags
}

// Run serves until interrupted.
func (c *ServeCmd) Run(e *env) error {
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	db, svc, err := e.open(log)
	if err != nil {
		return err
	}
	defer db.Close()
	srv, err := mcpserver.New(svc, c.options(mcpserver.Options{Logger: log, Version: Version}))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), mcpserver.HTTPPath)
	if c.Demo {
		w, err := demo.Seed(e.ctx, svc)
		if err != nil {
			ln.Close()
			return err
		}
		printDemo(e, w, url)
	}
	hs := &http.Server{
		Handler:           srv.HTTPHandler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	log.Info("serving MCP over Streamable HTTP", "url", url, "db", db.Dialect())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-e.ctx.Done():
	}
	log.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// StdioCmd serves MCP over stdio for the user of VITRINE_TOKEN. The token
// is read from the environment only, never from a flag that other users of
// the machine could see in the process list.
type StdioCmd struct {
	ToolFlags
}

// Run checks the token, then serves on stdin and stdout until the client
// closes them.
func (c *StdioCmd) Run(e *env) error {
	token := os.Getenv("VITRINE_TOKEN")
	// stdout carries the protocol: everything else goes to stderr.
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	if token == "" {
		return &usageError{"VITRINE_TOKEN is not set: create a token with \"vitrine token create --email E --name N\" and put it in VITRINE_TOKEN"}
	}
	db, svc, err := e.open(log)
	if err != nil {
		return err
	}
	defer db.Close()
	caller, err := svc.Authenticate(e.ctx, token)
	var ae *service.AuthError
	if errors.As(err, &ae) {
		return &usageError{"VITRINE_TOKEN was refused: " + ae.Reason}
	}
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(svc, c.options(mcpserver.Options{Logger: log, Version: Version, Token: token}))
	if err != nil {
		return err
	}
	log.Info("serving MCP over stdio", "user", caller.User.Email, "db", db.Dialect())
	err = srv.Run(e.ctx, &mcp.IOTransport{Reader: readCloser{e.stdin}, Writer: writeCloser{e.stdout}})
	if err != nil && e.ctx.Err() != nil {
		return nil // interrupted
	}
	return err
}

// readCloser and writeCloser let stdin and stdout serve as the transport
// without the transport closing the process's own files.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
