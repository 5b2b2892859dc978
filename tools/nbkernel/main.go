// Command nbkernel writes the Jupyter kernel spec "gonb" (GoNB, the Go kernel)
// that prlab's notebooks name in their metadata, with the environment they
// need: PATH to the go toolchain and to the gonb and goimports binaries built
// from the versions pinned in go.mod, GOTOOLCHAIN=local, PRLAB_ROOT (the
// checkout), PRLAB_CUDA_LIB (default <checkout>/build/libprlab_cuda.so, where
// `make cuda-lib` puts it), and GOFLAGS, GOPROXY, GOMODCACHE, GOCACHE,
// GOPATH when they are set where this command runs.
//
// Usage (normally through `make kernel`):
//
//	go run ./tools/nbkernel -gonb bin/gonb [-dir DIR] [-name gonb]
//
// DIR defaults to $JUPYTER_DATA_DIR/kernels, else ~/.local/share/jupyter/kernels,
// the per-user location that Jupyter Notebook, JupyterLab and nbclient search.
// It prints the path of the kernel.json it wrote.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/prlab/prlab/pkg/report"
)

type kernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env"`
	Metadata      map[string]any    `json:"metadata,omitempty"`
}

func main() {
	gonb := flag.String("gonb", "bin/gonb", "path of the gonb binary (built by `make kernel` from go.mod's pinned version)")
	dir := flag.String("dir", "", "kernels directory (default $JUPYTER_DATA_DIR/kernels or ~/.local/share/jupyter/kernels)")
	name := flag.String("name", "gonb", "kernel name; the notebooks' metadata says \"gonb\"")
	root := flag.String("root", ".", "the prlab checkout (PRLAB_ROOT in the kernel's environment)")
	flag.Parse()
	path, err := write(*gonb, *dir, *name, *root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nbkernel:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

func write(gonb, dir, name, root string) (string, error) {
	gonbAbs, err := filepath.Abs(gonb)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(gonbAbs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("gonb binary %s is missing or not executable: run `make kernel` (it builds bin/gonb from go.mod)", gonbAbs)
	}
	binDir := filepath.Dir(gonbAbs)
	if _, err := os.Stat(filepath.Join(binDir, "goimports")); err != nil {
		return "", fmt.Errorf("goimports is not beside gonb in %s (GoNB needs it on PATH): run `make kernel`", binDir)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go is not on PATH: %v", err)
	}
	goBin, _ = filepath.EvalSymlinks(goBin)
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(rootAbs, "go.mod")); err != nil {
		return "", fmt.Errorf("-root %s holds no go.mod", rootAbs)
	}
	if dir == "" {
		if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
			dir = filepath.Join(d, "kernels")
		} else {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			dir = filepath.Join(home, ".local", "share", "jupyter", "kernels")
		}
	}
	pathList := []string{binDir, filepath.Dir(goBin)}
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if p != "" && p != binDir && p != filepath.Dir(goBin) {
			pathList = append(pathList, p)
		}
	}
	env := map[string]string{
		"PATH":        strings.Join(pathList, string(os.PathListSeparator)),
		"GOTOOLCHAIN": "local",
		"PRLAB_ROOT":  rootAbs,
		// The CUDA library cudabind loads (make cuda-lib builds it there); a
		// missing file only makes the GPU rows say why they were skipped.
		"PRLAB_CUDA_LIB": filepath.Join(rootAbs, "build", "libprlab_cuda.so"),
	}
	for _, k := range []string{"GOFLAGS", "GOPROXY", "GOMODCACHE", "GOCACHE", "GOPATH", "PRLAB_CUDA_LIB"} {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			env[k] = v
		}
	}
	spec := kernelSpec{
		Argv:          []string{gonbAbs, "--kernel", "{connection_file}"},
		DisplayName:   "Go (gonb)",
		Language:      "go",
		InterruptMode: "message",
		Env:           env,
		Metadata:      map[string]any{"prlab": "written by tools/nbkernel (make kernel)"},
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", err
	}
	kdir := filepath.Join(dir, name)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(kdir, "kernel.json")
	if err := report.WriteFileAtomic(out, append(data, '\n')); err != nil {
		return "", err
	}
	return out, nil
}
