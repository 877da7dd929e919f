#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script. OSS-Fuzz's environment gives $SRC,
# $OUT, $WORK, $CC, $CXX, $CXXFLAGS, $LIB_FUZZING_ENGINE and $SANITIZER;
# fuzz/libfuzzer reads them and builds every fuzz target of the module into
# $OUT (binaries, <fuzzer>_seed_corpus.zip, <fuzzer>.options), exactly as
# `make fuzz-libfuzzer` does locally.
cd "$SRC/simabi"
SIMABI_FUZZ_WORK="${WORK:-/tmp}/simabi-libfuzzer" fuzz/libfuzzer build
