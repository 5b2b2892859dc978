// Package docker holds the static checks for prlab's CUDA container: the
// Dockerfile in this folder and the shell scripts it runs. No Docker engine is
// needed (none exists on the machines this project is built on): the
// Dockerfile is read with BuildKit's own parser
// (github.com/moby/buildkit/frontend/dockerfile/parser and .../instructions),
// and shell text (RUN lines, scripts) with mvdan.cc/sh's bash parser, so the
// checks see the same instructions and commands a build would run.
//
// What is checked (rule names as in Finding.Rule):
//
//   - base-pin: every FROM names a tag or a digest, never "latest" nor an
//     untagged image; ARGs used in FROM have defaults.
//   - apt-pin: apt-get/apt install pins every package (pkg=version) or the
//     whole archive (APT::Snapshot / --snapshot with a YYYYMMDDTHHMMSSZ time).
//   - pip-pin: pip install names every requirement with ==, also inside
//     -r files.
//   - go-pin: go install/get name @vX.Y.Z (never @latest, @master, ...) or,
//     without @, a package whose module go.mod pins.
//   - download-verify: a RUN or script that downloads with curl/wget also
//     runs sha256sum -c.
//   - user: the final stage runs as a non-root USER.
//   - expose: the image exposes port 8888 and nothing else.
//   - entrypoint: the ENTRYPOINT is in exec form and its script is copied from
//     the repository, where it exists and is executable.
//   - copy-source: every COPY source exists in the repository.
//   - layer-order: go.mod is copied and `go mod download` runs before the
//     source tree is copied (module layer cached across source edits).
package docker

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"golang.org/x/mod/modfile"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Finding is one violated rule.
type Finding struct {
	Line int    // 1-based line in the checked file; 0 for the file as a whole
	Rule string // base-pin, apt-pin, pip-pin, go-pin, download-verify, user, expose, entrypoint, copy-source, layer-order, parse
	Msg  string
}

func (f Finding) String() string { return fmt.Sprintf("line %d: %s: %s", f.Line, f.Rule, f.Msg) }

// Repo is what the checks know of the repository the Dockerfile builds.
type Repo struct {
	Root  string            // the repository root on disk (the build context)
	GoMod *modfile.File     // go.mod, for `go install pkg` without a version
	Env   map[string]string // variables scripts read (docker/versions.env)
}

// LoadRepo reads root/go.mod and root/docker/versions.env.
func LoadRepo(root string) (Repo, error) {
	r := Repo{Root: root, Env: map[string]string{}}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return r, err
	}
	if r.GoMod, err = modfile.Parse("go.mod", data, nil); err != nil {
		return r, err
	}
	r.Env, err = ReadEnvFile(filepath.Join(root, "docker", "versions.env"))
	return r, err
}

// ReadEnvFile reads KEY=value lines (# comments and blank lines skipped), the
// format of docker/versions.env.
func ReadEnvFile(name string) (map[string]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`).MatchString(k) || strings.ContainsAny(v, " \t\"'$`") {
			return nil, fmt.Errorf("%s:%d: want KEY=value without quotes, spaces or $, got %q", name, n, line)
		}
		env[k] = v
	}
	return env, sc.Err()
}

var (
	snapshotRe = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z$`)
	goVerRe    = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+incompatible)?$`)
)

// copyMap records one COPY: sources in the repository, destination in the image.
type copyMap struct {
	srcs []string
	dest string // absolute, as resolved against WORKDIR
}

// CheckDockerfile checks a Dockerfile's text against the rules above.
func CheckDockerfile(src []byte, repo Repo) ([]Finding, error) {
	res, err := parser.Parse(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	stages, metaArgs, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return nil, err
	}
	if len(stages) == 0 {
		return []Finding{{0, "parse", "no FROM"}}, nil
	}
	var out []Finding
	add := func(line int, rule, format string, a ...any) {
		out = append(out, Finding{line, rule, fmt.Sprintf(format, a...)})
	}
	meta := map[string]string{}
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			meta[kv.Key] = kv.ValueString()
		}
	}
	stageNames := map[string]bool{}
	var (
		copies        []copyMap
		ports         []string
		modDownload   = -1 // order index of the RUN with `go mod download`
		goModCopy     = -1 // order index of the COPY of go.mod
		sourceCopy    = -1 // order index of the first COPY of the whole context
		entrypoint    *instructions.EntrypointCommand
		entryLine     int
		user, workdir string
		order         int
	)
	for si, st := range stages {
		fromLine := lineOf(st.Location)
		base, err := expandWord(st.BaseName, meta)
		switch {
		case err != nil || strings.Contains(base, "$"):
			add(fromLine, "base-pin", "FROM %s: cannot expand (%v)", st.BaseName, err)
		case stageNames[strings.ToLower(base)] || base == "scratch":
		default:
			if msg := imagePinProblem(base); msg != "" {
				add(fromLine, "base-pin", "FROM %s (%s): %s", st.BaseName, base, msg)
			}
		}
		if st.Name != "" {
			stageNames[strings.ToLower(st.Name)] = true
		}
		final := si == len(stages)-1
		env := map[string]string{}
		user, workdir, copies = "", "/", nil
		for _, cmd := range st.Commands {
			order++
			line := lineOf(cmd.Location())
			switch c := cmd.(type) {
			case *instructions.ArgCommand:
				for _, kv := range c.Args {
					if kv.Value != nil {
						env[kv.Key] = *kv.Value
					} else if v, ok := meta[kv.Key]; ok {
						env[kv.Key] = v
					}
				}
			case *instructions.EnvCommand:
				for _, kv := range c.Env {
					env[kv.Key] = kv.Value
				}
			case *instructions.WorkdirCommand:
				w, _ := expandWord(c.Path, env)
				workdir = resolve(workdir, w)
			case *instructions.UserCommand:
				user, _ = expandWord(c.User, env)
			case *instructions.ExposeCommand:
				if final {
					ports = append(ports, c.Ports...)
				}
			case *instructions.EntrypointCommand:
				if final {
					entrypoint, entryLine = c, line
				}
			case *instructions.RunCommand:
				var text string
				if c.PrependShell {
					text = strings.Join(c.CmdLine, " ")
				} else {
					text = shellJoin(c.CmdLine)
				}
				for _, f := range c.Files {
					text += "\n" + f.Data
				}
				calls, err := parseCalls(text, env)
				if err != nil {
					add(line, "parse", "RUN: %v", err)
					continue
				}
				for _, f := range checkCalls(calls, repo, func(p string) (string, bool) { return fromImage(resolve(workdir, p), copies) }) {
					f.Line = line
					out = append(out, f)
				}
				if final && modDownload < 0 && slices.ContainsFunc(calls, func(c call) bool {
					return isCmd(c.argv, "go") && len(c.argv) > 2 && c.argv[1] == "mod" && c.argv[2] == "download"
				}) {
					modDownload = order
				}
			case *instructions.AddCommand:
				for _, s := range c.SourcePaths {
					if strings.Contains(s, "://") && c.Checksum == "" {
						add(line, "download-verify", "ADD %s without --checksum", s)
					}
				}
			case *instructions.CopyCommand:
				if c.From != "" {
					continue
				}
				dest, _ := expandWord(c.DestPath, env)
				dest = resolve(workdir, dest)
				var srcs []string
				for _, s := range c.SourcePaths {
					s, _ = expandWord(s, env)
					s = path.Clean(strings.TrimPrefix(s, "/"))
					srcs = append(srcs, s)
					if s == "." {
						if final && sourceCopy < 0 {
							sourceCopy = order
						}
						continue
					}
					if path.Base(s) == "go.mod" && final && goModCopy < 0 {
						goModCopy = order
					}
					matches, _ := filepath.Glob(filepath.Join(repo.Root, filepath.FromSlash(s)))
					if len(matches) == 0 {
						add(line, "copy-source", "COPY %s: no such file in the repository", s)
					}
				}
				copies = append(copies, copyMap{srcs, dest})
			}
		}
	}

	// The final stage's user.
	name, _, _ := strings.Cut(user, ":")
	if name == "" || name == "root" || name == "0" {
		add(0, "user", "the final stage runs as root: add a USER with a non-root user")
	}
	// Ports.
	var extra []string
	saw8888 := false
	for _, p := range ports {
		p = strings.TrimSuffix(p, "/tcp")
		if p == "8888" {
			saw8888 = true
		} else {
			extra = append(extra, p)
		}
	}
	if !saw8888 {
		add(0, "expose", "EXPOSE 8888 is missing")
	}
	if len(extra) > 0 {
		add(0, "expose", "only 8888 may be exposed, also found %v", extra)
	}
	// Entrypoint.
	switch {
	case entrypoint == nil:
		add(0, "entrypoint", "no ENTRYPOINT")
	case entrypoint.PrependShell:
		add(entryLine, "entrypoint", "ENTRYPOINT in shell form: use the exec form [\"...\"] so signals reach the process")
	default:
		found := false
		for _, a := range entrypoint.CmdLine {
			if !strings.Contains(a, "/") || strings.HasPrefix(a, "-") {
				continue // an option, or a command looked up in PATH
			}
			rel, ok := fromImage(resolve(workdir, a), copies)
			if !ok {
				continue
			}
			found = true
			fi, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(rel)))
			switch {
			case err != nil:
				add(entryLine, "entrypoint", "%s comes from %s, which is not in the repository", a, rel)
			case fi.Mode()&0o111 == 0:
				add(entryLine, "entrypoint", "%s (from %s) is not executable", a, rel)
			}
		}
		if !found {
			add(entryLine, "entrypoint", "no ENTRYPOINT argument is a script copied from the repository: %v", entrypoint.CmdLine)
		}
	}
	// Layer order.
	switch {
	case modDownload < 0:
		add(0, "layer-order", "no RUN go mod download in the final stage")
	case goModCopy < 0 || goModCopy > modDownload:
		add(0, "layer-order", "go.mod must be copied before go mod download runs")
	case sourceCopy >= 0 && sourceCopy < modDownload:
		add(0, "layer-order", "the source tree is copied before go mod download: every source edit re-downloads the modules")
	}
	return out, nil
}

// CheckScript checks a shell script's install commands (apt-pin, pip-pin,
// go-pin, download-verify). Variables expand from repo.Env and from the
// script's own plain assignments; requirement files resolve against the
// repository root, then against the script's folder (name is repo-relative).
func CheckScript(name string, src []byte, repo Repo) ([]Finding, error) {
	env := copyEnv(repo.Env)
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		if a, ok := n.(*syntax.Assign); ok && a.Value != nil && !a.Append && a.Array == nil {
			if v, err := expand.Literal(config(env), a.Value); err == nil {
				if _, set := env[a.Name.Value]; !set {
					env[a.Name.Value] = v
				}
			}
		}
		return true
	})
	calls := collectCalls(file, env)
	dir := path.Dir(filepath.ToSlash(name))
	return checkCalls(calls, repo, func(p string) (string, bool) {
		p = strings.TrimPrefix(path.Clean(p), "/")
		for _, cand := range []string{p, path.Join(dir, path.Base(p))} {
			if _, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(cand))); err == nil {
				return cand, true
			}
		}
		return "", false
	}), nil
}

// BaseImages returns the image each FROM names, with the ARG defaults
// declared before the first FROM expanded (build stages named by an earlier
// FROM ... AS are left out).
func BaseImages(src []byte) ([]string, error) {
	res, err := parser.Parse(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	stages, metaArgs, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return nil, err
	}
	meta := map[string]string{}
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			meta[kv.Key] = kv.ValueString()
		}
	}
	var out []string
	names := map[string]bool{}
	for _, st := range stages {
		base, err := expandWord(st.BaseName, meta)
		if err != nil {
			return nil, err
		}
		if !names[strings.ToLower(base)] {
			out = append(out, base)
		}
		if st.Name != "" {
			names[strings.ToLower(st.Name)] = true
		}
	}
	return out, nil
}

// imagePinProblem says what is wrong with an image reference's pin, or "".
func imagePinProblem(ref string) string {
	if _, digest, ok := strings.Cut(ref, "@"); ok {
		if !strings.HasPrefix(digest, "sha256:") || len(digest) != len("sha256:")+64 {
			return "malformed digest"
		}
		return ""
	}
	last := ref[strings.LastIndex(ref, "/")+1:]
	_, tag, ok := strings.Cut(last, ":")
	switch {
	case !ok || tag == "":
		return "no tag: pin a version tag (or a digest)"
	case tag == "latest":
		return "the latest tag moves: pin a version tag (or a digest)"
	}
	return ""
}

// fromImage maps a path inside the image back to the repository through the
// COPY instructions seen so far (later COPYs win).
func fromImage(p string, copies []copyMap) (string, bool) {
	for i := len(copies) - 1; i >= 0; i-- {
		c := copies[i]
		for _, s := range c.srcs {
			if s == "." {
				if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(c.dest, "/")+"/"); ok {
					return rel, true
				}
				continue
			}
			if p == path.Join(c.dest, path.Base(s)) || (len(c.srcs) == 1 && p == c.dest) {
				return s, true
			}
		}
	}
	return "", false
}

func resolve(workdir, p string) string {
	if p == "" {
		return workdir
	}
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(workdir, p)
}

func lineOf(r []parser.Range) int {
	if len(r) == 0 {
		return 0
	}
	return r[0].Start.Line
}

func copyEnv(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func config(env map[string]string) *expand.Config {
	return &expand.Config{Env: expand.FuncEnviron(func(k string) string { return env[k] })}
}

// expandWord expands $VAR and ${VAR} in a Dockerfile word (no command
// substitution) with the given variables.
func expandWord(s string, env map[string]string) (string, error) {
	w, err := syntax.NewParser().Document(strings.NewReader(s))
	if err != nil {
		return "", err
	}
	return expand.Document(config(env), w)
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i], _ = syntax.Quote(a, syntax.LangBash)
	}
	return strings.Join(q, " ")
}

// call is one simple command found in shell text, its words expanded as far
// as the known variables allow ("" for unknown ones).
type call struct {
	argv []string
	line int
}

func parseCalls(text string, env map[string]string) ([]call, error) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, err
	}
	return collectCalls(file, env), nil
}

func collectCalls(file *syntax.File, env map[string]string) []call {
	var calls []call
	cfg := config(env)
	syntax.Walk(file, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			return true
		}
		argv := make([]string, 0, len(ce.Args))
		for _, w := range ce.Args {
			s, err := expand.Literal(cfg, w)
			if err != nil {
				s = "?"
			}
			argv = append(argv, s)
		}
		calls = append(calls, call{unwrap(argv), int(ce.Pos().Line())})
		return true
	})
	return calls
}

// unwrap drops command prefixes that run another command: sudo, env (with its
// VAR=value words), exec, command, time, nice.
func unwrap(argv []string) []string {
	for len(argv) > 0 {
		switch path.Base(argv[0]) {
		case "sudo", "exec", "command", "time", "nice":
			argv = argv[1:]
		case "env":
			argv = argv[1:]
			for len(argv) > 0 && strings.Contains(argv[0], "=") {
				argv = argv[1:]
			}
		default:
			return argv
		}
	}
	return argv
}

func isCmd(argv []string, names ...string) bool {
	return len(argv) > 0 && slices.Contains(names, path.Base(argv[0]))
}

// checkCalls applies apt-pin, pip-pin, go-pin and download-verify to one
// RUN's or script's commands. reqFile maps a -r path to a repository path.
func checkCalls(calls []call, repo Repo, reqFile func(string) (string, bool)) []Finding {
	var out []Finding
	add := func(line int, rule, format string, a ...any) {
		out = append(out, Finding{line, rule, fmt.Sprintf(format, a...)})
	}
	downloads, verified := 0, false
	for _, c := range calls {
		a := c.argv
		switch {
		case isCmd(a, "apt-get", "apt"):
			checkApt(a, c.line, add)
		case isCmd(a, "pip", "pip3") || (isCmd(a, "python", "python3") && len(a) > 2 && a[1] == "-m" && a[2] == "pip"):
			if !isCmd(a, "pip", "pip3") {
				a = a[2:]
			}
			checkPip(a, c.line, repo, reqFile, add)
		case isCmd(a, "go") && len(a) > 1 && (a[1] == "install" || a[1] == "get"):
			checkGo(a, c.line, repo, add)
		case isCmd(a, "curl", "wget"):
			downloads = c.line
		case isCmd(a, "sha256sum") && (slices.Contains(a, "-c") || slices.Contains(a, "--check")):
			verified = true
		}
	}
	if downloads > 0 && !verified {
		add(downloads, "download-verify", "downloads with curl/wget but never checks a sha256 (sha256sum -c)")
	}
	return out
}

type adder func(line int, rule, format string, a ...any)

func checkApt(a []string, line int, add adder) {
	var pkgs []string
	installing, snapshot := false, ""
	for i := 1; i < len(a); i++ {
		arg := a[i]
		switch {
		case arg == "-o" && i+1 < len(a):
			i++
			if v, ok := strings.CutPrefix(a[i], "APT::Snapshot="); ok {
				snapshot = strings.Trim(v, `"`)
			}
		case arg == "--snapshot" || arg == "-S":
			if i+1 < len(a) {
				i++
				snapshot = a[i]
			}
		case strings.HasPrefix(arg, "--snapshot="):
			snapshot = strings.TrimPrefix(arg, "--snapshot=")
		case strings.HasPrefix(arg, "-"):
		case !installing && arg == "install":
			installing = true
		case installing:
			pkgs = append(pkgs, arg)
		}
	}
	if !installing {
		return
	}
	if snapshot != "" {
		if !snapshotRe.MatchString(snapshot) {
			add(line, "apt-pin", "apt snapshot %q is not a YYYYMMDDTHHMMSSZ time (is its ARG set?)", snapshot)
		}
		return
	}
	for _, p := range pkgs {
		if !strings.Contains(p, "=") {
			add(line, "apt-pin", "apt installs %s unpinned: pin pkg=version or the archive (APT::Snapshot)", p)
		}
	}
}

func checkPip(a []string, line int, repo Repo, reqFile func(string) (string, bool), add adder) {
	if len(a) < 2 || a[1] != "install" {
		return
	}
	valueOpts := []string{"-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-t", "--target",
		"--prefix", "--root", "-f", "--find-links", "--python-version", "--platform", "--cache-dir", "--log"}
	for i := 2; i < len(a); i++ {
		arg := a[i]
		switch {
		case arg == "-r" || arg == "--requirement":
			if i+1 >= len(a) {
				add(line, "pip-pin", "pip install -r without a file")
				continue
			}
			i++
			rel, ok := reqFile(a[i])
			if !ok {
				add(line, "pip-pin", "pip install -r %s: the file is not in the repository, its pins cannot be checked", a[i])
				continue
			}
			for _, f := range checkRequirements(filepath.Join(repo.Root, filepath.FromSlash(rel))) {
				add(line, "pip-pin", "%s: %s", rel, f)
			}
		case arg == "-e" || arg == "--editable":
			i++
		case slices.Contains(valueOpts, arg):
			i++
		case strings.HasPrefix(arg, "-"):
		case strings.HasPrefix(arg, ".") || strings.HasPrefix(arg, "/"):
			// a local project
		case !strings.Contains(arg, "=="):
			add(line, "pip-pin", "pip installs %s unpinned: write name==version", arg)
		}
	}
}

// checkRequirements returns the unpinned lines of a requirements file.
func checkRequirements(name string) []string {
	data, err := os.ReadFile(name)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-") {
			continue
		}
		if !strings.Contains(line, "==") {
			bad = append(bad, fmt.Sprintf("%q is not pinned with ==", line))
		}
	}
	return bad
}

func checkGo(a []string, line int, repo Repo, add adder) {
	sub := a[1]
	valueFlags := []string{"-o", "-C", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-pkgdir", "-p", "-overlay", "-pgo", "-toolexec", "-buildmode", "-compiler", "-gccgoflags", "-installsuffix", "-exec"}
	for i := 2; i < len(a); i++ {
		arg := a[i]
		switch {
		case slices.Contains(valueFlags, arg):
			i++
			continue
		case strings.HasPrefix(arg, "-"):
			continue
		case sub == "install" && arg == "tool":
			continue // the tools go.mod pins
		}
		pkg, ver, hasVer := strings.Cut(arg, "@")
		switch {
		case hasVer && !goVerRe.MatchString(ver):
			add(line, "go-pin", "go %s %s: pin a release version @vX.Y.Z, not @%s", sub, arg, ver)
		case hasVer:
		case strings.HasPrefix(pkg, ".") || strings.HasPrefix(pkg, "/"):
			// a package of this module
		case sub == "get":
			add(line, "go-pin", "go get %s without @version", arg)
		case !pinnedByGoMod(pkg, repo.GoMod):
			add(line, "go-pin", "go install %s: no @version and go.mod does not pin its module", arg)
		}
	}
}

// pinnedByGoMod reports whether pkg lies in a module go.mod requires (or in
// the main module).
func pinnedByGoMod(pkg string, mf *modfile.File) bool {
	if mf == nil {
		return false
	}
	within := func(mod string) bool { return pkg == mod || strings.HasPrefix(pkg, mod+"/") }
	if mf.Module != nil && within(mf.Module.Mod.Path) {
		return true
	}
	for _, r := range mf.Require {
		if within(r.Mod.Path) {
			return true
		}
	}
	return false
}
