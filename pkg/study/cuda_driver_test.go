package study

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKernelDriver(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 21:12:57 UTC 2025\nGCC version:  gcc version 13.3.0\n", "580.159.04"},
		{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n", "570.86.15"},
		{"something else\n", ""},
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module\n", ""},
	} {
		p := filepath.Join(dir, "version")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := kernelDriver(p); got != c.want {
			t.Errorf("kernelDriver(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got := kernelDriver(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file: %q, want empty", got)
	}
}

func TestRelativeToWorkDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{filepath.Join(wd, "build", "libprlab_cuda.so"), filepath.Join("build", "libprlab_cuda.so")},
		{"/usr/lib/libprlab_cuda.so", "/usr/lib/libprlab_cuda.so"},
		{filepath.Join(filepath.Dir(wd), "other", "lib.so"), filepath.Join(filepath.Dir(wd), "other", "lib.so")},
		{"build/libprlab_cuda.so", "build/libprlab_cuda.so"},
	} {
		if got := relativeToWorkDir(c.in); got != c.want {
			t.Errorf("relativeToWorkDir(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
