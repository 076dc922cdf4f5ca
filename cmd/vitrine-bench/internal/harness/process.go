// Package harness is the machinery vitrine-bench's commands share: the
// processes they start and time (a vitrine serve, a ceiling), the
// databases they make and drop, the MCP client sessions they drive, the
// measurements they take of a scenario, and the Markdown of their targets.
// It knows no scenario.
package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SaveProfile writes the server's CPU profile over the next d to file.
func SaveProfile(ctx context.Context, addr string, d time.Duration, file string) error {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs), nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("profiler answered %s", res.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Slug turns a scenario's name into a file name.
func Slug(name string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '-'
	}, strings.ToLower(name)), "-")
}

// StartProcess runs `vitrine ARGS... --addr 127.0.0.1:PORT` and returns its
// base URL once it answers.
//
// env, when set ("GOGC=400"), is added to the process's environment.
func StartProcess(ctx context.Context, exe, db, env string, args ...string) (string, *exec.Cmd, error) {
	return StartProcessLogging(ctx, exe, db, env, io.Discard, args...)
}

// StartProcessLogging is StartProcess with the process's stderr (its log)
// written to stderr.
func StartProcessLogging(ctx context.Context, exe, db, env string, stderr io.Writer, args ...string) (string, *exec.Cmd, error) {
	port, err := FreePort()
	if err != nil {
		return "", nil, err
	}
	args = append(args, "--addr", "127.0.0.1:"+port)
	if db != "" {
		args = append(args, "--db", db)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if env != "" {
		cmd.Env = append(os.Environ(), env)
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(60 * time.Second)
	for {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			return base, cmd, nil
		}
		if time.Now().After(deadline) {
			StopProcess(cmd)
			return "", nil, fmt.Errorf("%v did not start", args)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// StopProcess interrupts a process it started and waits for its end.
func StopProcess(cmd *exec.Cmd) {
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
}

// StartToReady times a second server from its start to its first 200 at
// /readyz, on the filled database.
func StartToReady(ctx context.Context, exe, db, env string) (time.Duration, error) {
	port, err := FreePort()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, exe, "serve", "--db", db, "--addr", "127.0.0.1:"+port, "--metrics-addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	for time.Since(start) < time.Minute {
		if res, err := http.Get("http://127.0.0.1:" + port + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return 0, errors.New("the server never got ready")
}

// FreeAddr returns 127.0.0.1 and a port free a moment ago, for a
// listener of a process to start (a profiler's, say).
func FreeAddr() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return "127.0.0.1:" + port, nil
}

// FreePort returns a TCP port of 127.0.0.1 free a moment ago.
func FreePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port, nil
}

// PeakRSS reads a running process's peak resident memory (VmHWM).
func PeakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// CPUTime reads a running process's CPU time so far, user and system, from
// /proc/PID/stat (fields 14 and 15, in the kernel's USER_HZ of 100 ticks a
// second on every Linux architecture Go runs on); -1 when it cannot (a
// process just started may have spent 0).
func CPUTime(cmd *exec.Cmd) time.Duration {
	if cmd == nil || cmd.Process == nil {
		return -1
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		return -1
	}
	// The command's name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return -1
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(user+sys) * (time.Second / 100)
}

// LogWatch is a process's log, as a writer, that says when a line holding
// a text was written.
type LogWatch struct {
	mu      sync.Mutex
	pending []byte
	seen    map[string]chan struct{}
	text    []string
	// lines holds the first line holding each text.
	lines map[string]string
}

// NewLogWatch watches for lines holding any of texts.
func NewLogWatch(texts ...string) *LogWatch {
	w := &LogWatch{seen: map[string]chan struct{}{}, text: texts, lines: map[string]string{}}
	for _, t := range texts {
		w.seen[t] = make(chan struct{})
	}
	return w
}

func (w *LogWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, b...)
	for {
		i := bytes.IndexByte(w.pending, '\n')
		if i < 0 {
			break
		}
		line := string(w.pending[:i])
		w.pending = w.pending[i+1:]
		for _, t := range w.text {
			if c := w.seen[t]; strings.Contains(line, t) && c != nil {
				close(c)
				w.seen[t] = nil
				w.lines[t] = line
			}
		}
	}
	return len(b), nil
}

// Line returns the first line holding text, or "" before one is written.
func (w *LogWatch) Line(text string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines[text]
}

// Wait waits until a line holding text was written, for at most d, and
// reports whether it was.
func (w *LogWatch) Wait(text string, d time.Duration) bool {
	w.mu.Lock()
	c, ok := w.seen[text]
	w.mu.Unlock()
	if !ok {
		return false
	}
	if c == nil {
		return true
	}
	select {
	case <-c:
		return true
	case <-time.After(d):
		return false
	}
}

// WaitAny waits until a line holding one of texts was written, for at
// most d, and returns that text ("" if none was).
func (w *LogWatch) WaitAny(d time.Duration, texts ...string) string {
	cases := make([]chan struct{}, len(texts))
	w.mu.Lock()
	for i, t := range texts {
		c, ok := w.seen[t]
		if ok && c == nil {
			w.mu.Unlock()
			return t
		}
		cases[i] = c
	}
	w.mu.Unlock()
	done := make(chan string, len(texts))
	stop := make(chan struct{})
	defer close(stop)
	for i, c := range cases {
		if c == nil {
			continue // not watched
		}
		go func() {
			select {
			case <-c:
				done <- texts[i]
			case <-stop:
			}
		}()
	}
	select {
	case t := <-done:
		return t
	case <-time.After(d):
		return ""
	}
}

// WaitPeakRSS waits for a started process, reading its peak resident
// memory (VmHWM) every 5 ms as it runs, and returns the last read with
// Wait's error. Not the rusage's maxrss of the child: the kernel carries
// the larger of the parent's and the child's high-water mark across exec,
// so that a child of a benchmark holding 50 MiB reports 50 MiB at least.
func WaitPeakRSS(cmd *exec.Cmd) (int64, error) {
	peak := make(chan int64)
	stop := make(chan struct{})
	go func() {
		var max int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if n := PeakRSS(cmd.Process.Pid); n > max {
				max = n
			}
			select {
			case <-stop:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	return <-peak, err
}

// LoadAverage is the machine's load average over 1, 5 and 15 minutes,
// as /proc/loadavg says it ("" where there is none).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
