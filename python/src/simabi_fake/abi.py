"""Constants and builders of the host-runtime ABI, mirroring Go's package abi.

Every offset, size and constant comes from the bundle that sim/emit generates
(abi.Layouts and abi's constants), and sim/emit's
TestPythonBuildersMatchAbi checks that the builders write the bytes abi's
do. Objects that stand for a buffer (Buffer, Image, TaskArgs, CallConfig)
pass their address when given to a ctypes entry:

    img = ChipCallableSpec(signature=[DIR_IN], binary=bytes(64)).build()
    lib.simpler_kernel_mode_prepare_callable(ctx, img, len(img), ctypes.byref(out))
"""

from __future__ import annotations

import ctypes
import dataclasses
import struct

from ._sources import manifest

_M = manifest()
_C = _M["constants"]


def _layouts() -> dict[str, dict]:
    out = {}
    for layout in _M["layouts"]:
        out[layout["name"]] = {"size": layout["size"], "align": layout["align"],
                               "fields": {f["name"]: f for f in layout["fields"]}}
    return out


LAYOUTS = _layouts()


def offset(struct_name: str, field: str) -> int:
    """The offset of field in struct_name (docs/contract.md "Layouts")."""
    return LAYOUTS[struct_name]["fields"][field]["offset"]


def size_of(struct_name: str) -> int:
    return LAYOUTS[struct_name]["size"]


# Status codes (docs/contract.md "Status codes").
STATUS = dict(_M["statuses"])
OK = STATUS["OK"]
INTERNAL = STATUS["INTERNAL"]
UNSUPPORTED = STATUS["UNSUPPORTED"]
PREPARED_INCOMPATIBLE = STATUS["PREPARED_INCOMPATIBLE"]
INVALID_STATE = STATUS["INVALID_STATE"]
INVALID_ARGUMENT = STATUS["INVALID_ARGUMENT"]
CALLABLE_COUNT_EXCEEDED = STATUS["CALLABLE_COUNT_EXCEEDED"]
CALLABLE_BYTES_EXCEEDED = STATUS["CALLABLE_BYTES_EXCEEDED"]
CALLABLE_NOT_RESIDENT = STATUS["CALLABLE_NOT_RESIDENT"]
CAPACITY_EXCEEDED = STATUS["CAPACITY_EXCEEDED"]


def status_name(code: int) -> str:
    """NAME(code) for a host status, STATUS(code) for another value."""
    for name, c in STATUS.items():
        if c == code:
            return f"{name}({code})"
    return f"STATUS({code})"


# Signature entries, data types, address spaces and the rest of abi's constants.
DIR_SCALAR, DIR_IN, DIR_OUT, DIR_INOUT = _C["DIR_SCALAR"], _C["DIR_IN"], _C["DIR_OUT"], _C["DIR_INOUT"]
HOST_SPACE, DEVICE_SPACE = _C["HOST_SPACE"], _C["DEVICE_SPACE"]
EXTERNAL_OWNER = _C["EXTERNAL_OWNER"]
DTYPE_FLOAT32, DTYPE_INT32, DTYPE_UINT8 = _C["DTYPE_FLOAT32"], _C["DTYPE_INT32"], _C["DTYPE_UINT8"]
KERNEL_ADD_SCALAR_F32, KERNEL_COPY_BYTES = _C["KERNEL_ADD_SCALAR_F32"], _C["KERNEL_COPY_BYTES"]
ACL_SUCCESS, ACL_ERROR_INVALID_PARAM = _C["ACL_SUCCESS"], _C["ACL_ERROR_INVALID_PARAM"]
CONSTANTS = dict(_C)

# Fault sites of simabi_inject, by name ("prepare-copy": 2, ...).
SITES = {name: int(num) for num, name in _M["sites"]["names"].items()}


def dtype_bytes(dtype: int, n: int) -> int:
    """The storage size of n elements of dtype, rounded up to a whole byte."""
    for name, value in _C.items():
        if name.startswith("DTYPE_") and not name.startswith("DTYPE_BITS_") and value == dtype:
            bits = _C["DTYPE_BITS_" + name[len("DTYPE_"):]]
            return (n * bits + 7) // 8
    raise ValueError(f"abi: undefined dtype {dtype}")


class Buffer:
    """Zeroed host memory at an aligned address, kept alive with the object;
    a ctypes entry given a Buffer receives its address."""

    def __init__(self, size: int, align: int = 64):
        self._raw = ctypes.create_string_buffer(size + align)
        base = ctypes.addressof(self._raw)
        self.address = base + (-base) % align
        self.size = size

    @property
    def _as_parameter_(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self.address)

    def __len__(self) -> int:
        return self.size

    def write(self, offset: int, data: bytes) -> None:
        if offset < 0 or offset + len(data) > self.size:
            raise ValueError(f"abi: {len(data)} bytes at {offset} do not fit a buffer of {self.size}")
        ctypes.memmove(self.address + offset, data, len(data))

    def read(self, offset: int = 0, n: int | None = None) -> bytes:
        n = self.size - offset if n is None else n
        if offset < 0 or n < 0 or offset + n > self.size:
            raise ValueError(f"abi: {n} bytes at {offset} do not fit a buffer of {self.size}")
        return ctypes.string_at(self.address + offset, n)

    def __bytes__(self) -> bytes:
        return self.read()


def _align_up(x: int, a: int) -> int:
    return (x + a - 1) & ~(a - 1)


@dataclasses.dataclass
class ChildKernel:
    """One CoreCallable child of a ChipCallable image."""

    func_id: int
    signature: list[int] = dataclasses.field(default_factory=list)
    binary: bytes = b""


@dataclasses.dataclass
class ChipCallableSpec:
    """A ChipCallable image (abi.ChipCallableSpec): build() writes the
    canonical image of docs/contract.md "ChipCallable"."""

    signature: list[int] = dataclasses.field(default_factory=list)
    func_name: str = ""
    config_name: str = ""
    binary: bytes = b""
    children: list[ChildKernel] = dataclasses.field(default_factory=list)
    # Store 0 ("not recorded") as the scalar count instead of the number of
    # SCALAR entries.
    omit_scalar_count: bool = False

    def scalar_count(self) -> int:
        return sum(1 for d in self.signature if d == DIR_SCALAR)

    def _check(self) -> None:
        bad = "abi: invalid ChipCallable spec: "
        if len(self.signature) > _C["CHIP_MAX_TENSOR_ARGS"]:
            raise ValueError(bad + f"{len(self.signature)} signature entries (max {_C['CHIP_MAX_TENSOR_ARGS']})")
        seen_scalar = False
        for i, d in enumerate(self.signature):
            if d not in (DIR_SCALAR, DIR_IN, DIR_OUT, DIR_INOUT):
                raise ValueError(bad + f"signature[{i}] = {d}")
            if d == DIR_SCALAR:
                seen_scalar = True
            elif seen_scalar:
                raise ValueError(bad + f"tensor entry {i} follows a scalar")
        if self.scalar_count() > _C["CHIP_MAX_SCALAR_ARGS"]:
            raise ValueError(bad + f"{self.scalar_count()} scalars (max {_C['CHIP_MAX_SCALAR_ARGS']})")
        for what, v in (("func name", self.func_name), ("config name", self.config_name)):
            b = v.encode("utf-8")
            if len(b) >= _C["CALLABLE_FUNC_NAME_MAX"]:
                raise ValueError(bad + f"{what} of {len(b)} bytes (max {_C['CALLABLE_FUNC_NAME_MAX'] - 1})")
            if b"\0" in b:
                raise ValueError(bad + f"{what} contains a NUL byte")
        if len(self.children) > _C["MAX_CHILDREN"]:
            raise ValueError(bad + f"{len(self.children)} children (max {_C['MAX_CHILDREN']})")
        seen = set()
        for i, c in enumerate(self.children):
            if not 0 <= c.func_id < _C["KERNEL_MAX_FUNC_ID"]:
                raise ValueError(bad + f"child {i} func id {c.func_id} outside [0, {_C['KERNEL_MAX_FUNC_ID']})")
            if c.func_id in seen:
                raise ValueError(bad + f"child {i} repeats func id {c.func_id}")
            seen.add(c.func_id)
            if len(c.signature) > _C["CORE_MAX_TENSOR_ARGS"]:
                raise ValueError(bad + f"child {i} has {len(c.signature)} signature entries (max {_C['CORE_MAX_TENSOR_ARGS']})")

    def size(self) -> int:
        """9376 + the end of the last piece."""
        self._check()
        used = len(self.binary)
        for c in self.children:
            used = _align_up(used, _C["CALLABLE_ALIGN"]) + _C["CORE_CODE_OFFSET"] + len(c.binary)
        return size_of("ChipCallable") + used

    def encode(self) -> bytes:
        """The canonical image's bytes."""
        n = self.size()
        img = bytearray(n)
        chip = LAYOUTS["ChipCallable"]["fields"]
        core = LAYOUTS["CoreCallable"]["fields"]
        for i, d in enumerate(self.signature):
            struct.pack_into("<i", img, chip["signature"]["offset"] + 4 * i, d)
        struct.pack_into("<I", img, chip["sig_count"]["offset"], len(self.signature))
        struct.pack_into("<I", img, chip["binary_size"]["offset"], len(self.binary))
        for name, value in (("func_name", self.func_name), ("config_name", self.config_name)):
            b = value.encode("utf-8")
            img[chip[name]["offset"]:chip[name]["offset"] + len(b)] = b
            struct.pack_into("<I", img, chip[name + "_len"]["offset"], len(b))
        struct.pack_into("<I", img, chip["child_count"]["offset"], len(self.children))
        if not self.omit_scalar_count:
            struct.pack_into("<I", img, chip["scalar_count"]["offset"], self.scalar_count())
        storage = chip["storage"]["offset"]
        img[storage:storage + len(self.binary)] = self.binary
        used = len(self.binary)
        for i, c in enumerate(self.children):
            off = _align_up(used, _C["CALLABLE_ALIGN"])
            struct.pack_into("<i", img, chip["child_func_ids"]["offset"] + 4 * i, c.func_id)
            struct.pack_into("<I", img, chip["child_offsets"]["offset"] + 4 * i, off)
            child = storage + off
            for j, d in enumerate(c.signature):
                struct.pack_into("<i", img, child + core["signature"]["offset"] + 4 * j, d)
            struct.pack_into("<I", img, child + core["sig_count"]["offset"], len(c.signature))
            struct.pack_into("<I", img, child + core["binary_size"]["offset"], len(c.binary))
            code = child + _C["CORE_CODE_OFFSET"]
            img[code:code + len(c.binary)] = c.binary
            used = off + _C["CORE_CODE_OFFSET"] + len(c.binary)
        return bytes(img)

    def build(self) -> "Image":
        """The canonical image in a buffer at an address aligned as prepare
        requires."""
        data = self.encode()
        img = Image(len(data), LAYOUTS["ChipCallable"]["align"])
        img.write(0, data)
        return img


class Image(Buffer):
    """A ChipCallable image in host memory (ChipCallableSpec.build)."""


@dataclasses.dataclass
class ChipTensor:
    """The 128-byte tensor record of ChipStorageTaskArgs (abi.ChipTensor)."""

    addr: int = 0
    size: int = 0
    owner_task_id: int = 0
    start_offset: int = 0
    version: int = 0
    ndims: int = 0
    dtype: int = 0
    manual_dep: bool = False
    is_contiguous: bool = False
    address_space: int = 0
    shapes: list[int] = dataclasses.field(default_factory=lambda: [0] * _C["MAX_TENSOR_DIMS"])
    extent_elem_cache: int = 0
    strides: list[int] = dataclasses.field(default_factory=lambda: [0] * _C["MAX_TENSOR_DIMS"])

    def encode(self) -> bytes:
        f = LAYOUTS["ChipTensor"]["fields"]
        b = bytearray(size_of("ChipTensor"))
        struct.pack_into("<Q", b, f["buffer_addr"]["offset"], self.addr)
        struct.pack_into("<Q", b, f["buffer_size"]["offset"], self.size)
        struct.pack_into("<Q", b, f["owner_task_id"]["offset"], self.owner_task_id)
        struct.pack_into("<Q", b, f["start_offset"]["offset"], self.start_offset)
        struct.pack_into("<i", b, f["version"]["offset"], self.version)
        struct.pack_into("<I", b, f["ndims"]["offset"], self.ndims)
        b[f["dtype"]["offset"]] = self.dtype
        b[f["manual_dep"]["offset"]] = int(self.manual_dep)
        b[f["is_contiguous"]["offset"]] = int(self.is_contiguous)
        b[f["address_space"]["offset"]] = self.address_space
        for i in range(_C["MAX_TENSOR_DIMS"]):
            struct.pack_into("<I", b, f["shapes"]["offset"] + 4 * i, self.shapes[i])
            struct.pack_into("<I", b, f["strides"]["offset"] + 4 * i, self.strides[i])
        struct.pack_into("<Q", b, f["extent_elem_cache"]["offset"], self.extent_elem_cache)
        return bytes(b)


def contiguous_tensor(addr: int, dtype: int, *shape: int) -> ChipTensor:
    """An external, contiguous, row-major tensor at a device address
    (abi.ContiguousTensor)."""
    dims = _C["MAX_TENSOR_DIMS"]
    if not 1 <= len(shape) <= dims:
        raise ValueError(f"abi: tensor of {len(shape)} dims (1..{dims})")
    t = ChipTensor(addr=addr, owner_task_id=EXTERNAL_OWNER, ndims=len(shape), dtype=dtype, is_contiguous=True,
                   address_space=DEVICE_SPACE)
    n, stride = 1, 1
    for i in range(len(shape) - 1, -1, -1):
        t.shapes[i] = shape[i]
        if stride >= 1 << 32:
            raise ValueError(f"abi: stride of dim {i} overflows uint32")
        t.strides[i] = stride
        n *= shape[i]
        stride *= max(shape[i], 1)
    t.extent_elem_cache = n
    size = dtype_bytes(dtype, n)
    if size >= 1 << 64:
        raise ValueError(f"abi: tensor of {n} elements overflows a uint64 byte size")
    t.size = size
    return t


class TaskArgs(Buffer):
    """A ChipStorageTaskArgs in a 64-byte-aligned buffer (abi.TaskArgs):
    tensors first, then scalars."""

    def __init__(self):
        super().__init__(size_of("ChipStorageTaskArgs"), LAYOUTS["ChipStorageTaskArgs"]["align"])
        self.tensors = self.scalars = 0

    def _set_counts(self) -> None:
        f = LAYOUTS["ChipStorageTaskArgs"]["fields"]
        self.write(f["tensor_count"]["offset"], struct.pack("<I", self.tensors))
        self.write(f["scalar_count"]["offset"], struct.pack("<I", self.scalars))

    def add_tensor(self, t: ChipTensor) -> "TaskArgs":
        if self.scalars > 0:
            raise ValueError("abi: invalid ChipStorageTaskArgs: a tensor cannot follow a scalar")
        if self.tensors >= _C["CHIP_MAX_TENSOR_ARGS"]:
            raise ValueError(f"abi: invalid ChipStorageTaskArgs: more than {_C['CHIP_MAX_TENSOR_ARGS']} tensors")
        self.write(offset("ChipStorageTaskArgs", "tensors") + size_of("ChipTensor") * self.tensors, t.encode())
        self.tensors += 1
        self._set_counts()
        return self

    def add_scalar(self, bits: int) -> "TaskArgs":
        """Appends a scalar slot holding the raw 64 bits."""
        if self.scalars >= _C["CHIP_MAX_SCALAR_ARGS"]:
            raise ValueError(f"abi: invalid ChipStorageTaskArgs: more than {_C['CHIP_MAX_SCALAR_ARGS']} scalars")
        if self.tensors + self.scalars >= _C["CHIP_MAX_TENSOR_ARGS"]:
            raise ValueError(f"abi: invalid ChipStorageTaskArgs: more than {_C['CHIP_MAX_TENSOR_ARGS']} arguments")
        self.write(offset("ChipStorageTaskArgs", "scalars") + 8 * self.scalars, struct.pack("<Q", bits))
        self.scalars += 1
        self._set_counts()
        return self

    def add_scalar_float32(self, f: float) -> "TaskArgs":
        """Appends a float32 scalar, zero-extended by bit pattern."""
        return self.add_scalar(struct.unpack("<I", struct.pack("<f", f))[0])

    def set_counts(self, tensors: int, scalars: int) -> None:
        """Overwrites the stored counts without touching the records (a
        malformed call)."""
        f = LAYOUTS["ChipStorageTaskArgs"]["fields"]
        self.write(f["tensor_count"]["offset"], struct.pack("<i", tensors))
        self.write(f["scalar_count"]["offset"], struct.pack("<i", scalars))

    def wipe(self) -> None:
        ctypes.memset(self.address, 0, self.size)
        self.tensors = self.scalars = 0


@dataclasses.dataclass
class CallConfig:
    """The packed 1148-byte configuration of kernel init and of the program
    run family (abi.CallConfig). Given to a ctypes entry, it passes the
    address of its encoding."""

    aicpu_thread_num: int = 0
    enable_chip_swimlane: int = 0
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: int = 0
    enable_scope_stats: int = 0
    capture_clock_anchors: int = 0
    ring_task_window: list[int] = dataclasses.field(default_factory=lambda: [0] * _C["RUNTIME_ENV_RING_COUNT"])
    ring_heap: list[int] = dataclasses.field(default_factory=lambda: [0] * _C["RUNTIME_ENV_RING_COUNT"])
    ring_dep_pool: list[int] = dataclasses.field(default_factory=lambda: [0] * _C["RUNTIME_ENV_RING_COUNT"])
    output_prefix: bytes = b""

    _INTS = ("aicpu_thread_num", "enable_chip_swimlane", "enable_dump_args", "enable_pmu", "enable_dep_gen",
             "enable_scope_stats", "capture_clock_anchors")

    def set_output_prefix(self, s: str) -> None:
        b = s.encode("utf-8")
        if len(b) >= _C["OUTPUT_PREFIX_BYTES"]:
            raise ValueError(f"abi: output prefix of {len(b)} bytes (max {_C['OUTPUT_PREFIX_BYTES'] - 1})")
        if b"\0" in b:
            raise ValueError("abi: output prefix contains a NUL byte")
        self.output_prefix = b

    def encode(self) -> bytes:
        f = LAYOUTS["CallConfig"]["fields"]
        b = bytearray(size_of("CallConfig"))
        for name in self._INTS:
            struct.pack_into("<i", b, f[name]["offset"], getattr(self, name))
        for name in ("ring_task_window", "ring_heap", "ring_dep_pool"):
            for i, v in enumerate(getattr(self, name)):
                struct.pack_into("<Q", b, f[name]["offset"] + 8 * i, v)
        prefix = self.output_prefix[:_C["OUTPUT_PREFIX_BYTES"]]
        b[f["output_prefix"]["offset"]:f["output_prefix"]["offset"] + len(prefix)] = prefix
        return bytes(b)

    def encode_legacy(self) -> bytes:
        """The 1144-byte pre-kernel-ABI layout (no capture_clock_anchors)."""
        full = self.encode()
        cut = offset("CallConfig", "capture_clock_anchors")
        return full[:cut] + full[offset("CallConfig", "ring_task_window"):]

    def buffer(self, legacy: bool = False) -> Buffer:
        data = self.encode_legacy() if legacy else self.encode()
        buf = Buffer(len(data))
        buf.write(0, data)
        return buf

    @property
    def _as_parameter_(self) -> ctypes.c_void_p:
        self._buf = self.buffer()  # kept alive with the config, for the call
        return self._buf._as_parameter_
