"""The git commit of a folder's repository, and whether its tracked files differ from it.

Read straight from the ``.git`` files (``HEAD``, loose and packed refs, loose and packed
objects, the index): no ``git`` process is started, so nothing a repository's configuration
names (hooks, filters, ``core.fsmonitor``) can run, no network is touched, and it works
where git is not installed. What ``run.json``'s ``git_commit`` / ``git_dirty`` record.

*Dirty* means a tracked file differs from the commit: changed or deleted in the working tree
(size and modification time against the index, the contents hashed when they differ), staged
in the index, or in conflict. Untracked files do not count. A repository this reader does not
follow (a split or sparse index, an object it cannot find) gives ``dirty=None``: unknown,
never a guess; the commit is still read.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = ["GitState", "git_state"]

#: give up on the dirty check (``dirty=None``) past these many index entries or hashed bytes
MAX_ENTRIES = 200_000
MAX_HASHED_BYTES = 64 * 1024 * 1024
#: the most read of one ``.git`` file (the index, packed refs, an index of a pack), and the
#: most one object may inflate to: a repository that came with a suite may be hostile (a FIFO
#: HEAD, an endless file, a compressed bomb); past these the reader gives up, never hangs
MAX_GIT_FILE_BYTES = 256 * 1024 * 1024
MAX_OBJECT_BYTES = 64 * 1024 * 1024
#: a ref, HEAD, a ``.git`` or ``commondir`` file: a line of text
_MAX_SMALL = 64 * 1024
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True, kw_only=True)
class GitState:
    """The commit checked out in a repository and whether its tracked files differ from it."""

    #: the worktree's top folder
    root: Path
    #: 40 hex digits
    commit: str
    #: True: a tracked file is changed, staged or in conflict; None: could not tell
    dirty: bool | None


class _Unreadable(Exception):
    """Something in ``.git`` this reader does not follow."""


def _open(path: Path) -> BinaryIO:
    """``path`` opened for reading when it is a regular file (a FIFO is opened without waiting
    for a writer, then refused, as are devices): else :class:`_Unreadable`."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    fh = os.fdopen(fd, "rb")
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Unreadable(f"{path.name}: not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        fh.close()
        raise
    return fh


def _read(path: Path, limit: int = MAX_GIT_FILE_BYTES) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them (else :class:`_Unreadable`)."""
    with _open(path) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise _Unreadable(f"{path.name}: larger than {limit} bytes")
    return data


def _text(path: Path) -> str:
    """A one-line file of ``.git`` (HEAD, a ref, ``commondir``), stripped."""
    return _read(path, _MAX_SMALL).decode("utf-8").strip()


def git_state(start: Path | str) -> GitState | None:
    """The state of the repository holding ``start`` (a file or folder), or None when it is in
    none, or the repository has no commit yet, or its files cannot be read."""
    found = _find(Path(start))
    if found is None:
        return None
    root, gitdir, common = found
    try:
        commit = _head(gitdir, common)
    except (OSError, ValueError, _Unreadable):
        return None
    if commit is None:
        return None
    try:
        dirty: bool | None = _dirty(root, gitdir, _Objects(common / "objects"), commit)
    except (OSError, ValueError, KeyError, IndexError, zlib.error, struct.error, _Unreadable):
        dirty = None
    return GitState(root=root, commit=commit, dirty=dirty)


def _find(start: Path) -> tuple[Path, Path, Path] | None:
    """(worktree root, git dir, common git dir) of the repository above ``start``."""
    try:
        here = start.resolve()
    except OSError:
        return None
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        dot = folder / ".git"
        try:
            if dot.is_dir():
                gitdir = dot
            elif dot.is_file():  # a linked worktree or a submodule: "gitdir: PATH"
                text = _text(dot)
                if not text.startswith("gitdir:"):
                    return None
                gitdir = (folder / text.removeprefix("gitdir:").strip()).resolve()
            else:
                continue
            common_file = gitdir / "commondir"
            common = gitdir
            if common_file.is_file():
                common = (gitdir / _text(common_file)).resolve()
        except (OSError, ValueError, _Unreadable):
            return None
        return folder, gitdir, common
    return None


def _is_sha(text: str) -> bool:
    return len(text) == 40 and set(text) <= _HEX


def _head(gitdir: Path, common: Path) -> str | None:
    """The commit ``HEAD`` names (None: a branch without commits)."""
    text = _text(gitdir / "HEAD")
    for _ in range(10):  # symbolic refs may point to symbolic refs
        if _is_sha(text):
            return text
        if not text.startswith("ref:"):
            raise _Unreadable(f"HEAD: {text[:40]!r}")
        ref = text.removeprefix("ref:").strip()
        target = _ref(gitdir, common, ref)
        if target is None:
            return None
        text = target
    raise _Unreadable("symbolic refs nest too deep")


def _ref(gitdir: Path, common: Path, ref: str) -> str | None:
    """A ref's content: its loose file (in the worktree's folder, then the common one), else
    its line in ``packed-refs``."""
    if ".." in Path(ref).parts:
        raise _Unreadable(f"ref {ref!r}")
    for base in (gitdir, common):
        path = base / ref
        if path.is_file():
            return _text(path)
    packed = common / "packed-refs"
    if packed.is_file():
        for line in _read(packed).decode("utf-8").splitlines():
            sha, _, name = line.partition(" ")
            if name == ref and _is_sha(sha):
                return sha
    return None


# ------------------------------------------------------------------------------ objects


class _Objects:
    """Loose and packed objects of one repository (by binary id)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._packs: list[_Pack] | None = None

    def read(self, oid: bytes) -> tuple[int, bytes]:
        """(type, data) of an object: 1 commit, 2 tree, 3 blob, 4 tag."""
        hexid = oid.hex()
        loose = self.folder / hexid[:2] / hexid[2:]
        if loose.is_file():
            inflater = zlib.decompressobj()
            raw = inflater.decompress(_read(loose), MAX_OBJECT_BYTES + 1)
            if len(raw) > MAX_OBJECT_BYTES or inflater.unconsumed_tail:
                raise _Unreadable(f"object {hexid}: larger than {MAX_OBJECT_BYTES} bytes")
            if not inflater.eof:
                raise _Unreadable(f"object {hexid}: truncated")
            head, _, data = raw.partition(b"\0")
            kind = head.split(b" ", 1)[0]
            return _KINDS[kind], data
        for pack in self.packs():
            found = pack.read(oid, self)
            if found is not None:
                return found
        raise _Unreadable(f"object {hexid} not found")

    def packs(self) -> list[_Pack]:
        if self._packs is None:
            folder = self.folder / "pack"
            idx = sorted(folder.glob("*.idx")) if folder.is_dir() else []
            self._packs = [_Pack(p) for p in idx if p.with_suffix(".pack").is_file()]
        return self._packs


_KINDS = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}


class _Pack:
    """One ``.pack`` with its version-2 ``.idx``."""

    def __init__(self, idx: Path) -> None:
        data = _read(idx)
        if data[:8] != b"\377tOc\0\0\0\2":
            raise _Unreadable(f"{idx.name}: not a version 2 pack index")
        self.fanout = struct.unpack(">256I", data[8 : 8 + 1024])
        self.count = self.fanout[255]
        self.data = data
        self.path = idx.with_suffix(".pack")

    def _offset(self, oid: bytes) -> int | None:
        lo = self.fanout[oid[0] - 1] if oid[0] else 0
        hi = self.fanout[oid[0]]
        ids = 8 + 1024
        while lo < hi:
            mid = (lo + hi) // 2
            here = self.data[ids + 20 * mid : ids + 20 * mid + 20]
            if here < oid:
                lo = mid + 1
            elif here > oid:
                hi = mid
            else:
                offsets = ids + 24 * self.count  # after the ids and their CRCs
                (off,) = struct.unpack(">I", self.data[offsets + 4 * mid : offsets + 4 * mid + 4])
                if off & 0x80000000:  # in the table of 8-byte offsets
                    large = offsets + 4 * self.count + 8 * (off & 0x7FFFFFFF)
                    (off,) = struct.unpack(">Q", self.data[large : large + 8])
                return int(off)
        return None

    def read(self, oid: bytes, store: _Objects) -> tuple[int, bytes] | None:
        offset = self._offset(oid)
        if offset is None:
            return None
        with _open(self.path) as fh:
            return self._at(fh, offset, store, depth=0)

    def _at(self, fh: BinaryIO, offset: int, store: _Objects, depth: int) -> tuple[int, bytes]:
        if depth > 60:
            raise _Unreadable("delta chain too long")
        fh.seek(offset)
        head = fh.read(32)
        kind, pos = (head[0] >> 4) & 7, 1
        while head[pos - 1] & 0x80:
            pos += 1
        if kind == 6:  # OFS_DELTA: the base is this far back in the same pack
            c = head[pos]
            back, pos = c & 0x7F, pos + 1
            while c & 0x80:
                c = head[pos]
                back, pos = ((back + 1) << 7) | (c & 0x7F), pos + 1
            kind, base = self._at(fh, offset - back, store, depth + 1)
            return kind, _apply_delta(base, _inflate(fh, offset + pos))
        if kind == 7:  # REF_DELTA: the base named by its id
            base_id = head[pos : pos + 20]
            kind, base = store.read(base_id)
            return kind, _apply_delta(base, _inflate(fh, offset + pos + 20))
        if kind not in (1, 2, 3, 4):
            raise _Unreadable(f"pack object type {kind}")
        return kind, _inflate(fh, offset + pos)


def _inflate(fh: BinaryIO, offset: int) -> bytes:
    fh.seek(offset)
    inflater = zlib.decompressobj()
    out = []
    size = 0
    while not inflater.eof:
        chunk = fh.read(65536)
        if not chunk:
            raise _Unreadable("truncated pack")
        out.append(inflater.decompress(chunk, MAX_OBJECT_BYTES + 1 - size))
        size += len(out[-1])
        if size > MAX_OBJECT_BYTES or (inflater.unconsumed_tail and not inflater.eof):
            raise _Unreadable(f"a pack object larger than {MAX_OBJECT_BYTES} bytes")
    return b"".join(out)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        c = data[pos]
        pos += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return value, pos


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    size, pos = _varint(delta, 0)
    if size != len(base):
        raise _Unreadable("delta base size mismatch")
    target, pos = _varint(delta, pos)
    if target > MAX_OBJECT_BYTES:
        raise _Unreadable(f"a delta result larger than {MAX_OBJECT_BYTES} bytes")
    out = bytearray()
    while pos < len(delta):
        cmd = delta[pos]
        pos += 1
        if cmd & 0x80:  # copy from the base
            off = length = 0
            for i in range(4):
                if cmd & (1 << i):
                    off |= delta[pos] << (8 * i)
                    pos += 1
            for i in range(3):
                if cmd & (0x10 << i):
                    length |= delta[pos] << (8 * i)
                    pos += 1
            out += base[off : off + (length or 0x10000)]
        elif cmd:  # insert the next cmd bytes
            out += delta[pos : pos + cmd]
            pos += cmd
        else:
            raise _Unreadable("bad delta instruction")
        if len(out) > target:
            raise _Unreadable("a delta longer than it says")
    return bytes(out)


def _tree_of(store: _Objects, commit: str) -> bytes:
    kind, data = store.read(bytes.fromhex(commit))
    if kind != 1 or not data.startswith(b"tree "):
        raise _Unreadable("HEAD is not a commit")
    return bytes.fromhex(data[5:45].decode())


def _flatten(
    store: _Objects, tree: bytes, prefix: bytes, out: dict[bytes, tuple[int, bytes]]
) -> None:
    """Every file of ``tree``: path -> (mode, id)."""
    kind, data = store.read(tree)
    if kind != 2:
        raise _Unreadable("not a tree")
    pos = 0
    while pos < len(data):
        space = data.index(b" ", pos)
        nul = data.index(b"\0", space)
        mode = int(data[pos:space], 8)
        name = prefix + data[space + 1 : nul]
        oid = data[nul + 1 : nul + 21]
        pos = nul + 21
        if mode == 0o40000:
            _flatten(store, oid, name + b"/", out)
        else:
            out[name] = (mode, oid)


# -------------------------------------------------------------------------------- index


@dataclass(frozen=True, slots=True, kw_only=True)
class _Entry:
    """One entry of git's index file: the path, its mode, object id and file status."""

    path: bytes
    mode: int
    oid: bytes
    size: int
    mtime_s: int
    mtime_ns: int
    ctime_s: int
    ctime_ns: int
    inode: int
    stage: int
    skip_worktree: bool
    #: ``git add -N``: a new file only announced, which ``git status`` shows as added
    intent_to_add: bool


_ENTRY = struct.Struct(">10I20sH")


def _index(path: Path) -> tuple[list[_Entry], bytes | None]:
    """The index's entries and its cached root tree id (None: not cached or invalid)."""
    data = _read(path)
    if data[:4] != b"DIRC":
        raise _Unreadable("not an index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4) or count > MAX_ENTRIES:
        raise _Unreadable(f"index version {version} with {count} entries")
    entries: list[_Entry] = []
    pos, previous = 12, b""
    for _ in range(count):
        start = pos
        fields = _ENTRY.unpack_from(data, pos)
        flags = fields[11]
        pos += 62
        extended = 0
        if flags & 0x4000:
            (extended,) = struct.unpack(">H", data[pos : pos + 2])
            pos += 2
        if version == 4:  # the path: strip N bytes of the previous one, add a suffix
            strip, pos = _varint_v4(data, pos)
            nul = data.index(b"\0", pos)
            name = previous[: len(previous) - strip] + data[pos:nul]
            pos = nul + 1
        else:
            nul = data.index(b"\0", pos)
            name = data[pos:nul]
            pos = start + ((nul - start) // 8 + 1) * 8  # NUL-padded to a multiple of 8
        previous = name
        entries.append(
            _Entry(
                path=name,
                mode=fields[6],
                oid=fields[10],
                size=fields[9],
                mtime_s=fields[2],
                mtime_ns=fields[3],
                ctime_s=fields[0],
                ctime_ns=fields[1],
                inode=fields[5],
                stage=(flags >> 12) & 3,
                skip_worktree=bool(extended & 0x4000),
                intent_to_add=bool(extended & 0x2000),
            )
        )
    return entries, _cached_root(data, pos)


def _varint_v4(data: bytes, pos: int) -> tuple[int, int]:
    """The offset encoding of index version 4 (as in OFS_DELTA)."""
    c = data[pos]
    value, pos = c & 0x7F, pos + 1
    while c & 0x80:
        c = data[pos]
        value, pos = ((value + 1) << 7) | (c & 0x7F), pos + 1
    return value, pos


def _cached_root(data: bytes, pos: int) -> bytes | None:
    """The root entry of the ``TREE`` extension when valid; a split or sparse index is
    not followed."""
    end = len(data) - 20  # the trailing checksum
    root = None
    while pos + 8 <= end:
        sig, size = data[pos : pos + 4], struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        body = data[pos + 8 : pos + 8 + size]
        if sig in (b"link", b"sdir"):
            raise _Unreadable(f"index extension {sig.decode()}")
        if sig == b"TREE" and body.startswith(b"\0"):
            nl = body.index(b"\n")
            count = int(body[1:nl].split(b" ")[0])
            root = body[nl + 1 : nl + 21] if count >= 0 else None
        pos += 8 + size
    return root


# -------------------------------------------------------------------------------- dirty


def _dirty(root: Path, gitdir: Path, store: _Objects, commit: str) -> bool:
    index_path = gitdir / "index"
    head_tree = _tree_of(store, commit)
    if not index_path.is_file():  # nothing checked out yet
        raise _Unreadable("no index")
    entries, cached = _index(index_path)
    if any(e.stage or e.intent_to_add for e in entries):
        return True  # a conflict, or a file announced with git add -N
    if _worktree_differs(root, entries, index_path.stat().st_mtime_ns):
        return True
    if cached is not None:
        return cached != head_tree
    files: dict[bytes, tuple[int, bytes]] = {}
    _flatten(store, head_tree, b"", files)
    staged = {e.path: (e.mode, e.oid) for e in entries}
    return staged != files


def _same_stat(st: os.stat_result, e: _Entry) -> bool:
    """What git compares before it reads a file: size, modification and change times, inode
    (the nanoseconds only when the index has them)."""
    return (
        st.st_size & 0xFFFFFFFF == e.size
        and st.st_mtime_ns // 1_000_000_000 & 0xFFFFFFFF == e.mtime_s
        and (e.mtime_ns == 0 or st.st_mtime_ns % 1_000_000_000 == e.mtime_ns)
        and st.st_ctime_ns // 1_000_000_000 & 0xFFFFFFFF == e.ctime_s
        and (e.ctime_ns == 0 or st.st_ctime_ns % 1_000_000_000 == e.ctime_ns)
        and (e.inode == 0 or st.st_ino & 0xFFFFFFFF == e.inode)
    )


def _worktree_differs(root: Path, entries: list[_Entry], index_mtime_ns: int) -> bool:
    top = os.fsencode(root) + b"/"
    budget = MAX_HASHED_BYTES
    for e in entries:
        if e.skip_worktree or stat.S_IFMT(e.mode) == 0o160000:  # sparse, or a submodule
            continue
        path = top + e.path  # bytes: no Path object per file
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return True
        if stat.S_ISLNK(st.st_mode) != stat.S_ISLNK(e.mode):
            return True
        if not stat.S_ISLNK(st.st_mode) and (st.st_mode & 0o100) != (e.mode & 0o100):
            return True
        if _same_stat(st, e) and st.st_mtime_ns < index_mtime_ns:
            continue  # unchanged since the index was written
        if stat.S_ISLNK(st.st_mode):
            content = os.readlink(path)
        elif not stat.S_ISREG(st.st_mode):
            return True  # a tracked file is now a folder, FIFO or device: changed (never read)
        else:
            budget -= st.st_size
            if budget < 0:
                raise _Unreadable("too much to hash")
            content = _read(Path(os.fsdecode(path)), budget + st.st_size)
        blob = hashlib.sha1(b"blob %d\0" % len(content), usedforsecurity=False)
        blob.update(content)
        if blob.digest() != e.oid:
            return True
    return False
