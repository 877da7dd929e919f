"""simabi's fake host runtime for Python tests, without Go.

    import simabi_fake

    fake = simabi_fake.build("tmr", knobs={"status.simpler_kernel_mode_launch": -93})
    rt = fake.load()          # rt.lib: the runtime, rt.acl: the fake ACL
    ctx = rt.lib.create_device_context()

build() compiles the fake runtime and its fake ACL from the C sources that
simabi's Go emitter (sim/emit) writes, shipped in this package, with the
system C compiler, into a content-addressed per-user cache shared with
gen-fake-runtime. Knobs, mutants and profiles are gen-fake-runtime's
(docs/fake-runtime.md). The pytest plugin (simabi_fake.pytest_plugin, loaded
by pytest when the package is installed) adds the fixture simabi_fake and
the marker simabi_forked. install() and restore() (python3 -m simabi_fake
install|restore SIMPLER_ROOT) put the legacy fake where upstream simpler's
RuntimeBuilder looks, and upstream's files back.
"""

from __future__ import annotations

import dataclasses
import os

from . import abi
from ._build import BuildError, NoCompilerError, build_fake_files, build_recorder_files, copy_file
from ._install import InstallError, install, restore
from ._load import ACL, ACLError, Runtime
from ._sources import BundleError, KnobError, Sources, fake_sources, manifest, recorder_source

__all__ = ["build", "build_recorder", "install", "restore", "InstallError", "sources", "recorder_source", "mutants", "knob_forms", "Fake", "Recorder",
           "Mutant", "Runtime", "ACL", "ACLError", "Sources", "KnobError", "BuildError", "NoCompilerError",
           "BundleError", "abi", "PROFILES"]

PROFILES = tuple(manifest()["profiles"])


@dataclasses.dataclass(frozen=True)
class Mutant:
    """A runtime that breaks exactly one clause of the contract (F-4). Its
    profile is the one to build it with: tmr, or refusing for a clause only
    a refusing build shows."""

    name: str
    clause: str
    rule: str
    group: str
    profile: str
    description: str


def mutants() -> list[Mutant]:
    """Every mutant, as gen-fake-runtime -list-mutants prints them."""
    return [Mutant(**m) for m in manifest()["mutants"]]


def knob_forms() -> list[tuple[str, str]]:
    """The knobs build() takes, as (key, value) forms: gen-fake-runtime's."""
    return [(f["key"], f["value"]) for f in manifest()["knobs"]["forms"]]


def sources(profile: str = "tmr", knobs=None, mutant: str | None = None, omit=None) -> Sources:
    """The C sources gen-fake-runtime -emit-only writes for the same
    arguments, without compiling them."""
    return fake_sources(profile, knobs, mutant, omit)


def _entries(profile: str) -> list[dict]:
    return manifest()["entries"][profile]


@dataclasses.dataclass(frozen=True)
class Fake:
    """A built fake: its files, and load() to use it."""

    profile: str
    knobs: tuple[str, ...]  # the knobs as gen-fake-runtime -knob arguments
    mutant: str
    omit: tuple[str, ...]
    runtime_path: str  # libhost_runtime.so
    acl_path: str  # libascendcl.so, in the same directory
    runtime_source: str  # host_runtime.c
    acl_source: str  # ascendcl.c
    header_path: str  # simabi_fake.h
    key: str  # the cache key
    cached: bool  # nothing was compiled

    def load(self) -> Runtime:
        """Loads the runtime (RTLD_NOW | RTLD_LOCAL) and the fake ACL, every
        entry declared for ctypes."""
        return Runtime(self.runtime_path, _entries(self.profile), self.acl_path)


def build(profile: str = "tmr", knobs=None, mutant: str | None = None, omit=None, *, cc: str | None = None,
          cache_dir: str | None = None, out_dir: str | None = None) -> Fake:
    """Builds the fake runtime and its fake ACL (or finds them in the cache).

    profile: "tmr", "refusing" or "legacy". knobs: gen-fake-runtime's -knob
    arguments, as a list of "key=value" strings or a mapping
    ({"status.simpler_kernel_mode_launch": -93, "strict": True,
    "must_not_call": ["comm_barrier"]}). mutant: a name of mutants(). omit:
    symbols to leave unexported. cc: the C compiler command (default $CC,
    then cc). cache_dir: default $SIMABI_FAKE_CACHE, then ~/.cache/simabi/fakes.
    out_dir: also copy the libraries, sources and header there, and return
    the copies. Raises KnobError (a bad profile, knob, mutant or symbol, in
    gen-fake-runtime's words), NoCompilerError or BuildError."""
    src = fake_sources(profile, knobs, mutant, omit)
    directory, key, cached = build_fake_files(src.runtime, src.acl, src.header, cc, cache_dir)
    files = manifest()["build"]["files"]
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        for name in ("acl_lib", "runtime_lib", "runtime_src", "acl_src", "header"):
            copy_file(os.path.join(directory, files[name]), os.path.join(out_dir, files[name]))
        directory = out_dir
    p = {name: os.path.join(directory, files[name]) for name in files}
    return Fake(profile=src.profile, knobs=src.knobs, mutant=src.mutant, omit=src.omit,
                runtime_path=p["runtime_lib"], acl_path=p["acl_lib"], runtime_source=p["runtime_src"],
                acl_source=p["acl_src"], header_path=p["header"], key=key, cached=cached)


@dataclasses.dataclass(frozen=True)
class Recorder:
    """A built recording runtime (docs/trace.md) and the session it records:
    the target it forwards to and where its traces go."""

    runtime_path: str  # libhost_runtime.so, the recorder
    source_path: str  # recorder.c
    target_path: str
    trace_file: str  # SIMABI_RECORD_FILE: %p is the process id
    revision: str
    key: str
    cached: bool

    @property
    def env(self) -> dict[str, str]:
        """The environment a process that loads the recorder needs."""
        return {"SIMABI_RECORD_TARGET": self.target_path, "SIMABI_RECORD_FILE": self.trace_file}

    def load(self) -> Runtime:
        """Loads the recorder in this process (it opens the target and the
        trace as it loads, from env), every entry declared; .acl is the fake
        ACL beside the target, if there is one."""
        saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        try:
            profile = "legacy" if self.revision == "legacy" else "tmr"
            acl = os.path.join(os.path.dirname(self.target_path), manifest()["build"]["files"]["acl_lib"])
            return Runtime(self.runtime_path, _entries(profile), acl)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def traces(self) -> list[str]:
        """The trace files written so far, one per recording process."""
        import glob

        return sorted(glob.glob(glob.escape(self.trace_file).replace("%p", "*")))


def build_recorder(target_path: str, trace_dir: str, *, revision: str = "kernel", hooks: bool = True,
                   cc: str | None = None, cache_dir: str | None = None) -> Recorder:
    """Builds the recording runtime (gen-fake-runtime -recorder) for the
    runtime at target_path, its traces to go into trace_dir (created if
    missing) as session-<pid>.ops. revision: "kernel" or "legacy", the ABI of
    the target; hooks=False leaves the simulation hooks unexported."""
    src = recorder_source(revision, hooks)
    directory, key, cached = build_recorder_files(src, cc, cache_dir)
    os.makedirs(trace_dir, exist_ok=True)
    files = manifest()["build"]["files"]
    return Recorder(runtime_path=os.path.join(directory, files["runtime_lib"]),
                    source_path=os.path.join(directory, files["recorder_src"]),
                    target_path=os.path.abspath(target_path),
                    trace_file=os.path.join(os.path.abspath(trace_dir), "session-%p.ops"),
                    revision=revision or "kernel", key=key, cached=cached)
