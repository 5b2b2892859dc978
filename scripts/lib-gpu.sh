#!/usr/bin/env bash
# lib-gpu.sh — shell functions shared by prlab's GPU-host scripts
# (gpu-run.sh, layout-gpu-run.sh, h200-study.sh). Source it; it sets nothing
# on its own.
#
#   find_tool NAME            print the path of a CUDA tool (PATH, then /usr/local/cuda*/bin, /opt/cuda/bin)
#   write_env FILE ARCHS NVCC the run's environment: date, host, cores, nvcc, archs, nvidia-smi
#   build_lib ARCHS NVCC [extra nvcc flags...]
#                             build build/libprlab_cuda.so: one nvcc per csrc/*.cu in
#                             parallel (sm_ARCH for each arch + PTX of the last), then one link

find_tool() {
  command -v "$1" 2>/dev/null && return 0
  local d
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
    if [[ -x $d/$1 ]]; then
      echo "$d/$1"
      return 0
    fi
  done
  return 1
}

gencode_for() { # gencode_for "ARCHS": -gencode flags for each arch plus PTX of the last
  local a archs=$1
  for a in $archs; do
    printf '%s\n' -gencode "arch=compute_$a,code=sm_$a"
  done
  printf '%s\n' -gencode "arch=compute_${archs##* },code=compute_${archs##* }"
}

write_env() {
  local file=$1 archs=$2 nvcc=$3
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "nvcc: $("$nvcc" --version | tail -n 2 | tr '\n' ' ')"
    echo "archs: $archs (PTX compute_${archs##* })"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
  } >"$file"
}

build_lib() {
  local archs=$1 nvcc=$2
  shift 2
  local gencode flags pids=() status=0 src obj p extra
  mapfile -t gencode < <(gencode_for "$archs")
  flags=(-O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden -Xcompiler -Wall "${gencode[@]}" "$@")
  mkdir -p build/obj
  for src in pkg/cudabind/csrc/*.cu; do
    obj=build/obj/$(basename "${src%.cu}").o
    extra=()
    [[ $src == *layout.cu ]] && extra=(-Xptxas -v)
    echo "$nvcc ${flags[*]} ${extra[*]} -c $src -o $obj"
    "$nvcc" "${flags[@]}" "${extra[@]}" -c "$src" -o "$obj" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do
    wait "$p" || status=1
  done
  if ((status == 0)); then
    "$nvcc" -shared "${gencode[@]}" build/obj/*.o -lcusparse -o build/libprlab_cuda.so || status=1
  fi
  return "$status"
}
