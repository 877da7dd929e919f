"""Compiling a fake into the content-addressed cache, as sim/emit's Build does.

The cache is gen-fake-runtime's ($SIMABI_FAKE_CACHE, else the user cache
directory's simabi/fakes): an entry is named by a hash of the sources, the
compiler and the flags, computed as Go computes it, so a fake built by either
is found by the other. A build happens in a private directory renamed into
place, so concurrent builds of one key (threads, pytest-xdist workers, any
processes) never see a half-built entry.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from ._sources import go_quote, manifest


class BuildError(RuntimeError):
    """A fake could not be built: the compiler failed, or the cache is not
    writable."""


class NoCompilerError(BuildError):
    """No C compiler: set CC or install gcc."""


NO_COMPILER = "no C compiler found (set CC or install gcc)"

_compilers: dict[str, tuple[list[str], bytes]] = {}
_compilers_lock = threading.Lock()


def resolve_compiler(cc: str | None = None) -> tuple[list[str], bytes]:
    """The compiler's argv (program resolved in PATH, then its arguments) and
    its --version output: cc, else $CC, else cc."""
    cc = cc or os.environ.get("CC") or "cc"
    with _compilers_lock:
        if cc in _compilers:
            return _compilers[cc]
        fields = cc.split()
        if not fields:
            raise NoCompilerError(NO_COMPILER)
        path = shutil.which(fields[0])
        if path is None:
            raise NoCompilerError(f"{NO_COMPILER}: {go_quote(fields[0])} is not an executable in PATH")
        argv = [path, *fields[1:]]
        r = subprocess.run([*argv, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        if r.returncode != 0:
            raise NoCompilerError(f"{NO_COMPILER}: {cc} --version failed: exit status {r.returncode}")
        _compilers[cc] = (argv, r.stdout)
        return _compilers[cc]


def _key(parts: list[bytes | str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8") if isinstance(p, str) else p
        h.update(f"{len(b)}:".encode())
        h.update(b)
        h.update(b";")
    return h.hexdigest()


def fake_key(runtime: str, acl: str, header: str, cc: tuple[list[str], bytes]) -> str:
    """emit's cacheKey: the sources, the compiler and the flags."""
    b = manifest()["build"]
    return _key([runtime, acl, header, " ".join(cc[0]), cc[1], " ".join(b["cflags"]), b["fake_key_salt"]])


def recorder_key(source: str, cc: tuple[list[str], bytes]) -> str:
    b = manifest()["build"]
    return _key([b["recorder_key_salt"], source, " ".join(cc[0]), cc[1], " ".join(b["cflags"])])


def default_cache_dir() -> str:
    """$SIMABI_FAKE_CACHE, else the user cache directory's simabi/fakes (Go's
    os.UserCacheDir)."""
    d = os.environ.get("SIMABI_FAKE_CACHE")
    if d:
        return d
    home = os.environ.get("HOME", "")
    if sys.platform == "darwin":
        if not home:
            raise BuildError("no cache directory (set SIMABI_FAKE_CACHE): $HOME is not defined")
        return os.path.join(home + "/Library/Caches", "simabi", "fakes")
    d = os.environ.get("XDG_CACHE_HOME", "")
    if not d:
        if not home:
            raise BuildError("no cache directory (set SIMABI_FAKE_CACHE): neither $XDG_CACHE_HOME nor $HOME are defined")
        d = home + "/.cache"
    elif not os.path.isabs(d):
        raise BuildError("no cache directory (set SIMABI_FAKE_CACHE): path in $XDG_CACHE_HOME is relative")
    return os.path.join(d, "simabi", "fakes")


_key_locks: dict[str, threading.Lock] = {}
_key_locks_lock = threading.Lock()


def _key_lock(key: str) -> threading.Lock:
    with _key_locks_lock:
        return _key_locks.setdefault(key, threading.Lock())


def _regular(path: str) -> bool:
    return os.path.isfile(path) and not os.path.islink(path)


def publish(cache_dir: str, final: str, lock_key: str, tmp_prefix: str, done, compile_into) -> bool:
    """Makes the cache entry final: nothing when done() says it is complete,
    else compile_into a private directory of cache_dir renamed into place.
    Returns whether the entry came from the cache."""
    with _key_lock(lock_key):
        if done():
            return True
        try:
            os.makedirs(cache_dir, exist_ok=True)
            tmp = tempfile.mkdtemp(prefix=tmp_prefix, dir=cache_dir)
        except OSError as e:
            raise BuildError(f"cache: {e}") from None
        try:
            compile_into(tmp)
            try:
                os.rename(tmp, final)
            except OSError as e:
                if done():
                    return True  # another process published the same key first
                # A damaged entry (a file removed by hand): replace it.
                shutil.rmtree(final, ignore_errors=True)
                try:
                    os.rename(tmp, final)
                except OSError:
                    raise BuildError(f"cache: publishing {final}: {e}") from None
            return False
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def run_cc(directory: str, cc: tuple[list[str], bytes], args: list[str]) -> None:
    argv = [*cc[0][1:], *manifest()["build"]["cflags"], *args]
    try:
        r = subprocess.run([cc[0][0], *argv], cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=300, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{cc[0][0]} {' '.join(argv)}: no result after 300 s") from None
    if r.returncode != 0:
        raise BuildError(f"{cc[0][0]} {' '.join(argv)}: exit status {r.returncode}\n"
                         + r.stdout.decode("utf-8", "replace"))


def copy_file(src: str, dst: str) -> None:
    """Copies src to dst atomically (a temporary file renamed over dst)."""
    fd, tmp = tempfile.mkstemp(prefix=".copy-", dir=os.path.dirname(dst) or ".")
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out)
        os.chmod(tmp, os.stat(src).st_mode & 0o777)
        os.rename(tmp, dst)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write(path: str, text: str) -> None:
    with open(path, "wb") as f:
        f.write(text.encode("utf-8"))


def _acl_library(directory: str, cache_dir: str, acl: str, cc) -> None:
    """Puts libascendcl.so into directory, from the ACL's own cache entry (one
    for every fake of the same ACL source) or by building and publishing it."""
    files = manifest()["build"]["files"]
    entry = os.path.join(cache_dir, "acl-" + fake_key("", acl, "", cc)[:32])
    lib = os.path.join(entry, files["acl_lib"])
    dst = os.path.join(directory, files["acl_lib"])
    if _regular(lib):
        try:
            os.link(lib, dst)
            return
        except OSError:
            try:
                copy_file(lib, dst)
                return
            except OSError:
                pass
    run_cc(directory, cc, manifest()["build"]["acl_link"])
    try:
        tmp = tempfile.mkdtemp(prefix=".acl-", dir=cache_dir)
    except OSError:
        return  # the cache is an optimisation
    try:
        copy_file(dst, os.path.join(tmp, files["acl_lib"]))
        try:
            os.rename(tmp, entry)
        except OSError:
            pass  # loses harmlessly to a concurrent publisher
    except OSError:
        pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_fake_files(runtime: str, acl: str, header: str, cc: str | None, cache_dir: str | None) -> tuple[str, str, bool]:
    """Builds (or finds) the fake of these sources; returns its cache
    directory, its key and whether it came from the cache."""
    compiler = resolve_compiler(cc)
    cache_dir = cache_dir or default_cache_dir()
    key = fake_key(runtime, acl, header, compiler)
    final = os.path.join(cache_dir, key)
    files = manifest()["build"]["files"]
    names = [files[n] for n in ("runtime_lib", "acl_lib", "runtime_src", "acl_src", "header")]

    def done() -> bool:
        return all(_regular(os.path.join(final, n)) for n in names)

    def compile_into(tmp: str) -> None:
        _write(os.path.join(tmp, files["runtime_src"]), runtime)
        _write(os.path.join(tmp, files["acl_src"]), acl)
        _write(os.path.join(tmp, files["header"]), header)
        _acl_library(tmp, cache_dir, acl, compiler)
        run_cc(tmp, compiler, manifest()["build"]["runtime_link"])

    cached = publish(cache_dir, final, key, ".build-" + key[:12] + "-", done, compile_into)
    return final, key, cached


def build_recorder_files(source: str, cc: str | None, cache_dir: str | None) -> tuple[str, str, bool]:
    compiler = resolve_compiler(cc)
    cache_dir = cache_dir or default_cache_dir()
    key = recorder_key(source, compiler)
    final = os.path.join(cache_dir, "rec-" + key)
    files = manifest()["build"]["files"]

    def done() -> bool:
        return _regular(os.path.join(final, files["runtime_lib"])) and _regular(os.path.join(final, files["recorder_src"]))

    def compile_into(tmp: str) -> None:
        _write(os.path.join(tmp, files["recorder_src"]), source)
        run_cc(tmp, compiler, manifest()["build"]["recorder_link"])

    cached = publish(cache_dir, final, "rec-" + key, ".build-rec-" + key[:12] + "-", done, compile_into)
    return final, key, cached
