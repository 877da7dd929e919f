# build(): knobs as gen-fake-runtime takes them, refused with its words;
# every entry declared for ctypes; the content-addressed cache, shared by
# concurrent processes (F-1, F-2).
import ctypes
import os
import subprocess
import sys

import pytest
import simabi_fake
from simabi_fake import _build, _sources, abi


def test_knobs_as_mapping_or_strings():
    a = simabi_fake.sources("tmr", knobs={"strict": True, "status.finalize_device": -7,
                                          "must_not_call": ["comm_init", "comm_barrier"], "fail.prepare-copy": "1:-1000"})
    b = simabi_fake.sources("tmr", knobs=["fail.2=1:-1000", "must_not_call=comm_barrier,comm_init", "strict=1",
                                          "status.finalize_device=-0x7"])
    assert a.knobs == b.knobs == ("status.finalize_device=-7", "fail.2=1:-1000", "strict=true",
                                  "must_not_call=comm_barrier,comm_init")
    assert a.runtime == b.runtime


@pytest.mark.parametrize("kwargs,message", [
    ({"knobs": ["strict=yes"]}, 'knob "strict=yes": value must be true or false'),
    ({"knobs": {"status.get_runtime_size": 0}},
     "knob status.get_runtime_size: get_runtime_size does not return a status (size_t get_runtime_size(void))"),
    ({"profile": "refusing", "knobs": ["fail.2=1:-1000"]}, "fault knobs need the tmr profile (refusing models no fault site)"),
    ({"mutant": "nosuch"}, 'unknown mutant "nosuch" (see -list-mutants)'),
    ({"profile": "gpu"}, 'unknown profile "gpu" (tmr, refusing, legacy)'),
])
def test_refused_with_gen_fake_runtimes_words(kwargs, message):
    # sim/emit's TestPythonKnobErrorsAreGenFakeRuntimes compares many more with Go's.
    with pytest.raises(simabi_fake.KnobError) as e:
        simabi_fake.build(**kwargs)
    assert str(e.value) == message


@pytest.mark.parametrize("profile,knobs,size,depth", [
    ("legacy", None, 48512, 2),
    ("legacy", ["pipeline=host_build_graph"], 48576, 2),
    ("legacy", ["pipeline=single"], 64, 1),
    ("tmr", None, 64, 1),
])
def test_pipeline_knob_sets_the_contract(simabi_fake, profile, knobs, size, depth):
    # F-2, V-CONTRACT: pipeline= selects get_pipeline_contract's depth and
    # get_runtime_size; a legacy build presents tensormap_and_ringbuffer's
    # by default, tmr the single slot.
    with simabi_fake(profile=profile, knobs=knobs).load() as rt:
        assert rt.lib.get_runtime_size() == size
        assert rt.lib.get_runtime_alignment() == 64
        contract = ctypes.string_at(rt.lib.get_pipeline_contract(), 12)
        assert int.from_bytes(contract[8:12], "little") == depth


def test_pipeline_knob_refused_with_gen_fake_runtimes_words():
    with pytest.raises(simabi_fake.KnobError) as e:
        simabi_fake.build(profile="legacy", knobs=["pipeline=tmr"])
    assert str(e.value) == 'knob "pipeline=tmr": want tensormap_and_ringbuffer|host_build_graph|single'


def test_mutants_are_gen_fake_runtimes():
    names = [m.name for m in simabi_fake.mutants()]
    assert len(names) == len(set(names)) > 30
    m = {m.name: m for m in simabi_fake.mutants()}["prep-keeps-out"]
    assert (m.clause, m.rule, m.group, m.profile) == ("V-PREP-1.1", "V-PREP-1", "V", "tmr")
    r = {m.name: m for m in simabi_fake.mutants()}["refusing-latches"]
    assert r.profile == "refusing"
    with pytest.raises(simabi_fake.KnobError, match="only a refusing build shows"):
        simabi_fake.sources("tmr", mutant="refusing-latches")
    assert "MUTANT refusing-latches" in simabi_fake.sources("refusing", mutant="refusing-latches").runtime


def test_every_entry_is_declared(simabi_fake):
    # ctypes signatures of every entry of docs/contract.md and the hooks,
    # from abi.Symbols; an omitted entry is missing, as dlsym fails.
    fake = simabi_fake("legacy", omit=["comm_barrier"])
    with fake.load() as rt:
        entries = _sources.manifest()["entries"]["legacy"]
        assert len(entries) > 40
        for e in entries:
            if e["name"] == "comm_barrier":
                with pytest.raises(AttributeError):
                    getattr(rt.lib, e["name"])
                continue
            fn = getattr(rt.lib, e["name"])
            assert fn.argtypes is not None and len(fn.argtypes) == len(e["argtypes"]), e["name"]
        assert rt.lib.simpler_init.argtypes[-1] is ctypes.c_void_p  # legacy: 9 parameters, the prewarm config last
        assert len(rt.lib.simpler_init.argtypes) == 9
        assert rt.lib.create_device_context.restype is ctypes.c_void_p
        assert not hasattr(rt.lib, "simpler_kernel_mode_supported")  # not an entry of legacy


def test_cache_entry_holds_the_sources(simabi_fake):
    fake = simabi_fake("tmr", knobs={"null.create_device_context": True})
    src = _sources.fake_sources("tmr", knobs={"null.create_device_context": True})
    with open(fake.runtime_source) as f:
        assert f.read() == src.runtime
    assert simabi_fake("tmr", knobs={"null.create_device_context": True}).cached
    with fake.load() as rt:
        assert rt.lib.create_device_context() is None


def test_no_compiler_says_so(tmp_path):
    with pytest.raises(simabi_fake.NoCompilerError) as e:
        simabi_fake.build(cc="no-such-cc", cache_dir=str(tmp_path))
    assert str(e.value) == 'no C compiler found (set CC or install gcc): "no-such-cc" is not an executable in PATH'


CONCURRENT = """
import sys, simabi_fake
f = simabi_fake.build("tmr", knobs={"status.comm_barrier": -3}, cache_dir=sys.argv[1])
print(f.runtime_path, f.cached)
"""


def test_concurrent_builds_share_one_entry(tmp_path):
    # Four processes build the same fake into an empty cache at once (as
    # pytest-xdist workers do): each gets the one complete entry, and no
    # private build directory is left behind.
    cache = str(tmp_path / "cache")
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(simabi_fake.__file__))}
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT, cache], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(4)]
    outs = [p.communicate()[0].split() for p in procs]
    assert [p.returncode for p in procs] == [0] * 4
    paths = {o[0] for o in outs}
    assert len(paths) == 1, outs
    entries = sorted(os.listdir(cache))
    key = os.path.basename(os.path.dirname(paths.pop()))
    assert [e for e in entries if not e.startswith("acl-")] == [key], entries
    assert sorted(os.listdir(os.path.join(cache, key))) == [
        "ascendcl.c", "host_runtime.c", "libascendcl.so", "libhost_runtime.so", "simabi_fake.h"]
    f = simabi_fake.build("tmr", knobs={"status.comm_barrier": -3}, cache_dir=cache)
    assert f.cached
    with f.load() as rt:
        assert rt.lib.comm_barrier(None) == -3


def test_out_dir_gets_a_copy(tmp_path, simabi_fake):
    fake = simabi_fake("tmr", out_dir=str(tmp_path / "fake"))
    assert os.path.dirname(fake.runtime_path) == str(tmp_path / "fake") == os.path.dirname(fake.acl_path)
    with fake.load() as rt:  # a runtime instance of its own
        ctx = rt.lib.create_device_context()
        assert rt.lib.simpler_kernel_mode_supported(ctx) == 1
        rt.lib.destroy_device_context(ctx)


def test_default_cache_is_go_s(monkeypatch):
    monkeypatch.delenv("SIMABI_FAKE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
    assert _build.default_cache_dir() == "/x/cache/simabi/fakes"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/u")
    assert _build.default_cache_dir() == "/home/u/.cache/simabi/fakes"
    monkeypatch.setenv("SIMABI_FAKE_CACHE", "/c")
    assert _build.default_cache_dir() == "/c"
