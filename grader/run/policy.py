"""The system calls a test may not make, and the seccomp filter that refuses them.

The parent builds the filter once with libseccomp (through pyseccomp) and hands the fork server
the compiled program; each test installs it (`box/confine.install_seccomp`) before its request's
code runs. The list follows Docker's default profile and nsjail's policies, narrowed to what a Python
exercise never needs; docs/isolation.md gives the same list. Refused calls fail with EPERM (clone3
with ENOSYS, so that the C library falls back to clone, whose flags the filter can see); a call
from another architecture's table (32-bit `int 0x80`) kills the test.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import socket
import tempfile
from dataclasses import dataclass
from typing import Any

# Each refused call and why, one line each.
REFUSED: dict[str, str] = {
    "unshare": "new namespaces would give the test capabilities over things it creates",
    "setns": "joining another namespace",
    "mount": "mounting (a cgroup hierarchy, a proc) to rewrite what the parent measures",
    "umount2": "uncovering what the boundary hid",
    "pivot_root": "changing the root of the mount tree",
    "chroot": "changing the root folder",
    "open_tree": "cloning mounts (the new mount API)",
    "move_mount": "moving mounts (the new mount API)",
    "fsopen": "creating file system contexts (the new mount API)",
    "fsmount": "mounting file system contexts (the new mount API)",
    "fsconfig": "configuring file system contexts (the new mount API)",
    "fspick": "reconfiguring mounted file systems (the new mount API)",
    "mount_setattr": "changing mount flags (read-only, nosuid)",
    "keyctl": "the kernel keyring outlives the test: state across tests and students",
    "add_key": "the kernel keyring outlives the test",
    "request_key": "the kernel keyring outlives the test",
    "ptrace": "tracing or changing another process",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "pidfd_getfd": "taking another process's descriptors",
    "kcmp": "probing other processes' kernel objects",
    "bpf": "loading programs into the kernel",
    "perf_event_open": "performance counters observe other processes and the kernel",
    "userfaultfd": "stalling the kernel on page faults (a known exploitation aid)",
    "io_uring_setup": "io_uring bypasses system call filtering",
    "io_uring_enter": "io_uring bypasses system call filtering",
    "io_uring_register": "io_uring bypasses system call filtering",
    "fanotify_init": "watching file accesses system-wide",
    "name_to_handle_at": "file handles bypass path permissions",
    "open_by_handle_at": "file handles bypass path permissions (the 'shocker' escape)",
    "init_module": "loading kernel modules",
    "finit_module": "loading kernel modules",
    "delete_module": "unloading kernel modules",
    "kexec_load": "replacing the kernel",
    "kexec_file_load": "replacing the kernel",
    "reboot": "rebooting",
    "swapon": "changing swap",
    "swapoff": "changing swap",
    "acct": "process accounting",
    "quotactl": "disk quotas",
    "syslog": "reading the kernel log",
    "settimeofday": "setting the clock",
    "clock_settime": "setting the clock",
    "clock_adjtime": "adjusting the clock",
    "adjtimex": "adjusting the clock",
    "sethostname": "renaming the host",
    "setdomainname": "renaming the domain",
    "iopl": "raw port I/O",
    "ioperm": "raw port I/O",
    "personality": "switching execution domains (disables address randomisation)",
    "uselib": "loading an old-style library",
    "lookup_dcookie": "profiling internals",
    "vhangup": "hanging up terminals",
    "flock": "a lock on a file every sandbox shares read-only is a channel between students",
    "shmget": "System V shared memory outlives the test where there is no IPC namespace (container)",
    "msgget": "System V message queues outlive the test where there is no IPC namespace",
    "semget": "System V semaphores outlive the test where there is no IPC namespace",
    "mq_open": "POSIX message queues outlive the test where there is no IPC namespace",
}
# Calls refused for some arguments only: (call, argument index, comparison, why).
CLONE_NAMESPACE_FLAGS = (
    0x00020000,
    0x02000000,
    0x04000000,
    0x08000000,
    0x10000000,
    0x20000000,
    0x40000000,
    0x00000080,
)  # NEWNS CGROUP UTS IPC USER PID NET TIME
FCNTL_LOCKS = {"F_SETLK": 6, "F_SETLKW": 7, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}
REFUSED_CLONE = "clone with a namespace flag: new namespaces, as unshare"
REFUSED_CLONE3 = "clone3 passes its flags in memory the filter cannot read (ENOSYS: libc uses clone)"
REFUSED_SOCKET = "sockets other than Unix ones: no network, no netlink, no raw packets"
REFUSED_FCNTL = "fcntl locks: a lock on a shared file is a channel between students"
# Disk a test writes must be counted: its written pages are charged to its memory cgroup and any
# one file is capped by RLIMIT_FSIZE. Reserved blocks and direct I/O are neither.
REFUSED_FALLOCATE = (
    "blocks reserved without a page written are not charged to the test "
    "(glibc's posix_fallocate then writes them: counted)"
)
REFUSED_DIRECT = (
    "writes that bypass the page cache are not charged to the test (EINVAL, as a "
    "file system without direct I/O answers)"
)
REFUSED_OPENAT2 = "openat2 passes its flags in memory the filter cannot read (ENOSYS: libc uses openat)"
F_SETFL = 4


class PolicyUnavailable(RuntimeError):
    """libseccomp cannot build the filter here (missing library, unknown architecture)."""


@dataclass(frozen=True)
class Policy:
    """The compiled filter: a BPF program for this machine's architecture."""

    program: bytes
    refused: tuple[str, ...]  # the calls this machine's table knows, refused


def _seccomp() -> Any:
    try:
        import pyseccomp  # type: ignore[import-untyped]
    except (ImportError, OSError, AttributeError) as error:
        raise PolicyUnavailable(
            f"libseccomp cannot be loaded ({error}); install it (apt-get install libseccomp2)"
        ) from error
    return pyseccomp


@functools.cache
def compiled() -> Policy:
    """The filter every test installs; PolicyUnavailable says why it cannot be built."""
    seccomp = _seccomp()
    try:
        return _build(seccomp)
    except (OSError, ValueError, AttributeError) as error:
        raise PolicyUnavailable(f"libseccomp could not build the test's filter: {error}") from error


def _build(seccomp: Any) -> Policy:
    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    known: list[str] = []
    for call in REFUSED:
        try:
            rules.add_rule(refuse, call)
        except (OSError, ValueError):
            continue  # not in this architecture's table: nothing to refuse
        known.append(call)
    for flag in CLONE_NAMESPACE_FLAGS:
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(refuse, "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    rules.add_rule(refuse, "socketpair", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    for command in FCNTL_LOCKS.values():
        rules.add_rule(refuse, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    _refuse_uncounted_disk(seccomp, rules)
    known += [
        "clone (namespace flags)",
        "clone3",
        "socket (not AF_UNIX)",
        "fcntl (locks)",
        "fallocate",
        "O_DIRECT (open, openat, fcntl)",
        "openat2",
    ]
    with tempfile.TemporaryFile() as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        program = sink.read()
    if not program or len(program) % 8:
        raise PolicyUnavailable("libseccomp exported an empty or malformed filter")
    return Policy(program=program, refused=tuple(known))


def _refuse_uncounted_disk(seccomp: Any, rules: Any) -> None:
    """No disk written past the test's counting: fallocate, O_DIRECT (REFUSED_FALLOCATE, ...)."""
    rules.add_rule(seccomp.ERRNO(errno.EOPNOTSUPP), "fallocate")
    direct = seccomp.ERRNO(errno.EINVAL)
    flag = os.O_DIRECT
    with contextlib.suppress(OSError, ValueError):  # open: not in every architecture's table
        rules.add_rule(direct, "open", seccomp.Arg(1, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(direct, "openat", seccomp.Arg(2, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(
        direct, "fcntl", seccomp.Arg(1, seccomp.EQ, F_SETFL), seccomp.Arg(2, seccomp.MASKED_EQ, flag, flag)
    )
    with contextlib.suppress(OSError, ValueError):
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "openat2")
