package docker

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

func repoRoot(t *testing.T) Repo {
	t.Helper()
	repo, err := LoadRepo("..")
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestRepoDockerfile(t *testing.T) {
	repo := repoRoot(t)
	src, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	findings, err := CheckDockerfile(src, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("docker/Dockerfile %s", f)
	}

	// The project's own choices: an official NVIDIA CUDA 13.0 devel image on
	// Ubuntu 24.04, by tag.
	bases, err := BaseImages(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(bases) != 1 || !regexp.MustCompile(`^nvidia/cuda:13\.0\.[0-9]+-devel-ubuntu24\.04(@sha256:[0-9a-f]{64})?$`).MatchString(bases[0]) {
		t.Errorf("base images %q: want one nvidia/cuda:13.0.x-devel-ubuntu24.04", bases)
	}
	// The per-Dockerfile ignore file keeps the git history and build outputs
	// out of the context.
	ignore, err := os.ReadFile("Dockerfile.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".git", "/build", "/data/aan/*", "!/data/aan/acl.txt.gz", "!/data/aan/papers.tsv.gz"} {
		if !strings.Contains("\n"+string(ignore), "\n"+want+"\n") {
			t.Errorf("Dockerfile.dockerignore has no line %s (the bundled graph goes in, local files stay out)", want)
		}
	}
}

func TestRepoScripts(t *testing.T) {
	repo := repoRoot(t)
	scripts, _ := filepath.Glob("*.sh")
	if len(scripts) < 3 {
		t.Fatalf("want install.sh, entrypoint.sh, colab-setup.sh; found %v", scripts)
	}
	for _, name := range scripts {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		findings, err := CheckScript("docker/"+name, src, repo)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range findings {
			t.Errorf("docker/%s %s", name, f)
		}
		fi, _ := os.Stat(name)
		if fi.Mode()&0o111 == 0 {
			t.Errorf("docker/%s is not executable", name)
		}
		if !strings.HasPrefix(string(src), "#!/usr/bin/env bash\n") || !strings.Contains(string(src), "\nset -euo pipefail\n") {
			t.Errorf("docker/%s: want a bash shebang and set -euo pipefail", name)
		}
	}
}

func TestVersionsPinned(t *testing.T) {
	repo := repoRoot(t)
	env := repo.Env
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(env["GO_VERSION"]) {
		t.Errorf("GO_VERSION %q is not an exact release", env["GO_VERSION"])
	}
	for _, k := range []string{"GO_SHA256_LINUX_AMD64", "GO_SHA256_LINUX_ARM64"} {
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(env[k]) {
			t.Errorf("%s %q is not a sha256", k, env[k])
		}
	}
	if !goVerRe.MatchString(env["GOPLS_VERSION"]) {
		t.Errorf("GOPLS_VERSION %q is not a release", env["GOPLS_VERSION"])
	}
	// The Go the container installs must be able to build the module.
	if repo.GoMod.Go == nil || semver.Compare("v"+env["GO_VERSION"], "v"+repo.GoMod.Go.Version) < 0 {
		t.Errorf("GO_VERSION %s is older than go.mod's go line", env["GO_VERSION"])
	}
	// GoNB and goimports come from go.mod: tool directives and a pinned GoNB.
	tools := map[string]bool{}
	for _, tl := range repo.GoMod.Tool {
		tools[tl.Path] = true
	}
	for _, p := range []string{"github.com/janpfeifer/gonb", "golang.org/x/tools/cmd/goimports"} {
		if !tools[p] {
			t.Errorf("go.mod has no tool directive for %s", p)
		}
	}
	for _, r := range repo.GoMod.Require {
		if r.Mod.Path == "github.com/janpfeifer/gonb" && r.Mod.Version != "v0.11.4" {
			t.Errorf("go.mod pins gonb %s, the project uses v0.11.4", r.Mod.Version)
		}
	}
	if bad := checkRequirements("requirements-jupyter.txt"); len(bad) > 0 {
		t.Errorf("requirements-jupyter.txt: %v", bad)
	}
	if data, _ := os.ReadFile("requirements-jupyter.txt"); !strings.Contains(string(data), "\njupyterlab==") {
		t.Error("requirements-jupyter.txt does not pin jupyterlab")
	}
}

// fixtureRepo is a small repository for the negative tests: go.mod, go.sum,
// an executable entrypoint, a plain file, and two requirements files.
func fixtureRepo(t *testing.T) Repo {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                  "module example.com/app\n\ngo 1.26\n\nrequire github.com/janpfeifer/gonb v0.11.4\n",
		"go.sum":                  "",
		"docker/entrypoint.sh":    "#!/bin/sh\n",
		"docker/notexec.sh":       "#!/bin/sh\n",
		"docker/req-ok.txt":       "# ok\njupyterlab==4.6.6\n",
		"docker/req-unpinned.txt": "jupyterlab>=4\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if name == "docker/entrypoint.sh" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := LoadRepo(dir)
	if err != nil && !os.IsNotExist(err) { // no versions.env in the fixture
		t.Fatal(err)
	}
	return repo
}

// goodDockerfile passes every rule; each negative case changes one thing.
const goodDockerfile = `ARG TAG=13.0.2-devel-ubuntu24.04
FROM nvidia/cuda:${TAG}
ARG SNAP=20261115T000000Z
RUN apt-get -o APT::Snapshot="${SNAP}" update && \
    apt-get -o APT::Snapshot="${SNAP}" install -y --no-install-recommends curl tini
RUN curl -fsSLo /tmp/go.tgz https://example.invalid/go.tgz && echo "x  /tmp/go.tgz" | sha256sum -c -
USER app
WORKDIR /app
COPY docker/req-ok.txt docker/
RUN python3 -m venv /v && /v/bin/pip install jupyterlab==4.6.6 && /v/bin/pip install -r docker/req-ok.txt
COPY go.mod go.sum ./
RUN go mod download && go install github.com/janpfeifer/gonb && go install golang.org/x/tools/gopls@v0.23.0
COPY . .
RUN go install tool && go build ./...
EXPOSE 8888
ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]
`

func TestCheckDockerfileGoodFixture(t *testing.T) {
	findings, err := CheckDockerfile([]byte(goodDockerfile), fixtureRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("good fixture: %s", f)
	}
}

func TestCheckDockerfileRejects(t *testing.T) {
	repo := fixtureRepo(t)
	cases := []struct {
		name, old, new, rule string
	}{
		{"latest tag", "FROM nvidia/cuda:${TAG}", "FROM nvidia/cuda:latest", "base-pin"},
		{"untagged", "FROM nvidia/cuda:${TAG}", "FROM nvidia/cuda", "base-pin"},
		{"ARG without default", "ARG TAG=13.0.2-devel-ubuntu24.04", "ARG TAG", "base-pin"},
		{"apt unpinned", `apt-get -o APT::Snapshot="${SNAP}" install`, "apt-get install", "apt-pin"},
		{"apt snapshot unset", "ARG SNAP=20261115T000000Z", "ARG SNAP", "apt-pin"},
		{"apt pkg=version is fine but one is bare", `apt-get -o APT::Snapshot="${SNAP}" install -y --no-install-recommends curl tini`, "apt-get install -y curl=8.5.0-2ubuntu10 tini", "apt-pin"},
		{"pip unpinned", "pip install jupyterlab==4.6.6", "pip install jupyterlab", "pip-pin"},
		{"pip >= is not a pin", "pip install jupyterlab==4.6.6", "pip install 'jupyterlab>=4'", "pip-pin"},
		{"pip upgrade pip", "pip install jupyterlab==4.6.6", "pip install -U pip", "pip-pin"},
		{"requirements unpinned", "-r docker/req-ok.txt", "-r docker/req-unpinned.txt", "pip-pin"},
		{"requirements not copied", "COPY docker/req-ok.txt docker/\n", "", "pip-pin"},
		{"go @latest", "gopls@v0.23.0", "gopls@latest", "go-pin"},
		{"go @master", "gopls@v0.23.0", "gopls@master", "go-pin"},
		{"go install outside go.mod", "go install github.com/janpfeifer/gonb", "go install example.org/not/pinned/cmd/x", "go-pin"},
		{"curl without sha256", `&& echo "x  /tmp/go.tgz" | sha256sum -c -`, "", "download-verify"},
		{"root user", "USER app", "USER root", "user"},
		{"uid 0", "USER app", "USER 0:0", "user"},
		{"no user", "USER app\n", "", "user"},
		{"extra port", "EXPOSE 8888", "EXPOSE 8888 22", "expose"},
		{"no 8888", "EXPOSE 8888", "EXPOSE 8080", "expose"},
		{"no expose", "EXPOSE 8888\n", "", "expose"},
		{"shell-form entrypoint", `ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]`, "ENTRYPOINT /app/docker/entrypoint.sh", "entrypoint"},
		{"entrypoint not in repo", "/app/docker/entrypoint.sh", "/app/docker/missing.sh", "entrypoint"},
		{"entrypoint not executable", "/app/docker/entrypoint.sh", "/app/docker/notexec.sh", "entrypoint"},
		{"entrypoint from the image only", `"/app/docker/entrypoint.sh"]`, `"/usr/local/bin/start"]`, "entrypoint"},
		{"COPY of a missing file", "COPY docker/req-ok.txt docker/", "COPY docker/nope.txt docker/", "copy-source"},
		{"sources before modules", "COPY go.mod go.sum ./\nRUN go mod download", "COPY . .\nCOPY go.mod go.sum ./\nRUN go mod download", "layer-order"},
		{"no go mod download", "RUN go mod download && ", "RUN ", "layer-order"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(goodDockerfile, tc.old) {
				t.Fatalf("fixture has no %q", tc.old)
			}
			src := strings.Replace(goodDockerfile, tc.old, tc.new, 1)
			findings, err := CheckDockerfile([]byte(src), repo)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range findings {
				found = found || f.Rule == tc.rule
			}
			if !found {
				t.Errorf("want a %s finding, got %v", tc.rule, findings)
			}
		})
	}
}

func TestCheckDockerfileParseError(t *testing.T) {
	if _, err := CheckDockerfile([]byte("FROM\n"), fixtureRepo(t)); err == nil {
		t.Error("FROM without an image parsed")
	}
}

func TestCheckScriptRejects(t *testing.T) {
	repo := fixtureRepo(t)
	cases := []struct{ name, src, rule string }{
		{"pip", "#!/bin/bash\npython3 -m pip install jupyterlab\n", "pip-pin"},
		{"pip requirements", "#!/bin/bash\nvenv=/v\n\"$venv/bin/pip\" install -r \"$here/req-unpinned.txt\"\n", "pip-pin"},
		{"go latest in a function", "#!/bin/bash\nf() { GOBIN=/x go install golang.org/x/tools/gopls@latest; }\n", "go-pin"},
		{"go version from an unset variable", "#!/bin/bash\ngo install \"golang.org/x/tools/gopls@$NOPE\"\n", "go-pin"},
		{"curl unverified", "#!/bin/bash\ncurl -fsSLo go.tgz https://example.invalid/go.tgz\ntar xzf go.tgz\n", "download-verify"},
		{"apt", "#!/bin/bash\nsudo apt-get install -y shellcheck\n", "apt-pin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			findings, err := CheckScript("docker/x.sh", []byte(tc.src), repo)
			if err != nil {
				t.Fatal(err)
			}
			if len(findings) != 1 || findings[0].Rule != tc.rule {
				t.Errorf("want one %s finding, got %v", tc.rule, findings)
			}
		})
	}
	// And the same commands, pinned, pass.
	ok := "#!/bin/bash\nV=v0.23.0\ngo install \"golang.org/x/tools/gopls@$V\"\n" +
		"python3 -m pip install jupyterlab==4.6.6\n\"$venv/bin/pip\" install -r \"$here/req-ok.txt\"\n" +
		"curl -fsSLo go.tgz https://example.invalid/go.tgz\nprintf '%s  go.tgz\\n' abc | sha256sum -c -\n" +
		"apt-get install -y shellcheck=0.9.0-1\n"
	findings, err := CheckScript("docker/x.sh", []byte(ok), repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("pinned script: %s", f)
	}
}
