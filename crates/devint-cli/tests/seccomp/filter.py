"""Run a program under the system-call filter devint.service asks systemd for, built with
libseccomp (the library systemd itself uses) from systemd's own lists:

- SystemCallFilter=@system-service and SystemCallFilter=~@privileged @resources: the system
  calls `systemd-analyze syscall-filter` names in @system-service (groups expanded), less
  those in @privileged and @resources, are allowed; any other answers EPERM
  (SystemCallErrorNumber=EPERM);
- RestrictAddressFamilies=AF_UNIX: socket() and socketpair() only for AF_UNIX (systemd
  answers EAFNOSUPPORT for another family, this filter EPERM: both refuse);
- SystemCallArchitectures=native: libseccomp's filter kills a call made through another
  architecture's ABI.

Prints the number of allowed system calls on stderr, then executes the program.

Usage: filter.py SYSTEMD_ANALYZE PROGRAM ARGS...
"""
import ctypes
import os
import subprocess
import sys

SCMP_ACT_ALLOW = 0x7FFF0000
EPERM = 1
SCMP_CMP_EQ = 4
AF_UNIX = 1


def scmp_act_errno(errno):
    return 0x00050000 | (errno & 0x0000FFFF)


class ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp"""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def members(analyze, group, seen):
    """The system call names in `group`, its nested groups expanded."""
    out = subprocess.run(
        [analyze, "syscall-filter", group], capture_output=True, text=True, check=True
    ).stdout
    names = set()
    for line in out.splitlines()[1:]:
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        if item.startswith("@"):
            if item not in seen:
                seen.add(item)
                names |= members(analyze, item, seen)
        else:
            names.add(item)
    return names


def main():
    analyze, program = sys.argv[1], sys.argv[2:]
    allowed = members(analyze, "@system-service", set())
    allowed -= members(analyze, "@privileged", set())
    allowed -= members(analyze, "@resources", set())

    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(ArgCmp),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]

    ctx = lib.seccomp_init(scmp_act_errno(EPERM))
    if not ctx:
        sys.exit("seccomp_init failed")
    count = 0
    for name in sorted(allowed):
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:
            continue  # not a system call of this architecture
        if name in ("socket", "socketpair"):
            unix_only = (ArgCmp * 1)(ArgCmp(0, SCMP_CMP_EQ, AF_UNIX, 0))
            rc = lib.seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 1, unix_only)
        else:
            rc = lib.seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 0, None)
        if rc < 0:
            sys.exit(f"seccomp_rule_add {name}: {os.strerror(-rc)}")
        count += 1
    rc = lib.seccomp_load(ctx)
    if rc < 0:
        sys.exit(f"seccomp_load: {os.strerror(-rc)}")
    print(f"seccomp: {count} system calls allowed", file=sys.stderr)
    os.execv(program[0], program)


main()
