# shellcheck shell=bash disable=SC2154 # lane and say are the sourcing script's
# Shell functions that build upstream simpler's nanobind extension
# (_task_interface) from a source tree, shared by the consumer lane
# (lanes/consumer/run) and the unit-suite lane (lanes/unitsuite/run).
#
# nanobind_tree DEST: prints the nanobind source tree to build with:
#   NANOBIND_DIR as it is; else one made in DEST from the bare git
#   directories NANOBIND_GIT and ROBIN_MAP_GIT (its ext/robin_map at the
#   commit nanobind pins, or robin-map's HEAD when that commit is missing);
#   else nothing.
# build_task_interface SRC NANOBIND BUILD LOG PYTHON: configures SRC's
#   CMakeLists.txt with nanobind and builds its _task_interface target into
#   BUILD; prints the module's path, or returns 1 after printing why on stderr.

nanobind_tree() {
  local nb=${NANOBIND_DIR:-}
  if [ -z "$nb" ] && [ -n "${NANOBIND_GIT:-}" ]; then
    nb=$1
    if [ ! -f "$nb/cmake/nanobind-config.cmake" ]; then
      [ -n "${ROBIN_MAP_GIT:-}" ] || { echo "$lane: NANOBIND_GIT needs ROBIN_MAP_GIT (its ext/robin_map submodule)" >&2; return 2; }
      rm -rf "$nb"; mkdir -p "$nb"
      git -C "$NANOBIND_GIT" archive HEAD | tar -x -C "$nb"
      local pin
      pin=$(git -C "$NANOBIND_GIT" ls-tree HEAD ext/robin_map | awk '{print $3}')
      mkdir -p "$nb/ext/robin_map"
      if [ -n "$pin" ] && git -C "$ROBIN_MAP_GIT" cat-file -e "$pin^{commit}" 2>/dev/null; then
        git -C "$ROBIN_MAP_GIT" archive "$pin" | tar -x -C "$nb/ext/robin_map"
      else
        echo "$lane: robin-map: nanobind pins ${pin:-no commit}, which $ROBIN_MAP_GIT lacks; using its HEAD" >&2
        git -C "$ROBIN_MAP_GIT" archive HEAD | tar -x -C "$nb/ext/robin_map"
      fi
    fi
  fi
  [ -z "$nb" ] || echo "$nb"
}

build_task_interface() {
  local src=$1 nb=$2 pyb=$3 pylog=$4 python=$5 mod
  mkdir -p "$pyb"
  command -v cmake >/dev/null || { echo "$lane: installing cmake" >&2; apt-get update -qq && apt-get install -y -qq cmake >/dev/null; }
  if ! "$python" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    echo "$lane: installing python3-dev" >&2; apt-get update -qq && apt-get install -y -qq python3-dev >/dev/null
  fi
  # Configured the way scikit-build-core configures it (SKBUILD_PROJECT_*),
  # so the extension stays in the build folder instead of SRC/python.
  if ! { [ -f "$pyb/CMakeCache.txt" ] ||
         cmake -S "$src" -B "$pyb" -DPython_EXECUTABLE="$python" -Dnanobind_DIR="$nb/cmake" \
           -DSKBUILD_PROJECT_NAME=simpler -DSKBUILD_PROJECT_VERSION=0.1.0 -DCMAKE_BUILD_TYPE=Release >"$pylog" 2>&1; }; then
    echo "configuring upstream's CMakeLists.txt with nanobind failed; see $pylog" >&2; return 1
  fi
  if ! cmake --build "$pyb" --target _task_interface -j"$(nproc)" >>"$pylog" 2>&1; then
    echo "building the _task_interface extension failed; see $pylog" >&2; return 1
  fi
  mod=$(find "$pyb" -name '_task_interface*.so' -print -quit)
  [ -n "$mod" ] || { echo "no _task_interface*.so in $pyb" >&2; return 1; }
  echo "$mod"
}
