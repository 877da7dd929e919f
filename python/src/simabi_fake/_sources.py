"""The C sources of a fake, assembled from the bundle that sim/emit generates.

The bundle (``_bundle/``, written by ``go generate ./sim/emit``; its format is
described in sim/emit/bundle.go) holds each profile's sources with a hole at
every spot a knob writes, and each mutant and each flag knob as a patch. This
module validates knobs as ``gen-fake-runtime -knob`` does, applies the patches
and fills the holes; sim/emit's TestPythonAssemblesTheEmittedSources checks
that the result is byte for byte what the Go emitter writes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from importlib import resources


class KnobError(ValueError):
    """A profile, knob, mutant or omitted symbol that gen-fake-runtime refuses
    too; the message is gen-fake-runtime's."""


class BundleError(RuntimeError):
    """The bundle does not hold what this package expects (regenerate it)."""


BUNDLE_FORMAT = 1  # the layout of the bundle this module reads (sim/emit's bundleFormat)


@functools.cache
def manifest() -> dict:
    m = json.loads(_bundle_file("bundle.json"))
    if m.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"the bundle has format {m.get('format')}, this package reads format {BUNDLE_FORMAT}")
    return m


@functools.cache
def _bundle_file(name: str) -> str:
    # Bytes decoded by hand: reading as text would translate line endings.
    return resources.files(__package__).joinpath("_bundle").joinpath(name).read_bytes().decode("utf-8")


# ---- Go's spellings, for messages and values identical to gen-fake-runtime's ----

_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(s: str) -> str:
    """strconv.Quote: s in double quotes, with Go's escapes."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and o != 0x7F:
            out.append(ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def _underscore_ok(s: str) -> bool:
    # strconv's underscoreOK: underscores only between digits, or between a
    # base prefix and a digit.
    saw, i = "^", 0
    if s[:1] in ("-", "+"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    while i < len(s):
        c = s[i]
        if "0" <= c <= "9" or (hexa and "a" <= c.lower() <= "f"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
        i += 1
    return saw != "_"


def go_parse_int32(s: str) -> int | None:
    """strconv.ParseInt(s, 0, 32), or None where it fails."""
    if not s:
        return None
    neg = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    if not body:
        return None
    base, digits = 10, body
    if body[0] == "0":
        if len(body) >= 3 and body[1].lower() == "b":
            base, digits = 2, body[2:]
        elif len(body) >= 3 and body[1].lower() == "o":
            base, digits = 8, body[2:]
        elif len(body) >= 3 and body[1].lower() == "x":
            base, digits = 16, body[2:]
        else:
            base, digits = 8, body[1:]
    n, underscores = 0, False
    for c in digits:
        if c == "_":
            underscores = True
            continue
        if not c.isascii():
            return None
        if "0" <= c <= "9":
            d = ord(c) - ord("0")
        elif "a" <= c.lower() <= "z":
            d = ord(c.lower()) - ord("a") + 10
        else:
            return None
        if d >= base:
            return None
        n = n * base + d
    if underscores and not _underscore_ok(body):
        return None
    if (not neg and n >= 1 << 31) or (neg and n > 1 << 31):
        return None
    return -n if neg else n


_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


def go_parse_bool(s: str) -> bool | None:
    """strconv.ParseBool, or None where it fails."""
    return True if s in _TRUE else False if s in _FALSE else None


# ---- knobs ----


@dataclasses.dataclass
class Knobs:
    """The knobs of one build, as sim/emit's Knobs."""

    status: dict[str, int] = dataclasses.field(default_factory=dict)
    fail: dict[int, tuple[int, int]] = dataclasses.field(default_factory=dict)
    prepare_no_id: bool = False
    fatal_device: bool = False
    strict: bool = False
    must_not_call: list[str] = dataclasses.field(default_factory=list)
    crash: list[str] = dataclasses.field(default_factory=list)
    hang: list[str] = dataclasses.field(default_factory=list)
    null: list[str] = dataclasses.field(default_factory=list)
    comm_timeout_ms: int = 0
    poll_pending: int = 0
    pipeline: str = ""

    def strings(self) -> list[str]:
        """The -knob arguments that reproduce the knobs, in a stable order."""
        out = [f"status.{e}={self.status[e]}" for e in sorted(self.status)]
        out += [f"fail.{s}={self.fail[s][0]}:{self.fail[s][1]}" for s in sorted(self.fail)]
        if self.prepare_no_id:
            out.append("prepare_writes_id=false")
        if self.fatal_device:
            out.append("fatal_device=true")
        if self.strict:
            out.append("strict=true")
        if self.must_not_call:
            out.append("must_not_call=" + ",".join(sorted(set(self.must_not_call))))
        for prefix, names in (("crash", self.crash), ("hang", self.hang), ("null", self.null)):
            out += [f"{prefix}.{e}=true" for e in sorted(set(names))]
        if self.comm_timeout_ms:
            out.append(f"comm_timeout_ms={self.comm_timeout_ms}")
        if self.poll_pending:
            out.append(f"poll_pending={self.poll_pending}")
        if self.pipeline:
            out.append(f"pipeline={self.pipeline}")
        return out


def _parse_site(s: str) -> int:
    sites = manifest()["sites"]
    if re.fullmatch(r"[+-]?[0-9]+", s) and -(1 << 31) <= int(s) < 1 << 31:
        n = int(s)
        if n < sites["first"] or n > sites["last"]:
            raise ValueError(f"fault site {n} outside {sites['first']}..{sites['last']}")
        return n
    for num, name in sites["names"].items():
        if name == s:
            return int(num)
    raise ValueError(f"unknown fault site {go_quote(s)}")


def parse_knob(kv: str, k: Knobs) -> None:
    """Parses one key=value knob into k, as gen-fake-runtime's -knob."""
    key, eq, val = kv.partition("=")
    if not eq or not key:
        raise KnobError(f"knob {go_quote(kv)}: want key=value")

    def bad(msg: str) -> KnobError:
        return KnobError(f"knob {go_quote(kv)}: {msg}")

    def boolean() -> bool:
        b = go_parse_bool(val)
        if b is None:
            raise bad("value must be true or false")
        return b

    prefix, dot, rest = key.partition(".")
    if dot and prefix == "status":
        code = go_parse_int32(val)
        if code is None:
            raise bad("status must be a 32-bit integer")
        k.status[rest] = code
    elif dot and prefix == "fail":
        try:
            site = _parse_site(rest)
        except ValueError as e:
            raise bad(str(e)) from None
        count_s, colon, code_s = val.partition(":")
        if not colon:
            raise bad("want fail.<site>=<count>:<code>")
        count, code = go_parse_int32(count_s), go_parse_int32(code_s)
        if count is None or code is None:
            raise bad("count and code must be 32-bit integers")
        k.fail[site] = (count, code)
    elif dot and prefix in ("crash", "hang", "null"):
        b = boolean()
        names = getattr(k, prefix)
        names[:] = [n for n in names if n != rest]
        if b:
            names.append(rest)
    elif not dot and key == "prepare_writes_id":
        k.prepare_no_id = not boolean()
    elif not dot and key == "fatal_device":
        k.fatal_device = boolean()
    elif not dot and key == "strict":
        k.strict = boolean()
    elif not dot and key == "comm_timeout_ms":
        ms = go_parse_int32(val)
        if ms is None or ms < 1:
            raise bad("want a timeout of at least 1 millisecond")
        k.comm_timeout_ms = ms
    elif not dot and key == "poll_pending":
        n = go_parse_int32(val)
        if n is None or n < 0:
            raise bad("want a count of polls, 0 or more")
        k.poll_pending = n
    elif not dot and key == "pipeline":
        names = [p["name"] for p in manifest()["pipelines"]["specs"]]
        if val not in names:
            raise bad("want " + "|".join(names))
        k.pipeline = val
    elif not dot and key == "must_not_call":
        for e in val.split(","):
            e = e.strip()
            if e and e not in k.must_not_call:
                k.must_not_call.append(e)
    else:
        keys = ", ".join(f["key"] for f in manifest()["knobs"]["forms"])
        raise bad(f"unknown knob ({keys})")


def knob_strings(knobs) -> list[str]:
    """The key=value strings of knobs given as build() takes them: None, a
    mapping of key to value (True/False, a number, a string, or a list of
    entries for must_not_call), or an iterable of key=value strings."""
    if knobs is None:
        return []
    if isinstance(knobs, str):
        return [knobs]
    if hasattr(knobs, "items"):
        out = []
        for key, value in knobs.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, (list, tuple)):
                value = ",".join(str(v) for v in value)
            out.append(f"{key}={value}")
        return out
    return [str(kv) for kv in knobs]


def parse_knobs(knobs) -> Knobs:
    k = Knobs()
    for kv in knob_strings(knobs):
        parse_knob(kv, k)
    return k


# ---- validation (emit.Config.normalized) ----


def entries(profile: str) -> dict[str, dict]:
    return {e["name"]: e for e in manifest()["entries"][profile]}


def _refused_by_inject(site: int, count: int, code: int) -> bool:
    sites = manifest()["sites"]
    if site < sites["first"] or site > sites["last"] or count < 0:
        return True
    return count > 0 and code == 0 and site not in sites["code_zero_ok"]


def _status_string(name: str) -> str:
    return f"{name}({manifest()['statuses'][name]})"


def validate(profile: str, knobs: Knobs, mutant: str, omit: list[str]) -> str:
    """Checks a build as gen-fake-runtime does; returns the profile."""
    m = manifest()
    profile = profile or "tmr"
    if profile not in m["profiles"]:
        raise KnobError(f"unknown profile {go_quote(profile)} ({', '.join(m['profiles'])})")
    exported = entries(profile)
    for o in omit:
        if o not in exported:
            raise KnobError(f"-omit {o}: not a symbol of the {profile} profile")
    if mutant:
        mu = next((mu for mu in m["mutants"] if mu["name"] == mutant), None)
        if mu is None:
            raise KnobError(f"unknown mutant {go_quote(mutant)} (see -list-mutants)")
        if mu["profile"] == "legacy" and profile != "legacy":
            raise KnobError(f"mutant {mu['name']} breaks {mu['clause']}, which only a legacy build shows: "
                            "emit it with -profile legacy")
        if mu["profile"] != "legacy" and profile == "legacy":
            raise KnobError(f"mutant {mu['name']} applies to the tmr and refusing profiles, not legacy")
        if mu["profile"] == "refusing" and profile != "refusing":
            raise KnobError(f"mutant {mu['name']} breaks {mu['clause']}, which only a refusing build shows: "
                            "emit it with -profile refusing")
    for e in sorted(knobs.status):
        if e not in exported:
            raise KnobError(f"knob status.{e}: {e} is not an entry of the {profile} profile")
        if exported[e]["returns"] != "status":
            raise KnobError(f"knob status.{e}: {e} does not return a status ({_symbol_proto(exported[e])})")
    if (knobs.fail or knobs.fatal_device) and profile not in m["sites"]["fault_profiles"]:
        raise KnobError(f"fault knobs need the tmr profile ({profile} models no fault site)")
    for site, (count, code) in knobs.fail.items():
        if _refused_by_inject(site, count, code):
            raise KnobError(
                f"knob fail.{site}={count}:{code}: simabi_inject would refuse it ({_status_string('INVALID_ARGUMENT')})")
    for what, names in (("must_not_call", knobs.must_not_call), ("crash", knobs.crash), ("hang", knobs.hang),
                        ("null", knobs.null)):
        for e in names:
            if e not in exported:
                raise KnobError(f"knob {what}: {e} is not an entry of the {profile} profile")
    for e in knobs.null:
        if exported[e]["returns"] != "pointer":
            raise KnobError(f"knob null.{e}: {e} does not return a pointer ({_symbol_proto(exported[e])})")
    return profile


def _symbol_proto(e: dict) -> str:
    return e.get("symbol_proto", e["proto"])


# ---- assembling ----


def _compose(base: list[str], patches: list[dict], name: str) -> list[str]:
    hunks = []
    for i, p in enumerate(patches):
        for start, end, lines in p.get(name, []):
            hunks.append((start, end, i, lines))
    hunks.sort(key=lambda h: h[:3])
    out, at = [], 0
    for start, end, _, lines in hunks:
        if start < at:
            raise BundleError(f"patches overlap in {name} at line {start + 1}: the bundle lacks a combination")
        out += base[at:start]
        out += lines
        at = end
    return out + base[at:]


def _patched(unit: dict, flags: list[str]) -> dict[str, list[str]]:
    order = unit["flags"]
    for f in flags:
        if f not in order:
            raise BundleError(f"the bundle has no patch {f!r}")
    flags = sorted(flags, key=order.index)
    combo = unit["combos"].get(" ".join(flags))
    patches = [combo] if combo is not None else [unit["patches"][f] for f in flags]
    return {name: _compose(_bundle_file(file).split("\n"), patches, name) for name, file in unit["files"].items()}


def _fragment(name: str, **values: str) -> str:
    text = manifest()["knobs"]["fragments"][name]
    return re.sub(r"\{(\w+)\}", lambda mo: values.get(mo.group(1), mo.group(0)), text)


def _pipeline_field(profile: str, knobs: Knobs, field: str) -> str:
    """A field of the build's pipeline (emit's pipelineField)."""
    tables = manifest()["pipelines"]
    name = knobs.pipeline or tables["defaults"][profile]
    spec = next(p for p in tables["specs"] if p["name"] == name)
    if field == "depth":
        return str(spec["depth"])
    if field == "resource-count":
        return str(len(spec["resources"]))
    if field == "runtime-size":
        return str(spec["runtime_size"])
    if field == "runtime-alignment":
        return str(spec["runtime_alignment"])
    if field == "resources":
        return "".join(_fragment("pipeline_resource", index=str(i), kind=str(kind), **{"class": str(cls)}, bytes=str(b))
                       for i, (kind, cls, b) in enumerate(spec["resources"]))
    raise BundleError(f"the bundle has a pipeline hole {field!r} this package does not fill")


def _fill(lines: list[str], knobs: Knobs, omit: list[str], profile: str) -> str:
    m = manifest()
    prefix, suffix = m["hole"]
    banner_hole = f"{prefix}banner:{suffix}"
    banner = []
    if omit:
        banner.append(_fragment("banner_omitted", entries=", ".join(sorted(set(omit)))))
    banner += [_fragment("banner_knob", knob=s) for s in knobs.strings()]
    out = []
    for line in lines:
        if banner_hole in line:
            before, _, after = line.partition(banner_hole)
            out += [before + b + after for b in banner]
        else:
            out.append(line)
    text = "\n".join(out)
    lists = {"hang": knobs.hang, "crash": knobs.crash, "must_not_call": knobs.must_not_call, "null": knobs.null}
    last = m["sites"]["last"]

    def fill(mo: re.Match) -> str:
        kind, arg = mo.group(1), mo.group(2)
        if kind == "export":
            return "SIMABI_OMITTED" if arg in omit else "SIMABI_EXPORT"
        if kind == "prologue":
            return "".join(_fragment(k, entry=arg) for k in m["knobs"]["prologue_order"] if arg in lists[k])
        if kind == "fixed":
            return _fragment("status", entry=arg, code=str(knobs.status[arg])) if arg in knobs.status else ""
        if kind == "fixed-prepare":
            if arg not in knobs.status:
                return ""
            code = knobs.status[arg]
            v = {"entry": arg, "code": str(code)}
            return (_fragment("prepare", **v) + (_fragment("prepare_id", **v) if code == 0 and not knobs.prepare_no_id else "")
                    + _fragment("prepare_return", **v))
        if kind == "fault-counts":
            return ", ".join(str(knobs.fail.get(i, (0, 0))[0]) for i in range(last + 1))
        if kind == "fault-codes":
            return ", ".join(str(knobs.fail.get(i, (0, 0))[1]) for i in range(last + 1))
        if kind == "comm-timeout":
            return str(knobs.comm_timeout_ms or m["constants"]["COMM_TIMEOUT_MS_DEFAULT"])
        if kind == "poll-pending":
            return str(knobs.poll_pending)
        if kind == "pipeline":
            return _pipeline_field(profile, knobs, arg)
        raise BundleError(f"the bundle has a hole of kind {kind!r} this package does not fill")

    text = re.sub(re.escape(prefix) + r"([a-z-]+):([^@\n]*)" + re.escape(suffix), fill, text)
    if prefix in text:
        raise BundleError("a hole is left after filling: " + text[text.index(prefix):][:80])
    return text


@dataclasses.dataclass(frozen=True)
class Sources:
    """The two C translation units of one fake and its header (emit.Sources)."""

    runtime: str
    acl: str
    header: str
    profile: str
    knobs: tuple[str, ...]
    mutant: str
    omit: tuple[str, ...]


def fake_sources(profile: str = "tmr", knobs=None, mutant: str | None = None, omit=None) -> Sources:
    """The sources gen-fake-runtime emits for the same profile, knobs, mutant
    and omitted symbols (emit.Source)."""
    k = parse_knobs(knobs)
    mutant = mutant or ""
    omit = list(omit or [])
    profile = validate(profile, k, mutant, omit)
    m = manifest()
    flags = (["mutant:" + mutant] if mutant else []) + ["knob:" + s for s in k.strings() if s in m["knobs"]["flags"]]
    files = _patched(m["fake"][profile], flags)
    b = m["build"]["files"]
    return Sources(
        runtime=_fill(files[b["runtime_src"]], k, omit, profile),
        acl=_fill(files[b["acl_src"]], k, omit, profile),
        header=_fill(files[b["header"]], k, omit, profile),
        profile=profile, knobs=tuple(k.strings()), mutant=mutant, omit=tuple(omit))


def recorder_source(revision: str = "kernel", hooks: bool = True) -> str:
    """The recording runtime's source (emit.RecorderSource with the default
    image limit)."""
    if revision not in ("kernel", "legacy", ""):
        raise KnobError(f"unknown revision {go_quote(revision)} (kernel, legacy)")
    flags = (["revision=legacy"] if revision == "legacy" else []) + ([] if hooks else ["hooks=false"])
    m = manifest()
    files = _patched(m["recorder"], flags)
    text = "\n".join(files[m["build"]["files"]["recorder_src"]])
    if m["hole"][0] in text:
        raise BundleError("the recorder's source has a hole")
    return text
