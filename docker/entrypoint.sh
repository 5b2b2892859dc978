#!/usr/bin/env bash
# docker/entrypoint.sh: what the prlab container runs when it starts.
#
#   1. builds the CUDA library for this host's GPU(s) (docker/install.sh, step
#      cuda: `make cuda-lib CUDA_ARCHS=<nvidia-smi compute_cap>`) unless it is
#      already built for them; without a visible GPU it says so and goes on
#      (the GPU rows are then reported as skipped, with that reason);
#   2. with no arguments, starts JupyterLab on port 8888 in the checkout;
#      with arguments, runs them instead (e.g. `prlab report ...`).
#
# Environment:
#   PRLAB_JUPYTER_TOKEN        the Jupyter token; when unset or empty a random
#                              one is generated and printed (never empty)
#   PRLAB_JUPYTER_ALLOW_ORIGIN e.g. https://colab.research.google.com, to let
#                              Colab use this container as a local runtime
#   PRLAB_SKIP_CUDA=1          do not build the CUDA library
#   CUDA_ARCHS                 build for these archs instead of the detected ones
#   PRLAB_ROOT                 the checkout (default: the folder above this one)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${PRLAB_ROOT:-$(dirname "$here")}
cd "$root"

log() { printf 'prlab: %s\n' "$*" >&2; }

if [[ ${PRLAB_SKIP_CUDA:-0} == 1 ]]; then
	log "PRLAB_SKIP_CUDA=1: not building the CUDA library"
elif ! bash "$here/install.sh" --root "$root" --only cuda; then
	log "WARNING: building the CUDA library failed (see above); GPU rows will be reported as skipped"
fi

if (($#)); then
	exec "$@"
fi

token=${PRLAB_JUPYTER_TOKEN:-}
if [[ -z $token ]]; then
	token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
	[[ ${#token} -eq 48 ]] || { log "could not generate a Jupyter token"; exit 1; }
	log "PRLAB_JUPYTER_TOKEN unset: generated a token for this run"
	log "open http://127.0.0.1:8888/lab/tree/notebooks?token=$token"
else
	log "Jupyter token: the one in PRLAB_JUPYTER_TOKEN"
	log "open http://127.0.0.1:8888/lab/tree/notebooks?token=<PRLAB_JUPYTER_TOKEN>"
fi
# Jupyter Server reads its token from JUPYTER_TOKEN (not from the command
# line, where `ps` would show it).
export JUPYTER_TOKEN=$token
unset PRLAB_JUPYTER_TOKEN

args=(lab --no-browser --ServerApp.ip=0.0.0.0 --ServerApp.port=8888
	--ServerApp.port_retries=0 --ServerApp.root_dir="$root")
if [[ -n ${PRLAB_JUPYTER_ALLOW_ORIGIN:-} ]]; then
	args+=(--ServerApp.allow_origin="$PRLAB_JUPYTER_ALLOW_ORIGIN")
fi
exec jupyter "${args[@]}"
