# shellcheck shell=bash disable=SC2154 # src and out are the sourcing script's
# Shell functions that build upstream simpler's simulator runtimes from a
# source tree, shared by the upstream lane (lanes/upstream/run) and the
# consumer lane (lanes/consumer/run). Source it with these set:
#   src  the simpler source tree (absolute)
#   out  the folder each build goes to as $out/PLATFORM-RUNTIME (absolute)
#   lane the name failure messages start with (default "upstream lane")
# build_one PLATFORM RUNTIME builds libhost_runtime.so, libcpu_sim_context.so,
# libaicpu_kernel.so and libaicore_kernel.so into $out/PLATFORM-RUNTIME, with
# cmake's caches in its cache/ and the log in its build.log.

# The directories a runtime's build_config.py gives a target, absolute, joined by ';'.
target_dirs() { # RUNTIME_DIR TARGET include_dirs|source_dirs
  python3 - "$1" "$2" "$3" <<'PY'
import os, sys
rt, target, kind = sys.argv[1:]
cfg = {}
exec(open(os.path.join(rt, "build_config.py")).read(), cfg)
print(";".join(os.path.normpath(os.path.join(rt, d)) for d in cfg["BUILD_CONFIG"][target][kind]))
PY
}

# One cmake project into its own folder; the flags of a simulator build.
cmake_build() { # NAME SOURCE_DIR BUILD_DIR LOG [extra cmake args...]
  local name=$1 srcdir=$2 dir=$3 log=$4; shift 4
  mkdir -p "$dir"
  echo "== $name" >>"$log"
  if ! (cd "$dir" && cmake "$srcdir" -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DSIMPLER_DFX=1 \
          -DSIMPLER_ORCH_PROFILING=0 -DSIMPLER_SCHED_PROFILING=0 -DSIMPLER_TENSORMAP_PROFILING=0 \
          "-DSIMPLER_CMAKE_DIR=$src/cmake" "$@" >>"$log" 2>&1 &&
        cmake --build . -j"$(nproc)" >>"$log" 2>&1); then
    echo "${lane:-upstream lane}: building $name failed; see $log" >&2
    return 1
  fi
}

build_one() { # PLATFORM RUNTIME -> $out/PLATFORM-RUNTIME/{libhost_runtime.so,libcpu_sim_context.so,...}
  local plat=$1 rt=$2 dest=$out/$1-$2 rtdir=$src/src/$1/runtime/$2
  [ -f "$rtdir/build_config.py" ] || { echo "${lane:-upstream lane}: $src has no $plat/$rt runtime" >&2; return 1; }
  local cache=$dest/cache log=$dest/build.log
  mkdir -p "$cache"; : >"$log"
  cmake_build sim_context "$src/src/common/platform/sim/sim_context" "$cache/sim_context" "$log" || return 1
  local t
  for t in host aicpu aicore; do
    cmake_build "$t" "$src/src/$plat/platform/sim/$t" "$cache/$t" "$log" \
      "-DCUSTOM_INCLUDE_DIRS=$(target_dirs "$rtdir" "$t" include_dirs)" \
      "-DCUSTOM_SOURCE_DIRS=$(target_dirs "$rtdir" "$t" source_dirs)" || return 1
  done
  cp "$cache/sim_context/libcpu_sim_context.so" "$cache/host/libhost_runtime.so" \
     "$cache/aicpu/libaicpu_kernel.so" "$cache/aicore/libaicore_kernel.so" "$dest/"
}

# Upstream's simulator copies its executor binaries to /tmp/aicpu_sim_XXXXXX
# and /tmp/aicore_sim_XXXXXX (src/*/platform/sim/host/device_runner.cpp) and
# removes them only when finalize unloads them: a process a check ends
# otherwise (a hang it killed, a sequence without finalize) leaves its
# copies, about 0.6 MB each. sim_tmp_watch notes the copies there now and
# makes the lane's exit remove, and count, those made since that no live
# process maps.
sim_tmp_list() { ls -d /tmp/aicpu_sim_* /tmp/aicore_sim_* 2>/dev/null | sort || true; }
sim_tmp_watch() {
  sim_tmp_before=$(sim_tmp_list)
  trap sim_tmp_sweep EXIT
}
sim_tmp_sweep() {
  local f n=0
  while read -r f; do
    [ -n "$f" ] || continue
    grep -qsF "$f" /proc/[0-9]*/maps && continue
    rm -f "$f" && n=$((n + 1))
  done < <(comm -13 <(echo "$sim_tmp_before") <(sim_tmp_list))
  [ "$n" -eq 0 ] || echo "${lane:-upstream lane}: removed the executor copies upstream's simulator left in /tmp (aicpu_sim_*, aicore_sim_*): $n" >&2
}
