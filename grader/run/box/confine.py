"""The per-test boundary: namespaces, a sealed file system, private scratch space, no privileges.

Standard library only (ctypes reaches the Linux calls that Python 3.11 lacks), part of the box
(`grader.run.box`): the only module that calls the kernel for the boundary. The fork server
(worker.py) imports it before it removes its own folder from `sys.path`; each test process calls,
in this order:

1. `enter_namespaces` (in a child of the fork server, before the test's own process exists):
   new pid, mount, IPC and (outside bubblewrap) network namespaces; a user namespace too when the
   grader is not real root. The test's processes then cannot see, signal or trace anything
   outside their own pid namespace, and everything in it dies with the namespace's first process.
2. `seal_file_system`: mounts stop propagating; the whole tree becomes read-only and nosuid
   (nodev as well when real root, with a fresh /dev holding only null, zero, full, random and
   urandom); the folders in `hidden` (the fork server's I/O folder) are covered with empty
   read-only mounts. Then `private_proc`, in the namespace's first process: /proc shows only the
   test's own processes (or nothing, where the kernel refuses a new proc in a user namespace).
   /tmp is a fresh tmpfs; the test's code and inputs stay visible, read-only, where they were.
3. /tmp, the only writable place, is mounted capped in bytes and files (the request's scratch
   limits: a request with other limits than the prepared test's gets a fresh one); the kernel
   charges its pages to the test's memory cgroup, so written files count as memory.
4. `lock_down` (before the request arrives; `launch.py` calls it too): `drop_bounding_set`,
   `become` (the test's own unprivileged uid, when the grader is real root) and
   `drop_capabilities`: empty capability sets and bounding set, no_new_privs: nothing the test
   runs can regain a privilege; then `install_seccomp`: the filter of `grader/run/policy.py`: no
   namespace, mount, keyring, trace, bpf ... ever.

Each step raises `ConfineError` when the kernel refuses; the test then reports why and runs
nothing (namespaces refused: the fork server runs tests without them and says so). The parent
checks what each test got from outside (`grader/run/boundary.py`) before any student code runs.
"""

from __future__ import annotations

import ctypes
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_REMOUNT = 0x20
MS_REMOUNT_BIND = 0x20 | 0x1000  # MS_REMOUNT | MS_BIND: change the flags of an existing mount

MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
MOUNT_ATTR_NODEV = 0x4
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (added after the syscall table merge)

PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_CAPBSET_DROP = 24
PR_SET_DUMPABLE = 4
CAP_LAST_CAP = 63
LINUX_CAPABILITY_VERSION_3 = 0x20080522

DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}

_libc = ctypes.CDLL(None, use_errno=True)


class ConfineError(OSError):
    """The kernel refused a step of the boundary."""


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _check(result: int, what: str) -> None:
    """Raise ConfineError naming `what` when a libc call returned -1."""
    if result != 0:
        error = ctypes.get_errno()
        raise ConfineError(error, f"{what}: {os.strerror(error)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            kind.encode() if kind else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def set_not_dumpable() -> None:
    """Keep processes of the same user from reading our memory, descriptors or /proc entries."""
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")


def enter_namespaces(own_network: bool) -> bool:
    """Unshare the test's namespaces; True when a user namespace was needed for it."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (CLONE_NEWNET if own_network else 0)
    if os.geteuid() == 0 and _libc.unshare(flags) == 0:
        return False
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(flags | CLONE_NEWUSER), "unshare")
    # A process that is not dumpable (the fork server's children) has its /proc files owned by
    # the kernel's root, which the new namespace does not map: its own maps are then unwritable.
    _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable for the maps")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    set_not_dumpable()
    return True


def _mount_setattr(path: str, attributes: int) -> None:
    attr = _MountAttr(attr_set=attributes)
    result = _libc.syscall(
        SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)
    )
    _check(0 if result == 0 else -1, f"mount_setattr {path}")


OPEN_TREE_CLONE = 0x1
OPEN_TREE_CLOEXEC = 0o2000000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
SYS_OPEN_TREE = 428
SYS_MOVE_MOUNT = 429
SCRATCH_FLAGS = MS_NOSUID | MS_NODEV
DEFAULT_SCRATCH = (64 * 1024 * 1024, 512)  # bytes, files: the suites' default scratch_mb, scratch_files


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _cover(target: str, options: str, flags: int, kept: list[str]) -> None:
    """Mount a fresh tmpfs on `target`, keeping the folders of `kept` below it where they were."""
    clones = []
    for path in kept:
        if _under(path, target):
            fd = _libc.syscall(
                SYS_OPEN_TREE, AT_FDCWD, path.encode(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE
            )
            _check(0 if fd >= 0 else -1, f"open_tree {path}")
            clones.append((path, fd))
    _mount("tmpfs", target, "tmpfs", flags, options)
    for path, fd in clones:
        os.makedirs(path, mode=0o755, exist_ok=True)
        result = _libc.syscall(SYS_MOVE_MOUNT, fd, b"", AT_FDCWD, path.encode(), MOVE_MOUNT_F_EMPTY_PATH)
        os.close(fd)
        _check(0 if result == 0 else -1, f"move_mount {path}")


def _fresh_dev(kept: list[str]) -> None:
    """A /dev with only the harmless character devices (real root only: it needs mknod)."""
    _cover("/dev", "size=64k,nr_inodes=64,mode=0755", MS_NOSUID | MS_NOEXEC, kept)
    for name, (major, minor) in DEVICES.items():
        os.mknod(f"/dev/{name}", 0o666 | 0o020000, os.makedev(major, minor))
        os.chmod(f"/dev/{name}", 0o666)
    os.makedirs("/dev/shm", 0o1777, exist_ok=True)
    _mount(None, "/dev", None, MS_REMOUNT_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC)


def seal_file_system(
    hidden: list[str], kept: list[str], in_user_namespace: bool, scratch: tuple[int, int] = DEFAULT_SCRATCH
) -> None:
    """Read-only everything, a private /tmp, `hidden` folders covered by empty mounts.

    `kept` are folders the test needs (its code and inputs) that may lie below /tmp or /dev:
    they are carried over, read-only, onto the fresh mounts.
    """
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    if in_user_namespace:
        _mount_setattr("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID)
    else:
        _mount_setattr("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
        _fresh_dev(kept)
    _cover("/tmp", _scratch_options(*scratch) + ",mode=1777", SCRATCH_FLAGS, kept)
    for folder in hidden:
        if os.path.isdir(folder):  # below /tmp, it is gone already
            _mount(
                "tmpfs",
                folder,
                "tmpfs",
                MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "size=4k,nr_inodes=1,mode=0500",
            )


def private_proc(under_bubblewrap: bool) -> None:
    """A /proc of the test's own pid namespace (call it as that namespace's first process).

    Inside a user namespace the kernel only allows a new proc where an unobstructed one is
    already mounted; bubblewrap's has read-only overlays, so there the test sees no /proc at
    all (without trying first: a refused proc mount costs 0.7 ms of CPU per test).
    """
    if not under_bubblewrap:
        try:
            _mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
            return
        except ConfineError:
            pass
    _mount(
        "tmpfs",
        "/proc",
        "tmpfs",
        MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
        "size=4k,nr_inodes=1,mode=0555",
    )


def _scratch_options(size_bytes: int, files: int) -> str:
    """tmpfs options for a scratch of `size_bytes` and `files` (the kernel's minimums kept)."""
    return f"size={max(size_bytes, 4096)},nr_inodes={max(files, 16)}"


def drop_bounding_set() -> None:
    """No capability can ever be gained again (through exec), and no setuid program works.

    Without CAP_SETPCAP (an unprivileged grader, no user namespace) the bounding set stays as it
    is: with no_new_privs and no capability in any set, nothing can draw on it.
    """
    for capability in range(CAP_LAST_CAP + 1):
        if _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            error = ctypes.get_errno()
            if error == 22:
                break  # EINVAL: past the kernel's last capability
            if error == 1 and os.geteuid() != 0:
                break  # EPERM: not ours to drop (see above)
            raise ConfineError(error, f"dropping capability {capability}: {os.strerror(error)}")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


_CAP_HEADER = _CapHeader(version=LINUX_CAPABILITY_VERSION_3, pid=0)
_NO_CAPABILITIES = (_CapData * 2)()


def drop_capabilities() -> None:
    """No capability left in any set (after `drop_bounding_set`, none can come back)."""
    _check(_libc.capset(ctypes.byref(_CAP_HEADER), ctypes.byref(_NO_CAPABILITIES)), "capset")


def _capabilities_left() -> bool:
    header = _CapHeader(version=LINUX_CAPABILITY_VERSION_3, pid=0)
    data = (_CapData * 2)()
    _check(_libc.capget(ctypes.byref(header), ctypes.byref(data)), "capget")
    return any(part.effective or part.permitted or part.inheritable for part in data)


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphaned descendants become our children (and so are ours to kill and reap)."""
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "child subreaper")


def private_mounts() -> None:
    """A mount namespace of our own, whose changes reach no one else (real root only)."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare (mount)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)


def reach(paths: list[str], also_kept: list[str]) -> None:
    """Let an unprivileged test reach `paths` (the interpreter, its code, its inputs).

    An ancestor that others cannot enter (a 0700 /root holding the interpreter) is covered by an
    empty read-only tmpfs that keeps only the paths below it (and `also_kept`: the fork server's
    own I/O folder), so the rest stays out of reach.
    """
    for path in paths:
        parts = os.path.normpath(path).split("/")[1:-1]
        for depth in range(1, len(parts) + 1):
            ancestor = "/" + "/".join(parts[:depth])
            if not os.stat(ancestor).st_mode & 0o001:
                kept = [p for p in [*paths, *also_kept] if _under(p, ancestor)]
                _cover(ancestor, "size=64k,nr_inodes=256,mode=0755", MS_NOSUID | MS_NODEV, kept)
                _mount(None, ancestor, None, MS_REMOUNT_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
                break


def become(uid: int) -> None:
    """Switch every user and group id to `uid`, with no supplementary group (real root only).

    The test then owns nothing of the grader's: cgroup files, the results folder, the grader's
    processes and root's keyring are out of reach by ownership; its capabilities are gone too.
    """
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid) or os.getgroups():
        raise ConfineError(1, f"the switch to uid {uid} did not take")


PR_SET_SECCOMP = 22
PR_GET_SECCOMP = 21
SECCOMP_MODE_FILTER = 2


class _SockFilterProgram(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_prepared_filter: list[tuple[ctypes.Array[ctypes.c_char], _SockFilterProgram]] = []


def prepare_seccomp(program: bytes) -> None:
    """Build the filter's kernel structure once (in the fork server); every test forked from
    then on installs it without building it again."""
    buffer = ctypes.create_string_buffer(program, len(program))
    _prepared_filter[:] = [
        (buffer, _SockFilterProgram(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p)))
    ]
    for name in ("prctl", "capset", "capget", "unshare", "mount", "syscall"):
        getattr(_libc, name)  # resolved now, not in each test


def install_seccomp(program: bytes | None = None) -> None:
    """Install the compiled filter (grader/run/policy.py; default: the one `prepare_seccomp`
    built); needs no_new_privs or privilege."""
    if program is not None or not _prepared_filter:
        if program is None:
            raise ConfineError(1, "seccomp: no filter was prepared")
        prepare_seccomp(program)
    fprog = _prepared_filter[0][1]
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")
    if _libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != SECCOMP_MODE_FILTER:
        raise ConfineError(1, "seccomp: the filter is not in force")


def lock_down(uid: int | None, program: bytes | None = None) -> None:
    """The one sequence that takes a process's privileges for good, each test's and `launch.py`'s.

    In this order, each step checked by the kernel's answer and the whole checked again at the
    end: the bounding set emptied and no_new_privs (`drop_bounding_set`), every id switched to
    `uid` with no supplementary group (`become`; None: keep the caller's, as a grader that is not
    root), no capability in any set (`drop_capabilities`), then the seccomp filter (`program`, or
    the one `prepare_seccomp` built), which refuses what would undo any of it. A refused step
    raises `ConfineError` and the caller runs nothing.
    """
    drop_bounding_set()
    if uid is not None:
        become(uid)
    drop_capabilities()
    install_seccomp(program)
    if _libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1:
        raise ConfineError(1, "no_new_privs is not in force")
    if _capabilities_left():
        raise ConfineError(1, "capabilities are left after dropping them")
