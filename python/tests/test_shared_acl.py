# Two fakes in one session, and one ACL per process (docs/fake-runtime.md):
# runtimes of different builds (a profile's plain build, a knob variant, a
# mutant, and the recorder over another fake), each copied into a directory
# of its own, loaded with ctypes into one Python process together with the
# fake ACL a test opens from yet another directory, agree on that one ACL
# (D-1, D-2, D-3): the device the caller sets is each runtime's, a stream it
# creates is one each runtime queues work on and its synchronize completes,
# and its counters count every runtime's calls. Each load order runs in a
# fresh interpreter (this module as a script), since which copy of the ACL a
# process holds depends on what it loaded before.
import ctypes
import os
import subprocess
import sys

import pytest
import simabi_fake
from simabi_fake import abi

OK, PI = abi.OK, abi.PREPARED_INCOMPATIBLE  # PI: a stream switch before the previous stream completed


def build_all(root):
    """Builds every library into a directory of its own; returns the
    runtimes (name, path), the recorder and the caller's ACL path."""
    def fake(name, **kw):
        return simabi_fake.build(out_dir=os.path.join(root, name), **kw)

    plain = fake("plain", profile="tmr")
    knob = fake("knob", profile="tmr", knobs=["must_not_call=comm_barrier"])
    mutant = fake("mutant", profile="tmr", mutant="ids-from-one")
    recorded = fake("recorded", profile="tmr")
    caller = fake("caller", profile="tmr")
    rec = simabi_fake.build_recorder(recorded.runtime_path, os.path.join(root, "traces"))
    runtimes = [("plain", plain.load), ("knob", knob.load), ("mutant", mutant.load), ("recorder", rec.load)]
    return runtimes, caller.acl_path


def scenario(root, order):
    runtimes, acl_path = build_all(root)
    acl, rts = None, []
    for i, (name, load) in enumerate(runtimes):
        if (order == "acl-first" and i == 0) or (order == "acl-between" and i == 2):
            acl = simabi_fake.ACL(acl_path)
        rts.append((name, load().lib))
    if acl is None:
        acl = simabi_fake.ACL(acl_path)

    assert acl.set_device(0) == 0
    s1, s2 = acl.create_stream(), acl.create_stream()
    img = abi.ChipCallableSpec(signature=[abi.DIR_IN], binary=bytes(64)).build()
    args = abi.TaskArgs().add_tensor(abi.ChipTensor(address_space=abi.DEVICE_SPACE))
    failures = []
    for gen_no, (name, rt) in enumerate(rts, start=1):
        ctx = rt.create_device_context()
        # D-2: the device the caller's ACL set is the runtime's current device.
        if rt.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, abi.CallConfig(), gen_no) != OK:
            failures.append(f"{name}: kernel init refused: the runtime does not see the caller's device")
            continue
        out = ctypes.c_int32(-2)
        assert rt.simpler_kernel_mode_prepare_callable(ctx, img, len(img), ctypes.byref(out)) == OK, name
        got = [
            rt.simpler_kernel_mode_launch(ctx, out.value, args, s1),
            rt.simpler_kernel_mode_launch(ctx, out.value, args, s2),  # s1 has pending work
            acl.synchronize(s1),  # the caller's synchronize completes it
            rt.simpler_kernel_mode_launch(ctx, out.value, args, s2),
            acl.synchronize(s2),
            rt.finalize_device(ctx),
        ]
        if got != [OK, PI, OK, OK, OK, OK]:
            failures.append(f"{name}: kernel path {got}, want {[OK, PI, OK, OK, OK, OK]}")
        rt.destroy_device_context(ctx)
        # The caller's counters count this runtime's calls: simpler_init sets
        # the device, the program finalize counts a device reset.
        before = acl.counters()
        p = rt.create_device_context()
        assert rt.simpler_init(p, 0, None, 0, None, 0, None, 0, None, 0, None, 0) == OK, name
        assert rt.finalize_device(p) == OK, name
        rt.destroy_device_context(p)
        delta = {n: a - before[n] for n, a in acl.counters().items() if a != before[n]}
        if delta != {"aclrtSetDevice": 1, "aclrtResetDevice": 1}:
            failures.append(f"{name}: the caller's counters moved {delta}")
        assert acl.set_device(0) == 0
    return failures


@pytest.mark.parametrize("order", ["acl-first", "acl-between", "acl-last"])
def test_fakes_share_one_acl(tmp_path, order):
    # A fresh interpreter per order: this module run as a script, importing
    # the package this session tests.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(simabi_fake.__file__)) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, __file__, str(tmp_path), order], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


if __name__ == "__main__":
    problems = scenario(sys.argv[1], sys.argv[2])
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
