# The Python half of sim/emit's bundle tests (bundle_test.go): reads one JSON
# request on stdin, answers on stdout with what the simabi_fake package (on
# PYTHONPATH) makes of it, for the Go test to compare with the Go emitter.
import hashlib
import json
import sys

import simabi_fake
from simabi_fake import _build, abi


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sources(req):
    out = []
    for c in req["configs"]:
        try:
            s = simabi_fake.sources(c["profile"], c["knobs"], c["mutant"], c["omit"])
        except simabi_fake.KnobError as e:
            out.append({"error": str(e)})
            continue
        if req.get("full"):
            out.append({"runtime": s.runtime, "acl": s.acl, "header": s.header})
        else:
            out.append({"runtime": sha(s.runtime), "acl": sha(s.acl), "header": sha(s.header)})
    return out


def recorders(req):
    return [sha(simabi_fake.recorder_source(c["revision"], c["hooks"])) for c in req["configs"]]


def builders(req):
    out = {}
    for name, spec in req["images"].items():
        s = abi.ChipCallableSpec(
            signature=spec["Signature"] or [], func_name=spec["FuncName"], config_name=spec["ConfigName"],
            binary=bytes.fromhex(spec["Binary"]), omit_scalar_count=spec["OmitScalarCount"],
            children=[abi.ChildKernel(c["FuncID"], c["Signature"] or [], bytes.fromhex(c["Binary"]))
                      for c in spec["Children"] or []])
        try:
            out["image " + name] = s.encode().hex()
        except ValueError as e:
            out["image " + name] = "error: " + str(e)
    args = abi.TaskArgs()
    for t in req["tensors"]:
        args.add_tensor(abi.contiguous_tensor(t["addr"], t["dtype"], *t["shape"]))
    args.add_scalar_float32(2.5)
    args.add_scalar(0xFFFFFFFFFFFFFFFF)
    out["task args"] = bytes(args).hex()
    cfg = abi.CallConfig(aicpu_thread_num=3, enable_chip_swimlane=1, enable_dump_args=-2, enable_pmu=4,
                         enable_dep_gen=5, enable_scope_stats=6, capture_clock_anchors=7,
                         ring_task_window=[1, 2, 3, 4], ring_heap=[5, 6, 7, 8], ring_dep_pool=[9, 10, 11, 1 << 63])
    cfg.set_output_prefix("out/run-1")
    out["call config"] = cfg.encode().hex()
    out["call config legacy"] = cfg.encode_legacy().hex()
    return out


def key(req):
    s = simabi_fake.sources(req["profile"])
    return _build.fake_key(s.runtime, s.acl, s.header, _build.resolve_compiler(req.get("cc")))


req = json.load(sys.stdin)
json.dump({"sources": sources, "recorders": recorders, "builders": builders, "key": key}[req["op"]](req), sys.stdout)
