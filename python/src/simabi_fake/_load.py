"""ctypes views of a loaded fake: the runtime with every entry declared, and
the process's fake ACL."""

from __future__ import annotations

import _ctypes
import ctypes
import os

from ._sources import manifest


def _ctype(name: str):
    if name == "None":
        return None
    if name.startswith("POINTER(") and name.endswith(")"):
        return ctypes.POINTER(_ctype(name[len("POINTER("):-1]))
    return getattr(ctypes, name)


def declare(dll: ctypes.CDLL, entries: list[dict]) -> None:
    """Sets restype and argtypes of every entry dll exports (an omitted entry
    stays missing: reading it raises AttributeError, as dlsym fails)."""
    for e in entries:
        try:
            fn = getattr(dll, e["name"])
        except AttributeError:
            continue
        fn.restype = _ctype(e["restype"])
        fn.argtypes = [_ctype(t) for t in e["argtypes"]]


class ACLError(RuntimeError):
    """A fake ACL call that produces a value failed."""

    def __init__(self, call: str, code: int):
        super().__init__(f"{call} returned {code}")
        self.call, self.code = call, code


class ACL:
    """The process's fake ACL (docs/fake-runtime.md, "One ACL per process").

    Its entries are attributes with their ctypes signatures (acl.aclrtMalloc,
    ...); the helpers below return a status where the entry's only result is
    one, and raise ACLError where it produces a value."""

    def __init__(self, path: str):
        self.path = path
        self.dll = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        declare(self.dll, manifest()["acl"]["funcs"])

    def __getattr__(self, name: str):
        return getattr(self.dll, name)

    def set_device(self, device: int = 0) -> int:
        """aclrtSetDevice: the calling OS thread's current device."""
        return self.dll.aclrtSetDevice(device)

    def create_stream(self) -> int:
        s = ctypes.c_void_p()
        rc = self.dll.aclrtCreateStream(ctypes.byref(s))
        if rc != 0:
            raise ACLError("aclrtCreateStream", rc)
        return s.value

    def synchronize(self, stream: int) -> int:
        """aclrtSynchronizeStream: runs the stream's queued kernels; 0 or the
        first device failure."""
        return self.dll.aclrtSynchronizeStream(stream)

    def destroy_stream(self, stream: int) -> int:
        return self.dll.aclrtDestroyStream(stream)

    def malloc(self, size: int) -> int:
        """aclrtMalloc: a device address (real host memory)."""
        p = ctypes.c_void_p()
        rc = self.dll.aclrtMalloc(ctypes.byref(p), size, 0)
        if rc != 0:
            raise ACLError("aclrtMalloc", rc)
        return p.value

    def free(self, address: int) -> int:
        return self.dll.aclrtFree(address)

    def counters(self) -> dict[str, int]:
        """simabi_acl_counters by name (aclInit, aclFinalize, ...)."""
        names = manifest()["acl"]["counters"]
        out = (ctypes.c_uint64 * len(names))()
        n = self.dll.simabi_acl_counters(out, len(names))
        return {name: out[i] for i, name in enumerate(names[:n])}

    def reset_counters(self) -> None:
        self.dll.simabi_acl_reset_counters()

    def d1_calls_since(self, before: dict[str, int]) -> list[str]:
        """The ACL calls no kernel path may make (rule D-1: aclInit,
        aclFinalize, aclrtSetDevice, aclrtResetDevice, aclrtSynchronizeStream,
        aclrtSynchronizeDevice) made since the counters were before."""
        now = self.counters()
        return [n for n in manifest()["acl"]["counters"][:manifest()["acl"]["d1"]] if now[n] != before[n]]


class Runtime:
    """A loaded runtime library: .lib, opened RTLD_NOW | RTLD_LOCAL as a
    consumer opens it, every entry of docs/contract.md and the simulation
    hooks declared; .acl, the process's fake ACL (None when there is no fake
    ACL beside the runtime). close() unloads the runtime."""

    def __init__(self, path: str, entries: list[dict], acl_path: str | None):
        self.path = path
        self.lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        declare(self.lib, entries)
        self.acl = ACL(acl_path) if acl_path and os.path.exists(acl_path) else None

    def close(self) -> None:
        """Unloads the runtime (dlclose): its destructor frees what it holds,
        and a strict fake checks for live contexts. The fake ACL stays loaded
        for the life of the process."""
        if self.lib is not None:
            _ctypes.dlclose(self.lib._handle)
            self.lib = None

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
