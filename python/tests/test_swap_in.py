# install() / restore() and python3 -m simabi_fake install|restore on a
# simpler build made in a temporary directory (dummy upstream files): the
# legacy fake and its ACL go where upstream's RuntimeBuilder looks, every
# file written or moved is named, restore gives upstream's files back byte
# for byte, and a second install or a root that is not a simpler build is
# refused before anything changes (docs/fake-runtime.md, "Swapping the fake
# into a simpler build").
import glob
import os
import subprocess
import sys

import pytest
import simabi_fake

DIRS = ["build/lib/a2a3/sim/tensormap_and_ringbuffer", "build/lib/a2a3/sim/host_build_graph",
        "build/lib/a5/sim/tensormap_and_ringbuffer"]
RECORD_HEADER = ("# simabi's fake runtime, installed over upstream's; `gen-fake-runtime restore` or "
                 "`python3 -m simabi_fake restore` puts upstream's back\n")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    # One build cache for the module: the legacy fake is compiled once.
    return str(tmp_path_factory.mktemp("cache"))


def simpler_tree(root, dirs=DIRS):
    files = {"build/lib/libcpu_sim_context.so": b"upstream context\n"}
    for d in dirs:
        for lib in ("libhost_runtime.so", "libaicpu_kernel.so", "libaicore_kernel.so"):
            files[f"{d}/{lib}"] = f"upstream {d}/{lib}\n".encode()
    for rel, body in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(body)
        os.chmod(p, 0o755)
    return files


def tree(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


def test_install_then_restore_gives_upstreams_bytes_back(tmp_path, cache):
    root = str(tmp_path / "simpler")
    before = simpler_tree(root)
    lines = simabi_fake.install(root, {"strict": True}, cache_dir=cache)
    want = []
    for d in sorted(DIRS):
        p = os.path.join(root, d)
        want += [f"wrote {p}/simabi-fake.installed", f"moved {p}/libhost_runtime.so -> {p}/.libhost_runtime.so.upstream",
                 f"wrote {p}/libhost_runtime.so", f"wrote {p}/libascendcl.so"]
    assert lines == want
    installed = tree(root)
    for d in DIRS:
        pipeline = {"tensormap_and_ringbuffer": "", "host_build_graph": "pipeline=host_build_graph"}[os.path.basename(d)]
        fake = simabi_fake.build("legacy", ["strict=true"] + ([pipeline] if pipeline else []), cache_dir=cache)
        with open(fake.runtime_path, "rb") as f:
            assert installed[f"{d}/libhost_runtime.so"] == f.read()
        with open(fake.acl_path, "rb") as f:
            assert installed[f"{d}/libascendcl.so"] == f.read()
        assert installed[f"{d}/.libhost_runtime.so.upstream"] == before[f"{d}/libhost_runtime.so"]
        assert installed[f"{d}/libaicpu_kernel.so"] == before[f"{d}/libaicpu_kernel.so"]
        assert installed[f"{d}/simabi-fake.installed"].decode() == (
            RECORD_HEADER + "profile legacy\nknob strict=true\n" + (f"knob {pipeline}\n" if pipeline else "")
            + "aside libhost_runtime.so\nnew libascendcl.so\n")
    assert installed["build/lib/libcpu_sim_context.so"] == before["build/lib/libcpu_sim_context.so"]
    # Upstream's test_host_runtime_abi.py wants one libhost_runtime.* per directory.
    for d in DIRS:
        assert [os.path.basename(p) for p in glob.glob(os.path.join(root, d, "libhost_runtime.*"))] == ["libhost_runtime.so"]
    # The installed fakes load from there (the ACL found beside them), hand
    # out the fake's handles (a serial under 0x5ab1 in the top bits) and
    # present their directory's pipeline: run storage of upstream's
    # tensormap_and_ringbuffer build (48512 bytes) or host_build_graph's (48576).
    for d, size in ((DIRS[0], 48512), (DIRS[1], 48576)):
        with simabi_fake.Fake(**{**fake.__dict__, "runtime_path": os.path.join(root, d, "libhost_runtime.so"),
                                 "acl_path": os.path.join(root, d, "libascendcl.so")}).load() as rt:
            assert rt.lib.get_runtime_size() == size
            ctx = rt.lib.create_device_context()
            assert ctx >> 48 == 0x5ab1
            rt.lib.destroy_device_context(ctx)

    lines = simabi_fake.restore(root)
    want = []
    for d in sorted(DIRS):
        p = os.path.join(root, d)
        want += [f"moved {p}/.libhost_runtime.so.upstream -> {p}/libhost_runtime.so", f"removed {p}/libascendcl.so",
                 f"removed {p}/simabi-fake.installed"]
    assert lines == want
    assert tree(root) == before
    assert oct(os.stat(os.path.join(root, DIRS[0], "libhost_runtime.so")).st_mode & 0o777) == "0o755"
    assert simabi_fake.restore(root) == []


def test_second_install_is_refused(tmp_path, cache):
    root = str(tmp_path / "simpler")
    before = simpler_tree(root, DIRS[:1])
    simabi_fake.install(root, cache_dir=cache)
    installed = tree(root)
    d = os.path.join(root, DIRS[0])
    with pytest.raises(simabi_fake.InstallError) as e:
        simabi_fake.install(root, cache_dir=cache)
    assert str(e.value) == f"{d} already holds a fake (simabi-fake.installed); gen-fake-runtime restore {root} first"
    assert tree(root) == installed
    simabi_fake.restore(root)
    assert tree(root) == before


@pytest.mark.parametrize("make,knobs,message", [
    (lambda r: os.makedirs(r), None,
     "{root} is not a simpler build: no build/lib/<arch>/sim/<runtime>/libhost_runtime.so "
     "(python3 simpler_setup/build_runtimes.py --platforms a2a3sim a5sim makes them)"),
    (lambda r: None, None, "{root}: no such directory"),
    (lambda r: simpler_tree(r, ["build/lib/a2a3/sim/aicpu_build_graph"]), None,
     "{root}/build/lib/a2a3/sim/aicpu_build_graph: a simulator runtime install does not know "
     "(it knows tensormap_and_ringbuffer, host_build_graph of a2a3, a5)"),
    (lambda r: simpler_tree(r), ["pipeline=single"], 'knob "pipeline=single": install sets the pipeline per runtime directory'),
])
def test_bad_root_or_knob_is_refused(tmp_path, cache, make, knobs, message):
    root = str(tmp_path / "simpler")
    make(root)
    before = tree(root) if os.path.isdir(root) else None
    with pytest.raises(simabi_fake.InstallError) as e:
        simabi_fake.install(root, knobs, cache_dir=cache)
    assert str(e.value) == message.format(root=root)
    assert (tree(root) if os.path.isdir(root) else None) == before


def test_command_line(tmp_path, cache):
    root = str(tmp_path / "simpler")
    before = simpler_tree(root, DIRS[:1])
    env = {**os.environ, "SIMABI_FAKE_CACHE": cache, "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    cmd = [sys.executable, "-m", "simabi_fake"]
    r = subprocess.run(cmd + ["install", "-knob", "strict=true", root], env=env, capture_output=True, text=True)
    d = os.path.join(root, DIRS[0])
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines() == [f"wrote {d}/simabi-fake.installed",
                                     f"moved {d}/libhost_runtime.so -> {d}/.libhost_runtime.so.upstream",
                                     f"wrote {d}/libhost_runtime.so", f"wrote {d}/libascendcl.so"]
    r = subprocess.run(cmd + ["install", root], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (
        2, "", f"simabi_fake install: {d} already holds a fake (simabi-fake.installed); gen-fake-runtime restore {root} first\n")
    r = subprocess.run(cmd + ["restore", root], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")
    assert len(r.stdout.splitlines()) == 3
    assert tree(root) == before
    r = subprocess.run(cmd + ["restore", root], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (
        0, "", f"simabi_fake restore: {root} holds no fake (no simabi-fake.installed under build/lib); nothing to do\n")
    r = subprocess.run(cmd + ["install", "-knob", "strict=yes", root], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", 'simabi_fake install: knob "strict=yes": value must be true or false\n')
