# One ACL per process (docs/fake-runtime.md): emitted runtimes of different
# builds, each in its own directory, loaded with ctypes into one Python
# process together with the fake ACL a test opens from yet another directory,
# agree on that one ACL. Run by tests/shared_acl_test.go (TestPytestSharedACL)
# with GEN_FAKE_RUNTIME pointing at a built gen-fake-runtime; each load order
# runs in a fresh interpreter, since which copy of the ACL a process holds
# depends on what it loaded before.
import ctypes
import os
import subprocess
import sys

import pytest

OK, PI = 0, -1002  # PREPARED_INCOMPATIBLE: a stream switch before the previous stream completed
VP, I32, SZ = ctypes.c_void_p, ctypes.c_int32, ctypes.c_size_t
COUNTERS = ["aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice", "aclrtSynchronizeStream",
            "aclrtSynchronizeDevice", "aclrtCreateStream", "aclrtDestroyStream", "aclrtGetDevice"]


def gen(*args):
    exe = os.environ.get("GEN_FAKE_RUNTIME", "gen-fake-runtime")
    subprocess.run([exe, *args], check=True, stdout=subprocess.DEVNULL)


def build_all(root):
    """Builds every library into a directory of its own; returns the runtimes
    (name, path) and the caller's ACL path."""
    gen("-o", os.path.join(root, "plain"), "-profile", "tmr")
    gen("-o", os.path.join(root, "knob"), "-profile", "tmr", "-knob", "must_not_call=comm_barrier")
    gen("-o", os.path.join(root, "mutant"), "-profile", "tmr", "-mutant", "ids-from-one")
    gen("-o", os.path.join(root, "recorded"), "-profile", "tmr")
    gen("-o", os.path.join(root, "caller"), "-profile", "tmr")
    gen("-recorder", "-o", os.path.join(root, "recorder"))
    runtimes = [(n, os.path.join(root, n, "libhost_runtime.so")) for n in ("plain", "knob", "mutant", "recorder")]
    return runtimes, os.path.join(root, "caller", "libascendcl.so")


def load_runtime(path):
    rt = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
    rt.create_device_context.restype = VP
    rt.destroy_device_context.argtypes = [VP]
    rt.finalize_device.argtypes = [VP]
    rt.simpler_kernel_mode_init.argtypes = [VP, ctypes.c_int, VP, SZ, VP, SZ, VP, SZ, VP, ctypes.c_uint64]
    rt.simpler_kernel_mode_prepare_callable.argtypes = [VP, VP, SZ, ctypes.POINTER(I32)]
    rt.simpler_kernel_mode_launch.argtypes = [VP, I32, VP, VP]
    rt.simpler_init.argtypes = [VP, ctypes.c_int, VP, SZ, VP, SZ, VP, SZ, VP, ctypes.c_int, VP, ctypes.c_uint64]
    return rt


def load_acl(path):
    acl = ctypes.CDLL(path)
    acl.aclrtSetDevice.argtypes = [I32]
    acl.aclrtCreateStream.argtypes = [ctypes.POINTER(VP)]
    acl.aclrtSynchronizeStream.argtypes = [VP]
    acl.simabi_acl_counters.argtypes = [ctypes.POINTER(ctypes.c_uint64), I32]
    return acl


def aligned(n, align=64):
    raw = ctypes.create_string_buffer(n + align)
    return raw, ctypes.addressof(raw) + (-ctypes.addressof(raw)) % align


def counters(acl):
    c = (ctypes.c_uint64 * len(COUNTERS))()
    assert acl.simabi_acl_counters(c, len(COUNTERS)) == len(COUNTERS)
    return list(c)


def scenario(root, order):
    runtimes, acl_path = build_all(root)
    os.environ["SIMABI_RECORD_TARGET"] = os.path.join(root, "recorded", "libhost_runtime.so")
    os.environ["SIMABI_RECORD_FILE"] = os.path.join(root, "trace-%p.ops")
    acl, rts = None, []
    for i, (name, path) in enumerate(runtimes):
        if (order == "acl-first" and i == 0) or (order == "acl-between" and i == 2):
            acl = load_acl(acl_path)
        rts.append((name, load_runtime(path)))
    if acl is None:
        acl = load_acl(acl_path)

    assert acl.aclrtSetDevice(0) == 0
    s1, s2 = VP(), VP()
    assert acl.aclrtCreateStream(ctypes.byref(s1)) == 0
    assert acl.aclrtCreateStream(ctypes.byref(s2)) == 0
    _cfg, cfg = aligned(1148)
    # The canonical image of docs/fake-runtime.md: one IN tensor, 64 bytes of binary.
    _img, img = aligned(9376 + 64)
    ctypes.memmove(img + 0, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(img + 1024, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(img + 1028, (ctypes.c_uint32 * 1)(64), 4)
    _args, args = aligned(33856)
    ctypes.memmove(args + 33792, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(args + 43, b"\x01", 1)
    failures = []
    for gen_no, (name, rt) in enumerate(rts, start=1):
        ctx = rt.create_device_context()
        # D-2: the device the caller's ACL set is the runtime's current device.
        if rt.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, cfg, gen_no) != OK:
            failures.append(f"{name}: kernel init refused: the runtime does not see the caller's device")
            continue
        out = I32(-2)
        assert rt.simpler_kernel_mode_prepare_callable(ctx, img, 9376 + 64, ctypes.byref(out)) == OK, name
        got = [
            rt.simpler_kernel_mode_launch(ctx, out.value, args, s1),
            rt.simpler_kernel_mode_launch(ctx, out.value, args, s2),  # s1 has pending work
            acl.aclrtSynchronizeStream(s1),  # the caller's synchronize completes it
            rt.simpler_kernel_mode_launch(ctx, out.value, args, s2),
            acl.aclrtSynchronizeStream(s2),
            rt.finalize_device(ctx),
        ]
        if got != [OK, PI, OK, OK, OK, OK]:
            failures.append(f"{name}: kernel path {got}, want {[OK, PI, OK, OK, OK, OK]}")
        rt.destroy_device_context(ctx)
        # The caller's counters count this runtime's calls: simpler_init sets
        # the device, the program finalize counts a device reset.
        before = counters(acl)
        p = rt.create_device_context()
        assert rt.simpler_init(p, 0, None, 0, None, 0, None, 0, None, 0, None, 0) == OK, name
        assert rt.finalize_device(p) == OK, name
        rt.destroy_device_context(p)
        delta = {n: a - b for n, a, b in zip(COUNTERS, counters(acl), before) if a != b}
        if delta != {"aclrtSetDevice": 1, "aclrtResetDevice": 1}:
            failures.append(f"{name}: the caller's counters moved {delta}")
        assert acl.aclrtSetDevice(0) == 0
    return failures


@pytest.mark.parametrize("order", ["acl-first", "acl-between", "acl-last"])
def test_fakes_share_one_acl(tmp_path, order):
    # A fresh interpreter per order: this module run as a script.
    r = subprocess.run([sys.executable, __file__, str(tmp_path), order], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


if __name__ == "__main__":
    problems = scenario(sys.argv[1], sys.argv[2])
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
