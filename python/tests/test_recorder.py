# A recorded session (docs/trace.md): the recording runtime over a fake,
# loaded in this process, records a consumer's kernel session and a program
# session; abicheck -check-trace, built from this checkout with Go, judges
# every recorded call against the model and finds nothing.
import ctypes
import os
import shutil
import subprocess

import pytest
import simabi_fake
from simabi_fake import abi

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def abicheck(tmp_path_factory):
    go = shutil.which("go")
    if go is None:
        pytest.skip("no go on PATH: abicheck -check-trace is built from this checkout with Go")
    if not os.path.exists(os.path.join(REPO, "go.mod")):
        pytest.skip(f"{REPO} is not a simabi checkout: abicheck is built from one")
    exe = str(tmp_path_factory.mktemp("abicheck") / "abicheck")
    r = subprocess.run([go, "build", "-o", exe, "./cmd/abicheck"], cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "CGO_ENABLED": "0"})
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.parametrize("mutant,verdict", [("", ", 0 fail, "), ("ids-from-one", "\n--- M-1 fail: ")])
def test_recorded_session_is_checked(tmp_path, abicheck, mutant, verdict):
    # The target is a copy of a fake: a runtime instance of its own. On the
    # mutant whose first id is 1, the trace shows M-1 broken.
    target = simabi_fake.build("tmr", mutant=mutant, out_dir=str(tmp_path / "target"))
    rec = simabi_fake.build_recorder(target.runtime_path, str(tmp_path / "traces"))
    with rec.load() as rt:
        lib, acl = rt.lib, rt.acl
        assert acl.set_device(0) == 0
        stream = acl.create_stream()
        ctx = lib.create_device_context()
        assert lib.simpler_kernel_mode_supported(ctx) == 1
        assert lib.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, abi.CallConfig(), 7) == 0
        img = abi.ChipCallableSpec(signature=[abi.DIR_IN], binary=bytes(64)).build()
        cid = ctypes.c_int32()
        assert lib.simpler_kernel_mode_prepare_callable(ctx, img, len(img), ctypes.byref(cid)) == 0
        assert cid.value == (1 if mutant else 0)
        args = abi.TaskArgs().add_tensor(abi.ChipTensor(address_space=abi.DEVICE_SPACE))
        assert lib.simpler_kernel_mode_launch(ctx, cid.value, args, stream) == 0
        assert lib.simabi_sync_stream(stream) == 0
        assert lib.simpler_kernel_mode_launch(ctx, 8192, args, stream) == abi.INVALID_ARGUMENT  # V-LAUNCH
        assert lib.finalize_device(ctx) == 0
        lib.destroy_device_context(ctx)
        p = lib.create_device_context()
        assert lib.simpler_init(p, 0, None, 0, None, 0, None, 0, None, 0, None, 0) == 0
        assert lib.finalize_device(p) == 0
        lib.destroy_device_context(p)
    traces = rec.traces()
    assert [os.path.basename(t) for t in traces] == [f"session-{os.getpid()}.ops"]
    with open(traces[0]) as f:
        trace = f.read()
    assert "# simabi trace v2" in trace and " kinit " in trace and " launch " in trace, trace
    r = subprocess.run([abicheck, "-check-trace", *traces], capture_output=True, text=True)
    assert r.returncode == (1 if mutant else 0), r.stdout + r.stderr  # 1: findings
    assert verdict in r.stdout and "calls judged" in r.stdout, r.stdout
