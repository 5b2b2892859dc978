# prlab — one Makefile for the main job, the tests and the GPU library.
# Targets are added by area; keep each target's recipe short and call Go or scripts/.
GO ?= go
.PHONY: all build test
all: build
build:
	$(GO) build ./...

# ---- pkg/cudabind: the CUDA shared library (needs nvcc; GPU hosts only) ----
# make cuda-lib                         all course targets: sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX
# make cuda-lib CUDA_ARCHS="90"         fast sm_90-only build for the H200 (PTX for 90 always added)
# The Go side finds build/libprlab_cuda.so by itself, or takes PRLAB_CUDA_LIB.
NVCC ?= nvcc
CUDA_ARCHS ?= 75 80 86 89 90
CUDA_PTX_ARCH ?= 90
CUDA_LIB ?= build/libprlab_cuda.so
CUDA_SRCS := $(wildcard pkg/cudabind/csrc/*.cu)
CUDA_HDRS := $(wildcard pkg/cudabind/csrc/*.h pkg/cudabind/csrc/*.cuh)
NVCCFLAGS ?= -O3 -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden,-Wall \
	$(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(CUDA_PTX_ARCH),code=compute_$(CUDA_PTX_ARCH)
.PHONY: cuda-lib
cuda-lib: $(CUDA_LIB)
	@echo "cuda-lib: built $(abspath $(CUDA_LIB)) (archs: $(CUDA_ARCHS), PTX: compute_$(CUDA_PTX_ARCH)); the Go side finds it there, or set PRLAB_CUDA_LIB=$(abspath $(CUDA_LIB))"
$(CUDA_LIB): $(CUDA_SRCS) $(CUDA_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(CUDA_SRCS) -lcusparse -o $@

# ---- notebooks (notebooks/*.ipynb under GoNB; issue 4) ----
# make notebook-deps    apt + go steps the notebooks need (root; Debian 12; Node.js + npm for make jlab if missing)
# make kernel           build bin/gonb + bin/goimports (versions pinned in go.mod), write the "gonb" kernel spec
# make notebooks        execute every notebook headlessly -> reports/notebooks/NAME.{ipynb,html} (+ assets/: ECharts
#                       and nbconvert's CSS, one shared file each); fails on any cell error
# make notebooks-commit the same, and write the outputs back into notebooks/ (what gets committed; without ECharts)
# make notebooks-test   Run All in the classic Notebook server in headless Chromium; asserts a chart drew pixels
# make notebook-server  start the classic Notebook server on 127.0.0.1:8888 for a person
# make jlab             build the JupyterLab 3.6.8 front end (tools/jlab, npm ci from its lock file) into build/jlab
# make notebooks-lab-test  every notebook in that JupyterLab (Debian's jupyterlab_server) + headless Chromium:
#                       untrusted as saved, Run All from the menu, trusted after saving; errors, tables, charts
# make notebook-lab-server  that JupyterLab 3.6.8 on 127.0.0.1:8889 for a person (prints the token URL)
NB_PYTHON ?= /usr/bin/python3
NB_JOBS ?= 2
NB_OUT ?= reports/notebooks
NB_PARAMS ?=
NOTEBOOKS ?= $(sort $(wildcard notebooks/[0-9]*.ipynb))
NB_APT := jupyter-notebook jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-nbformat chromium \
	python3-jupyter-server python3-jupyterlab-server
.PHONY: notebook-deps kernel notebooks notebooks-commit notebooks-test notebook-server jlab notebooks-lab-test notebook-lab-server
notebook-deps:
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(NB_APT)
	command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm
	$(GO) mod download
kernel:
	$(GO) build -o bin/ github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports
	$(GO) run ./tools/nbkernel -gonb bin/gonb -root .
notebooks: kernel
	$(GO) build ./pkg/... && $(GO) vet ./pkg/nb
	rm -rf notebooks/.cache
	$(NB_PYTHON) tools/nbrun.py --jobs $(NB_JOBS) --out $(NB_OUT) $(foreach p,$(NB_PARAMS),--param $(p)) $(NOTEBOOKS)
notebooks-commit: kernel
	rm -rf notebooks/.cache
	$(NB_PYTHON) tools/nbrun.py --inplace --jobs $(NB_JOBS) --out $(NB_OUT) $(NOTEBOOKS)
notebooks-test: kernel testsum
	PRLAB_NOTEBOOK_TEST=1 PRLAB_NB_OUT=$(NB_OUT) $(TESTSUM) -v -- -count=1 -timeout 20m -run 'TestNotebookInBrowser|TestExportedNotebookHTML|TestChartUnderRequireJS' ./pkg/nb/
JLAB_BUILD ?= build/jlab
JLAB_SRC := tools/jlab/package.json tools/jlab/package-lock.json tools/jlab/index.js tools/jlab/webpack.config.js
jlab: $(JLAB_BUILD)/bundle.js
$(JLAB_BUILD)/bundle.js: $(JLAB_SRC)
	cd tools/jlab && npm ci --no-audit --no-fund --loglevel=warn
	cd tools/jlab && PRLAB_JLAB_OUT=$(abspath $(JLAB_BUILD)) npm run build --silent
	@touch $@
notebooks-lab-test: kernel jlab testsum
	PRLAB_LAB_TEST=1 PRLAB_JLAB_BUILD=$(abspath $(JLAB_BUILD)) $(TESTSUM) -v -- -count=1 -timeout 40m -run 'TestNotebooksInJupyterLab' ./pkg/nb/
notebook-lab-server: kernel jlab
	PRLAB_JLAB_BUILD=$(abspath $(JLAB_BUILD)) $(NB_PYTHON) tools/jlab/main.py --ServerApp.ip=127.0.0.1 --ServerApp.port=8889 \
		--ServerApp.open_browser=False --ServerApp.root_dir=$(CURDIR) $(if $(filter 0,$(shell id -u)),--allow-root)
notebook-server: kernel
	$(NB_PYTHON) -m notebook --no-browser --ip=127.0.0.1 --port=8888 --NotebookApp.notebook_dir=$(CURDIR) $(if $(filter 0,$(shell id -u)),--allow-root)

# ---- the main job (issues 2 and 7): report, tests ----
# The real graph is bundled in data/aan (acl.txt.gz, papers.tsv.gz, checked against SHA256SUMS):
# nothing is downloaded or copied at run time.
# make report   the README's first command: run the study, write $(PRLAB_OUT)/{index.html,results.json,*.csv}
# make test     the README's second command: every Go test (the browser test needs chromium; .ci/run installs it),
#               summarised by tools/testsum: the skipped tests with their messages, then "N passed, N failed, N skipped"
#               last; exit status 1 when a test or a build failed. TEST_SUMMARY_DIR=DIR also saves the counts to
#               DIR/<target>.json (.ci/run adds up every test target's with `testsum --total`).
PRLAB_OUT ?= reports/latest
REPORT_FLAGS ?=
TEST_SUMMARY_DIR ?=
TESTSUM = bin/testsum $(if $(TEST_SUMMARY_DIR),--save $(TEST_SUMMARY_DIR)/$@.json)
.PHONY: report test testsum
report:
	$(GO) run ./cmd/prlab report --out $(PRLAB_OUT) $(REPORT_FLAGS)
test: testsum
	$(TESTSUM) -- -timeout 30m ./...
testsum:
	@$(GO) build -o bin/testsum ./tools/testsum

# ---- docker/ (issue 6): shell lint and the container's checks (no Docker engine needed) ----
# make lint-sh       shellcheck (Debian package `shellcheck`) over every shell script in git:
#                    *.sh, .ci/run and the shell scripts in docker/
# make docker-check  docker/install.sh in its CPU-safe mode (--cpu-only --offline) into
#                    build/docker-check (Go check, GoNB + goimports from go.mod, kernel spec,
#                    one GoNB cell through nbclient where Jupyter is installed, the prlab
#                    command; no GPU, no download but Go modules), then the Dockerfile and
#                    script tests in ./docker
DOCKER_CHECK_DIR ?= $(CURDIR)/build/docker-check
.PHONY: lint-sh docker-check
lint-sh:
	@command -v shellcheck >/dev/null || { echo "lint-sh: shellcheck is missing: apt-get install -y shellcheck" >&2; exit 1; }
	@files=$$(git ls-files -- '*.sh' .ci/run 'docker/*' | while read -r f; do \
		case $$f in *.sh) echo "$$f" ;; *) head -n 1 "$$f" | grep -qE '^#!.*(/|env )(ba|da)?sh\b' && echo "$$f" ;; esac; \
	done | sort -u); \
	echo "shellcheck -x $$(echo $$files)"; shellcheck -x $$files
docker-check: testsum
	rm -rf $(DOCKER_CHECK_DIR)
	JUPYTER_DATA_DIR=$(DOCKER_CHECK_DIR)/jupyter bash docker/install.sh --cpu-only --offline \
		--prefix $(DOCKER_CHECK_DIR) --only go,tools,kernel,smoke,cli,cuda
	$(GO) vet ./docker/...
	$(TESTSUM) -- -count=1 ./docker/...

# ---- the scale study (issue 5): every implementation on R-MAT 2^16..2^24 and 2-D grids ----
# make scale                                   default: scales 16..24 + grids, 5 min budget -> reports/scale-latest/
# make scale SCALE_FLAGS="--max-scale 20"      anything `prlab scale -h` lists; --plan prints the plan only
# make scale-gpu-binary                        build .gpu/prlab (cgo, dlopen: no CUDA needed here) for a GPU host
SCALE_OUT ?= reports/scale-latest
SCALE_FLAGS ?=
.PHONY: scale scale-gpu-binary
scale:
	$(GO) run ./cmd/prlab scale --out $(SCALE_OUT) $(SCALE_FLAGS)
scale-gpu-binary:
	CGO_ENABLED=1 $(GO) build -o .gpu/prlab ./cmd/prlab

# ---- the GPU host round trip (issues 3, 5, 7): build here, run there ----
# make gpu-bundle   .gpu/prlab + .gpu/cudabind.test + .gpu/pagerank.test (stripped: the device tool carries at most 64 MiB
#                   with the working tree) (+ .gpu/COMMIT) for scripts/h200-study.sh on a GPU host;
#                   carry .gpu and data/aan (bundled, committed) to the host, then: scripts/h200-study.sh build tests sanitize report oom
.PHONY: gpu-bundle
gpu-bundle:
	@mkdir -p .gpu
	$(GO) build -ldflags='-s -w' -o .gpu/prlab ./cmd/prlab
	$(GO) test -c -ldflags='-s -w' -o .gpu/cudabind.test ./pkg/cudabind
	$(GO) test -c -ldflags='-s -w' -o .gpu/pagerank.test ./pkg/pagerank
	git rev-parse HEAD > .gpu/COMMIT
	@if [ -n "$$(git status --porcelain --untracked-files=no)" ]; then echo "$$(cat .gpu/COMMIT)+dirty" > .gpu/COMMIT; fi
	@echo "gpu-bundle: .gpu/ ready for commit $$(cat .gpu/COMMIT)"
# make gap-src GAPBS=DIR   GAP's source (a clone of sbeamer/gapbs at DIR) into the git-ignored .gap/gapbs,
#                   with its commit in .gap/gapbs/REVISION, for scripts/gap-vs-t1.sh (carry .gap/gapbs to the host)
GAPBS ?=
.PHONY: gap-src
gap-src:
	@test -n "$(GAPBS)" || { echo "gap-src: set GAPBS to a clone of https://github.com/sbeamer/gapbs" >&2; exit 2; }
	rm -rf .gap/gapbs && mkdir -p .gap/gapbs
	git -C "$(GAPBS)" archive HEAD | tar x -C .gap/gapbs
	git -C "$(GAPBS)" rev-parse HEAD > .gap/gapbs/REVISION
	@echo "gap-src: .gap/gapbs holds GAP $$(cat .gap/gapbs/REVISION)"
