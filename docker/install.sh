#!/usr/bin/env bash
# docker/install.sh: the one install script for prlab's notebook stack.
#
# Used by docker/Dockerfile (image build), docker/entrypoint.sh (container
# start: CUDA library and data), docker/colab-setup.sh (Colab, Kaggle, cloud
# GPU VMs without Docker) and by CI on the CPU machine (`make docker-check`,
# which runs it with --cpu-only --offline).
#
# Steps (run in this order; pick with --only / --skip):
#   go          Go ${GO_VERSION} from docker/versions.env: kept when the Go found
#               is that version, else the official tarball is downloaded and
#               checked with sha256sum into $PRLAB_GOROOT.
#   tools       GoNB and goimports at the versions go.mod pins
#               (`go install <pkg>` inside the module).
#   gopls       gopls ${GOPLS_VERSION} (GoNB auto-complete).          [not default]
#   jupyterlab  a Python venv with docker/requirements-jupyter.txt.   [not default]
#   kernel      the "gonb" kernel spec, written by tools/nbkernel (as `make
#               kernel` does) for the gonb built here, with the environment the
#               notebooks need: PATH (Go, GoNB, goimports), GOTOOLCHAIN=local,
#               PRLAB_ROOT and PRLAB_CUDA_LIB.
#   smoke       one GoNB cell run headless through nbclient with that kernel
#               spec; checks it prints go${GO_VERSION} and PRLAB_CUDA_LIB.
#               Skipped where no Jupyter with nbclient is found.  [not default]
#   cli         the prlab command ($PRLAB_PREFIX/bin/prlab).
#   cuda        `make cuda-lib CUDA_ARCHS=<this host's GPUs>` when nvcc exists;
#               skipped when the library is already built for those archs.
# Default steps: go,tools,kernel,cli,cuda.
#
# Options:
#   --only LIST     run only these steps (comma-separated)
#   --skip LIST     skip these steps
#   --cpu-only      skip what needs a GPU (the cuda step)
#   --offline       download nothing from outside the Go module proxy: Go must
#                   already be ${GO_VERSION}; gopls and jupyterlab are skipped.
#                   Modules pinned in go.mod still come through GOPROXY and the
#                   module cache (set GOPROXY=off to forbid that too).
#   --root DIR      the prlab checkout (default: the folder above this script)
#   --prefix DIR    where binaries go: DIR/bin (default: $PRLAB_PREFIX, else
#                   $HOME/.local/prlab)
#   --dry-run       print the steps that would run, and stop
#   -h, --help      this text
#
# Environment: PRLAB_PREFIX, PRLAB_GOROOT (where a downloaded Go is unpacked;
# default $PRLAB_PREFIX/go), PRLAB_JUPYTER_VENV (default $PRLAB_PREFIX/jupyter),
# PRLAB_CUDA_LIB (default <root>/build/libprlab_cuda.so), CUDA_ARCHS (overrides
# the GPU detection, e.g. "90" or "80 90"), JUPYTER_DATA_DIR (where the kernel spec
# goes; default ~/.local/share/jupyter).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# PRLAB_VERSIONS_ENV replaces versions.env (the tests use it).
# shellcheck source=docker/versions.env
. "${PRLAB_VERSIONS_ENV:-$here/versions.env}"

log() { printf 'install.sh: %s\n' "$*" >&2; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

all_steps=(go tools gopls jupyterlab kernel smoke cli cuda)
only="go,tools,kernel,cli,cuda"
skip=""
cpu_only=0
offline=0
dry_run=0
root=""
prefix=${PRLAB_PREFIX:-"$HOME/.local/prlab"}

while (($#)); do
	case $1 in
	--only) only=${2:?--only needs a list}; shift ;;
	--only=*) only=${1#*=} ;;
	--skip) skip=${2:?--skip needs a list}; shift ;;
	--skip=*) skip=${1#*=} ;;
	--cpu-only) cpu_only=1 ;;
	--offline) offline=1 ;;
	--dry-run) dry_run=1 ;;
	--root) root=${2:?--root needs a folder}; shift ;;
	--root=*) root=${1#*=} ;;
	--prefix) prefix=${2:?--prefix needs a folder}; shift ;;
	--prefix=*) prefix=${1#*=} ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
	shift
done

for s in ${only//,/ } ${skip//,/ }; do
	[[ " ${all_steps[*]} " == *" $s "* ]] || die "unknown step: $s (steps: ${all_steps[*]})"
done
selected=()
for s in "${all_steps[@]}"; do
	if [[ ",$only," == *",$s,"* && ",$skip," != *",$s,"* ]]; then selected+=("$s"); fi
done
if ((dry_run)); then
	echo "install.sh would run: ${selected[*]}"
	exit 0
fi

root=${root:-$(dirname "$here")}
if [[ -d $root ]]; then root=$(cd "$root" && pwd); fi
mkdir -p "$prefix/bin"
prefix=$(cd "$prefix" && pwd)
export PRLAB_PREFIX=$prefix
export PATH="$prefix/bin:$PATH"
goroot_target=${PRLAB_GOROOT:-"$prefix/go"}
cuda_lib=${PRLAB_CUDA_LIB:-"$root/build/libprlab_cuda.so"}

need_root() {
	[[ -f $root/go.mod ]] || die "step $1 needs the prlab checkout (no go.mod in $root; use --root)"
	cd "$root"
}

# go_version BIN: prints e.g. "go1.26.8" (never switches toolchains).
go_version() { (cd / && GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null) || true; }

# find_pinned_go: prints the path of a go binary of version GO_VERSION, if any.
find_pinned_go() {
	local g
	for g in "$goroot_target/bin/go" "$(command -v go || true)" /usr/local/go/bin/go; do
		if [[ -n $g && -x $g && $(go_version "$g") == "go$GO_VERSION" ]]; then
			printf '%s\n' "$g"
			return 0
		fi
	done
	return 1
}

step_go() {
	local g arch sha tmp
	if g=$(find_pinned_go); then
		log "go: $g is go$GO_VERSION (pinned); not downloading"
	else
		g=$(command -v go || true)
		if ((offline)); then
			die "go: need go$GO_VERSION, found ${g:-no go}${g:+ ($(go_version "$g"))}; --offline cannot download it"
		fi
		case $(uname -m) in
		x86_64 | amd64) arch=amd64 sha=$GO_SHA256_LINUX_AMD64 ;;
		aarch64 | arm64) arch=arm64 sha=$GO_SHA256_LINUX_ARM64 ;;
		*) die "go: no pinned tarball for $(uname -m)" ;;
		esac
		if [[ -e $goroot_target && ! -f $goroot_target/VERSION && -n $(ls -A "$goroot_target") ]]; then
			die "go: $goroot_target exists and is not a Go tree; set PRLAB_GOROOT"
		fi
		tmp=$(mktemp -d)
		log "go: downloading go$GO_VERSION.linux-$arch.tar.gz"
		curl -fsSL --retry 3 -o "$tmp/go.tgz" "https://go.dev/dl/go$GO_VERSION.linux-$arch.tar.gz"
		printf '%s  %s\n' "$sha" "$tmp/go.tgz" | sha256sum -c --quiet - || {
			rm -rf "$tmp"
			die "go: go$GO_VERSION.linux-$arch.tar.gz does not have the sha256 pinned in versions.env; not unpacked"
		}
		mkdir -p "$tmp/go"
		tar -C "$tmp/go" --strip-components=1 -xzf "$tmp/go.tgz"
		rm -rf "$goroot_target"
		mkdir -p "$(dirname "$goroot_target")"
		mv "$tmp/go" "$goroot_target"
		rm -rf "$tmp"
		g=$goroot_target/bin/go
		[[ $(go_version "$g") == "go$GO_VERSION" ]] || die "go: $g is not go$GO_VERSION after unpacking"
		log "go: installed go$GO_VERSION in $goroot_target"
	fi
	PATH="$(dirname "$g"):$PATH"
	export PATH
}

# mod_version BIN: the module version a Go binary was built from.
mod_version() { go version -m "$1" | awk '$1 == "mod" { print $3; exit }'; }

step_tools() {
	need_root tools
	local pkg
	for pkg in github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports; do
		go list -m -f '{{.Version}}' "${pkg%/cmd/*}" >/dev/null 2>&1 ||
			die "tools: go.mod does not pin $pkg (add it with: go get -tool $pkg@<version>)"
	done
	log "tools: go install github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports (versions from go.mod)"
	GOBIN="$prefix/bin" go install github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports
	log "tools: gonb $(mod_version "$prefix/bin/gonb"), goimports $(mod_version "$prefix/bin/goimports") in $prefix/bin"
}

step_gopls() {
	if ((offline)); then log "gopls: skipped (--offline)"; return; fi
	log "gopls: go install golang.org/x/tools/gopls@$GOPLS_VERSION"
	(cd / && GOBIN="$prefix/bin" GOFLAGS=-mod=mod go install "golang.org/x/tools/gopls@$GOPLS_VERSION")
}

step_jupyterlab() {
	if ((offline)); then log "jupyterlab: skipped (--offline)"; return; fi
	local venv=${PRLAB_JUPYTER_VENV:-"$prefix/jupyter"}
	log "jupyterlab: $venv with $(grep -v '^#' "$here/requirements-jupyter.txt" | xargs)"
	python3 -m venv "$venv"
	"$venv/bin/pip" install --no-cache-dir --disable-pip-version-check -r "$here/requirements-jupyter.txt"
	export PATH="$venv/bin:$PATH"
	jupyter lab --version >/dev/null
}

# jupyter_kernels: the kernel specs the local Jupyter sees (name and folder),
# through `jupyter kernelspec` or, where that subcommand is missing (Debian
# ships it in another package), through jupyter_client in jupyter's Python.
jupyter_kernels() {
	local py
	command -v jupyter >/dev/null || return 1
	if jupyter kernelspec list 2>/dev/null; then return 0; fi
	py=$(jupyter_python) || return 1
	"$py" -c 'from jupyter_client.kernelspec import KernelSpecManager as K
for n, d in sorted(K().find_kernel_specs().items()): print(n, d)' 2>/dev/null
}

# jupyter_python: the Python interpreter of the `jupyter` command on PATH.
jupyter_python() {
	local j py
	j=$(command -v jupyter) || return 1
	py=$(sed -n '1s/^#! *\([^ ]*\).*/\1/p' "$j")
	[[ -n $py && -x $py ]] || return 1
	printf '%s\n' "$py"
}

step_kernel() {
	need_root kernel
	local gonb spec listing
	gonb=$(command -v gonb) || die "kernel: gonb not found (run the tools step first)"
	command -v go >/dev/null || die "kernel: go not found (run the go step first)"
	# tools/nbkernel (the same writer as `make kernel`) puts PATH (Go, gonb,
	# goimports), GOTOOLCHAIN=local, PRLAB_ROOT and PRLAB_CUDA_LIB into the
	# kernel's environment, whatever the Jupyter server's own environment is.
	spec=$(PRLAB_CUDA_LIB=$cuda_lib go run ./tools/nbkernel -gonb "$gonb" -root "$root") ||
		die "kernel: go run ./tools/nbkernel failed"
	[[ -f $spec ]] || die "kernel: tools/nbkernel wrote no kernel spec ($spec)"
	log "kernel: $spec (gonb $gonb, PRLAB_CUDA_LIB=$cuda_lib)"
	if listing=$(jupyter_kernels); then
		grep -q "^ *gonb .*$(dirname "$spec")\$" <<<"$listing" ||
			die "kernel: Jupyter does not see $(dirname "$spec"); it lists: $listing"
		log "kernel: Jupyter lists gonb at $(dirname "$spec")"
	else
		log "kernel: no Jupyter here to list kernel specs; spec not cross-checked"
	fi
}

# smoke: run one GoNB cell through nbclient with the installed kernel spec and
# check what it printed: the pinned Go and the kernel environment.
step_smoke() {
	local py out errlog
	if ! py=$(jupyter_python) || ! "$py" -c 'import nbclient, nbformat' 2>/dev/null; then
		log "smoke: no Jupyter with nbclient here; skipped"
		return
	fi
	log "smoke: running one GoNB cell with the gonb kernel ($py, nbclient)"
	errlog=$(mktemp)
	out=$("$py" - 2>"$errlog" <<'PY'
import nbformat
from nbclient import NotebookClient
nb = nbformat.v4.new_notebook()
nb.metadata["kernelspec"] = {"name": "gonb", "display_name": "Go (gonb)", "language": "go"}
nb.cells = [nbformat.v4.new_code_cell(
    'import (\n\t"fmt"\n\t"os"\n\t"runtime"\n)\n\n%%\n'
    'fmt.Println("prlab-smoke", runtime.Version(), os.Getenv("PRLAB_CUDA_LIB"))\n')]
NotebookClient(nb, kernel_name="gonb", timeout=600).execute()
for o in nb.cells[0].outputs:
    print(o.get("text", ""), end="")
PY
	) || die "smoke: the GoNB cell failed: $out $(tail -n 30 "$errlog")"
	rm -f "$errlog"
	[[ $out == *"prlab-smoke go$GO_VERSION $cuda_lib"* ]] ||
		die "smoke: unexpected cell output: $out (want go$GO_VERSION and PRLAB_CUDA_LIB=$cuda_lib)"
	log "smoke: the cell printed: $out"
}

step_cli() {
	need_root cli
	if ! compgen -G "cmd/prlab/*.go" >/dev/null; then
		log "cli: no cmd/prlab in $root yet; skipped"
		return
	fi
	go build -o "$prefix/bin/prlab" ./cmd/prlab
	log "cli: $prefix/bin/prlab"
}

# gpu_archs: this host's GPUs as the Makefile's CUDA_ARCHS ("90" for an H200,
# "80 90" for mixed GPUs), from nvidia-smi's compute capability ("9.0"), for
# the GPUs CUDA_VISIBLE_DEVICES selects when it is set; empty without a
# visible GPU.
gpu_archs() {
	command -v nvidia-smi >/dev/null || return 0
	local sel=()
	if [[ -v CUDA_VISIBLE_DEVICES ]]; then
		case $CUDA_VISIBLE_DEVICES in "" | -1) return 0 ;; esac
		sel=(-i "$CUDA_VISIBLE_DEVICES")
	fi
	local caps
	caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader "${sel[@]}" 2>/dev/null) ||
		caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null) || return 0 # e.g. MIG ids
	tr -d ' .\r' <<<"$caps" | grep -E '^[0-9]+$' | sort -un | paste -sd ' ' - || true
}

step_cuda() {
	if ((cpu_only)); then log "cuda: skipped (--cpu-only)"; return; fi
	need_root cuda
	local nvcc archs stamp want
	nvcc=$(command -v nvcc || true)
	[[ -n $nvcc || ! -x /usr/local/cuda/bin/nvcc ]] || { nvcc=/usr/local/cuda/bin/nvcc; export PATH="/usr/local/cuda/bin:$PATH"; }
	if [[ -z $nvcc ]]; then
		log "cuda: no nvcc (CUDA toolkit) here; skipped: GPU rows will be reported as skipped"
		return
	fi
	archs=${CUDA_ARCHS:-$(gpu_archs)}
	if [[ -z $archs ]]; then
		log "cuda: no GPU visible (nvidia-smi) and CUDA_ARCHS unset; skipped (set CUDA_ARCHS=90 to build anyway)"
		return
	fi
	stamp=$(dirname "$cuda_lib")/.prlab-cuda-archs
	want="$archs $("$nvcc" --version | tail -n 1)"
	if [[ -f $cuda_lib && -f $stamp && $(cat "$stamp") == "$want" ]]; then
		log "cuda: $cuda_lib is already built for $archs"
		return
	fi
	make -n cuda-lib >/dev/null 2>&1 || die "cuda: the Makefile in $root has no cuda-lib target"
	# A library built for other archs (or by another nvcc) is not up to date
	# for this host even when make thinks so.
	rm -f "$cuda_lib" "$stamp"
	log "cuda: make cuda-lib CUDA_ARCHS=$archs"
	make cuda-lib "CUDA_ARCHS=$archs" >&2
	[[ -f $cuda_lib ]] || die "cuda: make cuda-lib did not produce $cuda_lib (set PRLAB_CUDA_LIB to where it builds)"
	printf '%s\n' "$want" >"$stamp"
	log "cuda: built $cuda_lib for $archs"
}

for s in "${selected[@]}"; do
	"step_$s"
done
log "done: ${selected[*]}"
