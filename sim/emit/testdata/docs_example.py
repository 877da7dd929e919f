# test_fake.py: a pytest module driving an emitted fake runtime through ctypes.
# It builds the fake with gen-fake-runtime: set GEN_FAKE_RUNTIME to the binary
# (go build -o /usr/local/bin/gen-fake-runtime ./cmd/gen-fake-runtime in a
# simabi checkout), or put gen-fake-runtime on PATH. Run: python3 -m pytest
import ctypes
import os
import subprocess

import pytest

IA = -1004  # PTO_RUNTIME_ERR_INVALID_ARGUMENT


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    d = tmp_path_factory.mktemp("fake")
    exe = os.environ.get("GEN_FAKE_RUNTIME", "gen-fake-runtime")
    subprocess.run([exe, "-o", str(d), "-profile", "tmr"], check=True, stdout=subprocess.DEVNULL)
    # RTLD_LOCAL, as a real consumer loads a runtime; it loads libascendcl.so
    # too (DT_NEEDED). Any libascendcl.so of a fake is the process's one fake ACL.
    rt = ctypes.CDLL(str(d / "libhost_runtime.so"), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    acl = ctypes.CDLL(str(d / "libascendcl.so"))
    vp, i32, sz = ctypes.c_void_p, ctypes.c_int32, ctypes.c_size_t
    rt.create_device_context.restype = vp
    rt.destroy_device_context.argtypes = [vp]
    rt.finalize_device.argtypes = [vp]
    rt.simpler_kernel_mode_supported.argtypes = [vp]
    rt.simpler_kernel_mode_init.argtypes = [vp, ctypes.c_int, vp, sz, vp, sz, vp, sz, vp, ctypes.c_uint64]
    rt.simpler_kernel_mode_prepare_callable.argtypes = [vp, vp, sz, ctypes.POINTER(i32)]
    rt.simpler_kernel_mode_launch.argtypes = [vp, i32, vp, vp]
    rt.simabi_set_current_device.argtypes = [i32]
    acl.aclrtCreateStream.argtypes = [ctypes.POINTER(vp)]
    acl.aclrtSynchronizeStream.argtypes = [vp]
    acl.simabi_acl_counters.argtypes = [ctypes.POINTER(ctypes.c_uint64), i32]
    return rt, acl


def aligned(n, align=64):
    raw = ctypes.create_string_buffer(n + align)
    return raw, ctypes.addressof(raw) + (-ctypes.addressof(raw)) % align


def test_malformed_prepare(fake):
    rt, _ = fake
    assert rt.simpler_kernel_mode_supported(None) == 1
    ctx = rt.create_device_context()
    out = ctypes.c_int32(1234)
    assert rt.simpler_kernel_mode_prepare_callable(ctx, None, 0, ctypes.byref(out)) == IA
    assert out.value == -1  # V-PREP-1: -1 on every failure
    rt.destroy_device_context(ctx)


def test_kernel_lifecycle(fake):
    rt, acl = fake
    ctx = rt.create_device_context()
    rt.simabi_set_current_device(0)  # the caller's current device (D-2)
    _cfg, cfg = aligned(1148)  # an all-zero CallConfig
    assert rt.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, cfg, 1) == 0
    # ChipCallable: signature[0] = IN @0, sig_count = 1 @1024, binary_size = 64
    # @1028; the 9376-byte header and 64 bytes of binary.
    _img, img = aligned(9376 + 64)
    ctypes.memmove(img + 0, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(img + 1024, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(img + 1028, (ctypes.c_uint32 * 1)(64), 4)
    out = ctypes.c_int32()
    assert rt.simpler_kernel_mode_prepare_callable(ctx, img, 9376 + 64, ctypes.byref(out)) == 0
    assert out.value == 0  # M-1: the first id is 0
    _args, args = aligned(33856)
    ctypes.memmove(args + 33792, (ctypes.c_int32 * 1)(1), 4)  # tensor_count = 1
    ctypes.memmove(args + 43, b"\x01", 1)  # tensors[0].address_space = DEVICE
    stream = ctypes.c_void_p()
    assert acl.aclrtCreateStream(ctypes.byref(stream)) == 0
    assert rt.simpler_kernel_mode_launch(ctx, 0, args, stream) == 0
    assert acl.aclrtSynchronizeStream(stream) == 0
    assert rt.finalize_device(ctx) == 0
    rt.destroy_device_context(ctx)
    counts = (ctypes.c_uint64 * 9)()
    assert acl.simabi_acl_counters(counts, 9) == 9
    assert counts[3] == 0  # D-1: aclrtResetDevice never ran on the kernel path
