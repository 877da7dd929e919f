"""Putting the legacy fake where upstream simpler's RuntimeBuilder looks, and
upstream's files back: gen-fake-runtime install / restore, without Go.

The layout and the record are cmd/gen-fake-runtime/install.go's; Go's
TestInstall_pythonAgrees runs both on one tree and compares what they print
and write.
"""

from __future__ import annotations

import glob
import os

from ._build import build_fake_files, copy_file
from ._sources import KnobError, fake_sources, knob_strings, manifest

# simpler_setup/runtime_builder.py (6ebaf77): build/lib/<arch>/sim/<runtime>/.
LIB_DIR = "build/lib"
VARIANT = "sim"
RECORD = "simabi-fake.installed"
ARCHES = ("a2a3", "a5")
RECORD_HEADER = ("# simabi's fake runtime, installed over upstream's; `gen-fake-runtime restore` or "
                 "`python3 -m simabi_fake restore` puts upstream's back\n")


class InstallError(ValueError):
    """The root is not a simpler build, already holds a fake, or a knob is
    one install cannot take: nothing was changed."""


def aside(name: str) -> str:
    """Upstream's file kept beside the fake that replaced it: hidden, and not
    libhost_runtime.*, which upstream's test_host_runtime_abi.py globs."""
    return "." + name + ".upstream"


def runtimes() -> dict[str, str]:
    """The runtimes upstream builds per architecture (the pipelines the bundle
    marks upstream_runtime), each with the knob that gives the fake that
    pipeline's contract ("" for the legacy profile's default)."""
    tables = manifest()["pipelines"]
    default = tables["defaults"]["legacy"]
    return {p["name"]: "" if p["name"] == default else "pipeline=" + p["name"]
            for p in tables["specs"] if p["upstream_runtime"]}


def _files() -> list[str]:
    f = manifest()["build"]["files"]
    return [f["runtime_lib"], f["acl_lib"]]


def runtime_dirs(root: str) -> list[tuple[str, str]]:
    """(directory, pipeline knob) for every simulator runtime directory of the
    simpler build at root, in gen-fake-runtime's order."""
    if not os.path.isdir(root):
        raise InstallError(f"{root}: no such directory")
    rt_lib = _files()[0]
    found = sorted(glob.glob(os.path.join(glob.escape(root), LIB_DIR, "*", VARIANT, "*")))
    dirs: list[tuple[str, str]] = []
    for d in found:
        if not (os.path.lexists(os.path.join(d, rt_lib)) or os.path.lexists(os.path.join(d, aside(rt_lib)))):
            continue
        arch, rt = os.path.basename(os.path.dirname(os.path.dirname(d))), os.path.basename(d)
        known = runtimes()
        if arch not in ARCHES or rt not in known:
            raise InstallError(f"{d}: a simulator runtime install does not know "
                               f"(it knows {', '.join(known)} of {', '.join(ARCHES)})")
        dirs.append((d, known[rt]))
    if not dirs:
        raise InstallError(f"{root} is not a simpler build: no {LIB_DIR}/<arch>/{VARIANT}/<runtime>/{rt_lib} "
                           "(python3 simpler_setup/build_runtimes.py --platforms a2a3sim a5sim makes them)")
    return dirs


def _installed(d: str) -> str | None:
    for name in [RECORD] + [aside(f) for f in _files()]:
        if os.path.lexists(os.path.join(d, name)):
            return name
    return None


def install(root: str, knobs=None, *, cc: str | None = None, cache_dir: str | None = None,
            report=None) -> list[str]:
    """Installs the legacy fake, built with knobs (as build() takes them),
    into every simulator runtime directory of the simpler build at root,
    keeping upstream's files aside; returns what it did, one line per file
    written or moved (what gen-fake-runtime install prints), each also given
    to report (a callable) as it is done. Raises InstallError or KnobError
    before changing anything."""
    user = knob_strings(knobs)
    for kv in user:
        if kv.split("=", 1)[0] == "pipeline":
            raise InstallError(f'knob "{kv}": install sets the pipeline per runtime directory')
    dirs = runtime_dirs(root)
    for d, _ in dirs:
        name = _installed(d)
        if name is not None:
            raise InstallError(f"{d} already holds a fake ({name}); gen-fake-runtime restore {root} first")
    # Every fake is built before anything moves.
    fakes = {}
    for _, knob in dirs:
        if knob not in fakes:
            src = fake_sources("legacy", user + ([knob] if knob else []))
            directory, _, _ = build_fake_files(src.runtime, src.acl, src.header, cc, cache_dir)
            fakes[knob] = (src.knobs, directory)
    done = _Steps(report)
    for d, knob in dirs:
        knob_list, directory = fakes[knob]
        _install_into(d, knob_list, directory, done)
    return done.lines


class _Steps:
    """The lines of what was done, each reported as it is done."""

    def __init__(self, report):
        self.lines: list[str] = []
        self._report = report

    def append(self, line: str) -> None:
        self.lines.append(line)
        if self._report is not None:
            self._report(line)


def _install_into(d: str, knobs, built_dir: str, done: _Steps) -> None:
    # The record first, as gen-fake-runtime writes it: restore undoes an
    # install interrupted at any point.
    lines = [RECORD_HEADER, "profile legacy\n"] + [f"knob {k}\n" for k in knobs]
    kept = []
    for name in _files():
        if os.path.lexists(os.path.join(d, name)):
            kept.append(name)
            lines.append(f"aside {name}\n")
        else:
            lines.append(f"new {name}\n")
    rec = os.path.join(d, RECORD)
    with open(rec, "w", encoding="utf-8") as f:
        f.write("".join(lines))
    done.append(f"wrote {rec}")
    for name in kept:
        p, to = os.path.join(d, name), os.path.join(d, aside(name))
        os.rename(p, to)
        done.append(f"moved {p} -> {to}")
    for name in _files():
        p = os.path.join(d, name)
        copy_file(os.path.join(built_dir, name), p)
        done.append(f"wrote {p}")


def restore(root: str, *, report=None) -> list[str]:
    """Puts upstream's files back in every directory install changed (byte
    for byte: they are renamed back) and removes what it added; returns what
    it did, one line per file (empty when root holds no fake), each also
    given to report as it is done."""
    done = _Steps(report)
    for d, _ in runtime_dirs(root):
        if _installed(d) is not None:
            _restore_dir(d, done)
    return done.lines


def _restore_dir(d: str, done: _Steps) -> None:
    rec = os.path.join(d, RECORD)
    new = _read_record(rec)
    for name in _files():
        p, kept = os.path.join(d, name), os.path.join(d, aside(name))
        if os.path.lexists(kept):
            os.rename(kept, p)
            done.append(f"moved {kept} -> {p}")
        elif name in new:
            try:
                os.remove(p)
                done.append(f"removed {p}")
            except FileNotFoundError:
                pass
    try:
        os.remove(rec)
        done.append(f"removed {rec}")
    except FileNotFoundError:
        pass


def _read_record(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return []
    new = []
    for i, line in enumerate(text.splitlines(), 1):
        word, _, rest = line.partition(" ")
        if word == "new":
            if rest not in _files():
                raise InstallError(f'{path}:{i}: "{rest}" is not a file install writes')
            new.append(rest)
        elif word not in ("#", "profile", "knob", "aside"):
            raise InstallError(f'{path}:{i}: unknown line "{line}"')
    return new


def _say(line: str) -> None:
    print(line, flush=True)


def main(argv: list[str]) -> int:
    """python3 -m simabi_fake install [-knob key=value]... [-cc CC] ROOT |
    restore ROOT: as gen-fake-runtime's; exit 0 done, 1 a build or file
    failure, 2 refused."""
    import argparse
    import sys

    from ._build import BuildError

    p = argparse.ArgumentParser(prog="python3 -m simabi_fake")
    sub = p.add_subparsers(dest="command", required=True)
    i = sub.add_parser("install", help="put the legacy fake into a simpler build, keeping upstream's files aside")
    i.add_argument("-knob", "--knob", action="append", default=[], metavar="KEY=VALUE", help="a knob, repeatable")
    i.add_argument("-cc", "--cc", default=None, help="C compiler command (default $CC, then cc)")
    i.add_argument("root", metavar="SIMPLER_ROOT")
    r = sub.add_parser("restore", help="put upstream's files back")
    r.add_argument("root", metavar="SIMPLER_ROOT")
    args = p.parse_args(argv)
    try:
        if args.command == "install":
            install(args.root, args.knob, cc=args.cc, report=_say)
        elif not restore(args.root, report=_say):
            print(f"simabi_fake restore: {args.root} holds no fake (no {RECORD} under {LIB_DIR}); nothing to do",
                  file=sys.stderr)
    except (InstallError, KnobError) as e:
        print(f"simabi_fake {args.command}: {e}", file=sys.stderr)
        return 2
    except (BuildError, OSError) as e:
        print(f"simabi_fake {args.command}: {e}", file=sys.stderr)
        return 1
    return 0
