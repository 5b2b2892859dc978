package docker

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The scripts run here with stand-ins for what a GPU host has (nvidia-smi,
// nvcc, jupyter) and a stand-in checkout whose Makefile records how
// `make cuda-lib` was called.

const fakeMakefile = `cuda-lib:
	mkdir -p build && printf '%s\n' "$(CUDA_ARCHS)" >>build/calls && : >build/libprlab_cuda.so
`

type sandbox struct {
	t    *testing.T
	root string // the stand-in checkout
	bin  string // stand-in commands, first on PATH
	sys  string // the system's commands but the GPU ones, after bin on PATH
	home string
}

// hidden are the real commands the scripts must not see here (a CPU machine
// may have Debian's nvidia-cuda-toolkit or a driver's nvidia-smi).
var hidden = map[string]bool{"nvidia-smi": true, "nvcc": true, "jupyter": true}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := os.Stat("/usr/local/cuda/bin/nvcc"); err == nil {
		t.Skip("a real /usr/local/cuda/bin/nvcc exists (install.sh looks there too): these tests use stand-ins")
	}
	s := &sandbox{t: t, root: t.TempDir(), bin: t.TempDir(), sys: t.TempDir(), home: t.TempDir()}
	// PATH for the scripts: the stand-ins, then links to every command on
	// this machine's PATH except the hidden ones.
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			link := filepath.Join(s.sys, e.Name())
			if hidden[e.Name()] {
				continue
			}
			if _, err := os.Lstat(link); err == nil {
				continue
			}
			os.Symlink(filepath.Join(dir, e.Name()), link)
		}
	}
	s.write(filepath.Join(s.root, "Makefile"), fakeMakefile, 0o644)
	s.write(filepath.Join(s.root, "go.mod"), "module example.com/fake\n\ngo 1.26\n", 0o644)
	return s
}

func (s *sandbox) write(path, body string, mode os.FileMode) {
	s.t.Helper()
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		s.t.Fatal(err)
	}
}

// tool puts an executable stand-in on PATH.
func (s *sandbox) tool(name, script string) {
	s.write(filepath.Join(s.bin, name), "#!/usr/bin/env bash\n"+script, 0o755)
}

// gpus makes nvidia-smi report these compute capabilities, one GPU each,
// honouring -i INDEX[,INDEX] as the real one does.
func (s *sandbox) gpus(caps ...string) {
	s.tool("nvidia-smi", `caps=(`+strings.Join(caps, " ")+`)
sel=""
for ((i = 1; i <= $#; i++)); do [[ ${!i} == -i ]] && { j=$((i + 1)); sel=${!j}; }; done
case "$*" in
*compute_cap*)
	if [[ -z $sel ]]; then printf '%s\n' "${caps[@]}"; exit 0; fi
	IFS=, read -ra ids <<<"$sel"
	for id in "${ids[@]}"; do printf '%s\n' "${caps[$id]}"; done ;;
*) echo "GPU 0: stand-in" ;;
esac
`)
}

// run runs a script from this folder with env added to a minimal environment.
func (s *sandbox) run(script string, env []string, args ...string) (stdout, stderr string, err error) {
	s.t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append([]string{
		"PATH=" + s.bin + ":" + s.sys,
		"HOME=" + s.home,
		"PRLAB_ROOT=" + s.root,
		"PRLAB_PREFIX=" + filepath.Join(s.home, "prefix"),
	}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

func (s *sandbox) calls() string {
	data, _ := os.ReadFile(filepath.Join(s.root, "build", "calls"))
	return string(data)
}

func TestInstallCUDAStep(t *testing.T) {
	s := newSandbox(t)
	cuda := func(env ...string) string {
		t.Helper()
		_, stderr, err := s.run("install.sh", env, "--root", s.root, "--only", "cuda")
		if err != nil {
			t.Fatalf("install.sh --only cuda: %v\n%s", err, stderr)
		}
		return stderr
	}

	// No nvcc: nothing is built, and it says why.
	if msg := cuda(); !strings.Contains(msg, "no nvcc") || s.calls() != "" {
		t.Fatalf("without nvcc: %q, calls %q", msg, s.calls())
	}
	s.tool("nvcc", "echo 'Cuda compilation tools, release 13.0, V13.0.88'\n")

	// nvcc but no GPU visible and no CUDA_ARCHS: skipped, with the way out.
	if msg := cuda(); !strings.Contains(msg, "no GPU visible") || !strings.Contains(msg, "CUDA_ARCHS=90") || s.calls() != "" {
		t.Fatalf("without a GPU: %q, calls %q", msg, s.calls())
	}

	// Two H200s and an A100-class GPU: one build for compute capabilities
	// 8.0 and 9.0 in the Makefile's form.
	s.gpus("9.0", "8.0", "9.0")
	cuda()
	if got := s.calls(); got != "80 90\n" {
		t.Fatalf("make cuda-lib CUDA_ARCHS=%q, want \"80 90\"", got)
	}
	// Built for these archs already: not again.
	if msg := cuda(); !strings.Contains(msg, "already built for 80 90") || s.calls() != "80 90\n" {
		t.Fatalf("second run: %q, calls %q", msg, s.calls())
	}
	// CUDA_ARCHS overrides the detection, and a different set rebuilds.
	cuda("CUDA_ARCHS=75")
	if got := s.calls(); got != "80 90\n75\n" {
		t.Fatalf("with CUDA_ARCHS=75: calls %q", got)
	}
	// A new nvcc rebuilds too.
	s.tool("nvcc", "echo 'Cuda compilation tools, release 13.1, V13.1.10'\n")
	cuda("CUDA_ARCHS=75")
	if got := s.calls(); got != "80 90\n75\n75\n" {
		t.Fatalf("after an nvcc change: calls %q", got)
	}

	// CUDA_VISIBLE_DEVICES picks the GPUs the build is for; empty or -1
	// hides them all.
	os.RemoveAll(filepath.Join(s.root, "build"))
	cuda("CUDA_VISIBLE_DEVICES=1")
	if got := s.calls(); got != "80\n" {
		t.Fatalf("CUDA_VISIBLE_DEVICES=1: calls %q, want 80", got)
	}
	for _, v := range []string{"", "-1"} {
		if msg := cuda("CUDA_VISIBLE_DEVICES=" + v); !strings.Contains(msg, "no GPU visible") {
			t.Fatalf("CUDA_VISIBLE_DEVICES=%q: %q", v, msg)
		}
	}

	// --cpu-only never builds.
	_, stderr, err := s.run("install.sh", nil, "--root", s.root, "--only", "cuda", "--cpu-only")
	if err != nil || !strings.Contains(stderr, "skipped (--cpu-only)") {
		t.Fatalf("--cpu-only: %v %q", err, stderr)
	}

	// A Makefile that does not produce the library is an error.
	s.write(filepath.Join(s.root, "Makefile"), "cuda-lib:\n\t@true\n", 0o644)
	os.Remove(filepath.Join(s.root, "build", "libprlab_cuda.so"))
	_, stderr, err = s.run("install.sh", []string{"CUDA_ARCHS=86"}, "--root", s.root, "--only", "cuda")
	if err == nil || !strings.Contains(stderr, "did not produce") {
		t.Fatalf("a cuda-lib target that builds nothing: err %v, %q", err, stderr)
	}
}

func TestInstallArguments(t *testing.T) {
	s := newSandbox(t)
	for _, args := range [][]string{{"--only", "gpu"}, {"--skip", "nope"}, {"--bogus"}} {
		_, stderr, err := s.run("install.sh", nil, args...)
		if err == nil || !strings.Contains(stderr, "error:") {
			t.Errorf("install.sh %v: want an error, got %v %q", args, err, stderr)
		}
	}
	out, _, err := s.run("install.sh", nil, "--help")
	if err != nil || !strings.Contains(out, "--cpu-only") || !strings.Contains(out, "--offline") {
		t.Errorf("--help: %v %q", err, out)
	}
	// --offline never downloads: gopls and jupyterlab are skipped, not run.
	_, stderr, err := s.run("install.sh", nil, "--root", s.root, "--only", "gopls,jupyterlab", "--offline")
	if err != nil || strings.Count(stderr, "skipped (--offline)") != 2 {
		t.Errorf("--offline: %v %q", err, stderr)
	}
}

func TestEntrypoint(t *testing.T) {
	s := newSandbox(t)
	s.tool("jupyter", `printf 'ARGS %s\n' "$*"
printf 'TOKEN %s\n' "$JUPYTER_TOKEN"
printf 'PRLAB_TOKEN %s\n' "${PRLAB_JUPYTER_TOKEN-unset}"
`)

	// With arguments it runs them, after the CUDA step (the graph is bundled:
	// there is no data step).
	out, stderr, err := s.run("entrypoint.sh", nil, "echo", "ran", "prlab report")
	if err != nil || out != "ran prlab report\n" {
		t.Fatalf("entrypoint with arguments: %v, out %q\n%s", err, out, stderr)
	}
	if !strings.Contains(stderr, "no nvcc") {
		t.Errorf("CUDA step without nvcc: %q", stderr)
	}

	// A GPU and nvcc: the library is built for it before the command runs.
	s.gpus("9.0")
	s.tool("nvcc", "echo 'Cuda compilation tools, release 13.0, V13.0.88'\n")
	if _, stderr, err := s.run("entrypoint.sh", nil, "true"); err != nil || s.calls() != "90\n" {
		t.Fatalf("entrypoint on a GPU host: %v, calls %q\n%s", err, s.calls(), stderr)
	}
	// PRLAB_SKIP_CUDA skips the CUDA step.
	os.RemoveAll(filepath.Join(s.root, "build"))
	if _, stderr, err := s.run("entrypoint.sh", []string{"PRLAB_SKIP_CUDA=1"}, "true"); err != nil || s.calls() != "" ||
		!strings.Contains(stderr, "not building") {
		t.Fatalf("skips: %v, calls %q\n%s", err, s.calls(), stderr)
	}

	// A failing step warns and the container still starts.
	s.write(filepath.Join(s.root, "Makefile"), "cuda-lib:\n\tfalse\n", 0o644)
	os.RemoveAll(filepath.Join(s.root, "build"))
	out, stderr, err = s.run("entrypoint.sh", nil, "echo", "still")
	if err != nil || out != "still\n" || strings.Count(stderr, "WARNING") != 1 {
		t.Fatalf("failing steps: %v, out %q\n%s", err, out, stderr)
	}

	skip := []string{"PRLAB_SKIP_CUDA=1"}
	// No arguments: JupyterLab on 8888 with a generated token, printed.
	for _, env := range [][]string{nil, {"PRLAB_JUPYTER_TOKEN="}} {
		out, stderr, err := s.run("entrypoint.sh", append(env, skip...))
		if err != nil {
			t.Fatalf("jupyter start: %v\n%s", err, stderr)
		}
		tok := regexp.MustCompile(`(?m)^TOKEN ([0-9a-f]*)$`).FindStringSubmatch(out)
		if tok == nil || len(tok[1]) != 48 {
			t.Fatalf("generated token: %q", out)
		}
		if !strings.Contains(stderr, "token="+tok[1]) {
			t.Errorf("the generated token is not printed: %q", stderr)
		}
		for _, want := range []string{"ARGS lab ", "--ServerApp.ip=0.0.0.0", "--ServerApp.port=8888", "--ServerApp.port_retries=0", "--no-browser", "PRLAB_TOKEN unset"} {
			if !strings.Contains(out, want) {
				t.Errorf("jupyter start: no %q in %q", want, out)
			}
		}
		if strings.Contains(out, "allow_origin") {
			t.Errorf("allow_origin set without PRLAB_JUPYTER_ALLOW_ORIGIN: %q", out)
		}
	}
	// Two starts get different tokens.
	a, _, _ := s.run("entrypoint.sh", skip)
	b, _, _ := s.run("entrypoint.sh", skip)
	if a == b {
		t.Error("two starts generated the same token")
	}
	// A token from the environment is used and not printed; Colab's origin.
	out, stderr, err = s.run("entrypoint.sh", append([]string{"PRLAB_JUPYTER_TOKEN=s3cret-tok",
		"PRLAB_JUPYTER_ALLOW_ORIGIN=https://colab.research.google.com"}, skip...))
	if err != nil || !strings.Contains(out, "TOKEN s3cret-tok\n") || strings.Contains(stderr, "s3cret-tok") {
		t.Fatalf("given token: %v out %q stderr %q", err, out, stderr)
	}
	if !strings.Contains(out, "--ServerApp.allow_origin=https://colab.research.google.com") {
		t.Errorf("allow_origin: %q", out)
	}
}

// fakeGoTarball is a stand-in for go$VERSION.linux-$ARCH.tar.gz: a go/ tree
// whose bin/go answers `go env GOVERSION`.
func fakeGoTarball(t *testing.T, version string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name, body string
		mode       int64
	}{
		{"go/VERSION", "go" + version + "\n", 0o644},
		{"go/bin/go", "#!/usr/bin/env bash\n[[ \"$1 $2\" == \"env GOVERSION\" ]] && echo go" + version + "\n", 0o755},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// The go step's download path (go.dev cannot be reached from CI): a stand-in
// curl serves a tarball; its sha256 must match versions.env before anything
// is unpacked.
func TestInstallGoDownload(t *testing.T) {
	s := newSandbox(t)
	tarball := fakeGoTarball(t, "9.9.9")
	tgz := filepath.Join(s.home, "served.tgz")
	s.write(tgz, string(tarball), 0o644)
	sum := sha256.Sum256(tarball)
	s.tool("curl", `out=""; url=""
while (($#)); do case $1 in -o) out=$2; shift ;; https://*) url=$1 ;; esac; shift; done
echo "$url" >>"`+filepath.Join(s.home, "urls")+`"
cp "`+tgz+`" "$out"
`)
	versions := func(sha string) string {
		p := filepath.Join(s.home, "versions-"+sha[:8]+".env")
		s.write(p, "GO_VERSION=9.9.9\nGO_SHA256_LINUX_AMD64="+sha+"\nGO_SHA256_LINUX_ARM64="+sha+"\nGOPLS_VERSION=v0.0.1\n", 0o644)
		return p
	}
	good := versions(hex.EncodeToString(sum[:]))
	bad := versions(strings.Repeat("0", 64))

	goroot := filepath.Join(s.home, "goroot")
	_, stderr, err := s.run("install.sh", []string{"PRLAB_VERSIONS_ENV=" + good, "PRLAB_GOROOT=" + goroot}, "--only", "go")
	if err != nil || !strings.Contains(stderr, "installed go9.9.9 in "+goroot) {
		t.Fatalf("download: %v\n%s", err, stderr)
	}
	urls, _ := os.ReadFile(filepath.Join(s.home, "urls"))
	if !regexp.MustCompile(`^https://go\.dev/dl/go9\.9\.9\.linux-(amd64|arm64)\.tar\.gz\n$`).Match(urls) {
		t.Errorf("downloaded %q", urls)
	}
	// Installed: the next run keeps it.
	_, stderr, err = s.run("install.sh", []string{"PRLAB_VERSIONS_ENV=" + good, "PRLAB_GOROOT=" + goroot}, "--only", "go")
	if err != nil || !strings.Contains(stderr, "is go9.9.9 (pinned); not downloading") {
		t.Fatalf("second run: %v\n%s", err, stderr)
	}

	// A tarball that does not match the pinned sha256 is refused and nothing
	// is unpacked.
	goroot2 := filepath.Join(s.home, "goroot2")
	_, stderr, err = s.run("install.sh", []string{"PRLAB_VERSIONS_ENV=" + bad, "PRLAB_GOROOT=" + goroot2}, "--only", "go")
	if err == nil || !strings.Contains(stderr, "does not have the sha256 pinned") {
		t.Fatalf("checksum mismatch accepted: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(goroot2); err == nil {
		t.Error("a tarball with the wrong sha256 was unpacked")
	}
	// --offline never downloads.
	_, stderr, err = s.run("install.sh", []string{"PRLAB_VERSIONS_ENV=" + good, "PRLAB_GOROOT=" + goroot2}, "--only", "go", "--offline")
	if err == nil || !strings.Contains(stderr, "--offline cannot download") {
		t.Fatalf("--offline: %v\n%s", err, stderr)
	}
	// A folder that is not a Go tree is not overwritten.
	os.MkdirAll(filepath.Join(goroot2, "keep"), 0o755)
	_, stderr, err = s.run("install.sh", []string{"PRLAB_VERSIONS_ENV=" + good, "PRLAB_GOROOT=" + goroot2}, "--only", "go")
	if err == nil || !strings.Contains(stderr, "is not a Go tree") {
		t.Fatalf("non-Go folder: %v\n%s", err, stderr)
	}
}

func TestColabSetupSteps(t *testing.T) {
	s := newSandbox(t)
	steps := func(env ...string) string {
		t.Helper()
		out, stderr, err := s.run("colab-setup.sh", env, "--dry-run")
		if err != nil {
			t.Fatalf("colab-setup.sh --dry-run: %v\n%s", err, stderr)
		}
		return strings.TrimSpace(out)
	}
	// No jupyter here (hidden): JupyterLab is installed too.
	if got := steps(); got != "install.sh would run: go tools gopls jupyterlab kernel smoke cli cuda" {
		t.Errorf("without jupyter: %q", got)
	}
	s.tool("jupyter", "exit 0\n")
	if got := steps(); got != "install.sh would run: go tools gopls kernel smoke cli cuda" {
		t.Errorf("with jupyter: %q", got)
	}
}
