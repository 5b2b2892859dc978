package main

// Ctrl-C on a multi-million-node graph: the run ends within a second,
// whatever it is doing (loading, building, iterating); a second signal exits
// at once.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// writeBigData writes a data directory whose acl.txt is a generated graph
// of about n nodes: every node but each tenth cites one pseudo-random other
// (numeric ids, "u v" lines; 0.9n edges), with a papers.tsv of one row and
// SHA256SUMS. One edge a node keeps the file (40 MB) and the load short.
func writeBigData(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "acl.txt"))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	x := uint64(0x9e3779b97f4a7c15)
	var line []byte
	for u := 0; u < n; u++ {
		if u%10 == 0 {
			continue
		}
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		line = strconv.AppendInt(line[:0], int64(u), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(x%uint64(n)), 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	papers := "id\tyear\ttitle\n1\t2000\tone\n"
	os.WriteFile(filepath.Join(dir, "papers.tsv"), []byte(papers), 0o644)
	sums := fmt.Sprintf("%x  acl.txt\n%x  papers.tsv\n", h.Sum(nil), sha256.Sum256([]byte(papers)))
	os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums), 0o644)
	return dir
}

// TestCtrlCOnABigGraph starts `prlab report` on a 3M-node graph and sends
// SIGINT at two moments: while the edge list is being read, and a second
// into the oracle's 1000 fixed iterations on it. Each time the process must
// exit within 1 s of the signal, with status 1 and "interrupted", and write
// nothing. (Each run loads the graph again: about 10 s on the loaded 2-core VM.)
func TestCtrlCOnABigGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 3M-node graph and runs the binary")
	}
	bin := buildCLI(t)
	start := time.Now()
	data := writeBigData(t, 3_000_000)
	t.Logf("generated the 3M-node edge list in %v", time.Since(start))
	out := filepath.Join(t.TempDir(), "r")

	cases := []struct {
		name    string
		trigger string        // progress line prefix to wait for ("" = the start)
		delay   time.Duration // after the trigger
	}{
		{"while loading", "", 300 * time.Millisecond},
		{"inside the iterations", "correctness,", 1000 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, "report", "--data", data, "--out", out, "--cases", "real", "--iterations", "1000", "--runs", "1000")
			pipe, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var mu sync.Mutex
			var log strings.Builder
			seen := make(chan struct{})
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				once := sync.Once{}
				if c.trigger == "" {
					once.Do(func() { close(seen) })
				}
				sc := bufio.NewScanner(pipe)
				for sc.Scan() {
					mu.Lock()
					log.WriteString(sc.Text() + "\n")
					mu.Unlock()
					if strings.HasPrefix(sc.Text(), c.trigger) {
						once.Do(func() { close(seen) })
					}
				}
			}()
			select {
			case <-seen:
			case <-ended:
				t.Fatalf("ended before %q:\n%s", c.trigger, log.String())
			case <-time.After(3 * time.Minute):
				t.Fatalf("no %q in 3 minutes", c.trigger)
			}
			time.Sleep(c.delay)
			mu.Lock()
			before := log.String()
			mu.Unlock()
			if c.trigger == "" && strings.Contains(before, "loaded ") {
				t.Fatalf("the graph was already loaded %v after the start; the test no longer interrupts the load", c.delay)
			}
			var nodes int
			if _, after, ok := strings.Cut(before, "loaded "); ok {
				fmt.Sscanf(after, "%d nodes", &nodes)
			}
			if c.trigger != "" && nodes < 2_500_000 {
				t.Fatalf("the graph has %d nodes, want millions:\n%s", nodes, before)
			}
			sent := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			exited := make(chan error, 1)
			go func() { <-ended; exited <- cmd.Wait() }()
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s after SIGINT:\n%s", log.String())
			}
			took := time.Since(sent)
			t.Logf("exited %v after SIGINT (status %d)", took.Round(time.Millisecond), exitCode(err))
			if took > time.Second {
				t.Errorf("exited %v after SIGINT, want under 1 s; stderr:\n%s", took, log.String())
			}
			if got := exitCode(err); got != 1 {
				t.Errorf("exit status %d, want 1", got)
			}
			if !strings.Contains(log.String(), "interrupted") {
				t.Errorf("stderr does not say the run was interrupted:\n%s", log.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written by an interrupted run", out)
			}
		})
	}
}

// TestSecondSignalExitsAtOnce: the first SIGINT cancels the run, the second
// calls exit without waiting for the run to return.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	cancelled := make(chan struct{})
	exited := make(chan struct{})
	var stderr syncBuffer
	stop := interrupts(func() { close(cancelled) }, &stderr, func() { close(exited) })
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGINT did not cancel")
	}
	select {
	case <-exited:
		t.Fatal("exit after one signal")
	case <-time.After(50 * time.Millisecond):
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the second SIGINT did not exit")
	}
	if s := stderr.String(); !strings.Contains(s, "send it again to exit at once") || !strings.Contains(s, "second signal: exiting now") {
		t.Errorf("stderr %q", s)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
