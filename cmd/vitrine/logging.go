package main

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// LogFlags choose how the binary logs (to stderr: stdout may carry the
// protocol).
type LogFlags struct {
	LogFormat string `enum:"auto,text,json" default:"auto" help:"Log format: text, json, or auto (text on a terminal, JSON otherwise)."`
	LogLevel  string `enum:"debug,info,warn,error" default:"info" help:"Least severe level logged."`
}

// logger returns the application's logger and the one for the MCP SDK,
// which speaks only from warn on unless debug is asked for: its per-session
// chatter is no operator's business.
func (f LogFlags) logger(w io.Writer) (app, sdk *slog.Logger) {
	var level slog.Level
	level.UnmarshalText([]byte(f.LogLevel))
	text := f.LogFormat == "text"
	if f.LogFormat == "auto" {
		file, ok := w.(*os.File)
		text = ok && term.IsTerminal(int(file.Fd()))
	}
	handler := func(min slog.Level) slog.Handler {
		opts := &slog.HandlerOptions{Level: min, ReplaceAttr: durationText}
		if text {
			return slog.NewTextHandler(w, opts)
		}
		return slog.NewJSONHandler(w, opts)
	}
	return slog.New(handler(level)), slog.New(handler(max(level, slog.LevelWarn)))
}

// discard is a logger for commands that have nothing to say but errors.
var discard = slog.New(slog.DiscardHandler)

// durationText writes a duration as Go writes it ("30s"), not as the
// nanoseconds slog's JSON would ("30000000000").
func durationText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}
