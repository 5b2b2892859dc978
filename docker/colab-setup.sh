#!/usr/bin/env bash
# docker/colab-setup.sh: prlab's notebooks on a GPU host without Docker
# (Google Colab, Kaggle, a cloud VM with a GPU and Python).
#
# In a Colab (Python) notebook with a GPU runtime:
#   !git clone <prlab repository URL> prlab
#   !bash prlab/docker/colab-setup.sh
# then Runtime > Restart session, Runtime > Change runtime type > "Go (gonb)",
# and open prlab/notebooks/*.ipynb (File > Upload notebook, or from Drive).
# On a VM: bash docker/colab-setup.sh, then start Jupyter (see docker/README.md).
#
# It runs docker/install.sh (the same script the container is built with):
# pinned Go, GoNB + goimports from go.mod, gopls, the "gonb" kernel spec, a
# GoNB smoke cell, the prlab command, the CUDA library for this host's GPU
# (with the host's nvcc); the real graph is bundled in the checkout (data/aan).
# JupyterLab is installed too where no `jupyter` command exists. Extra arguments go to
# install.sh (e.g. --skip gopls).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
export PRLAB_PREFIX=${PRLAB_PREFIX:-"$HOME/.local/prlab"}

steps=go,tools,gopls
if ! command -v jupyter >/dev/null; then
	steps+=,jupyterlab
fi
steps+=,kernel,smoke,cli,cuda

bash "$here/install.sh" --root "$root" --only "$steps" "$@"
for arg; do
	if [[ $arg == --dry-run ]]; then exit 0; fi
done

# Colab and Kaggle start kernels from their own server; the kernel spec carries
# the right PATH, and there (as root) the tools are also linked into
# /usr/local/bin so that `!prlab ...` cells find them.
if [[ $(id -u) == 0 && -n ${COLAB_RELEASE_TAG:-}${COLAB_GPU:-}${KAGGLE_KERNEL_RUN_TYPE:-} ]]; then
	for tool in "$PRLAB_PREFIX"/bin/* "$PRLAB_PREFIX"/go/bin/go; do
		if [[ -x $tool ]]; then ln -sf "$tool" "/usr/local/bin/$(basename "$tool")"; fi
	done
fi

cat <<EOF

prlab is set up in $root.
  Colab/Kaggle: Runtime > Restart session, then Runtime > Change runtime type >
                "Go (gonb)", and open $root/notebooks/*.ipynb.
  A GPU VM:     start Jupyter, e.g.
                  ${PRLAB_PREFIX}/jupyter/bin/jupyter lab --no-browser --ip=127.0.0.1 $root
                (or your own jupyter), and pick the "Go (gonb)" kernel.
  The report:   prlab report ... (in $root)
EOF
