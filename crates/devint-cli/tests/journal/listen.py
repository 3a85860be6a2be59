"""Stand in for journald: bind its socket (in a private mount namespace, over a tmpfs /run),
run `devint serve` with its stderr as the stream JOURNAL_STREAM names, and print the first
entry whose MESSAGE starts "no gateway URL", decoded from journald's native protocol, as
FIELD=value lines.

Usage: listen.py DEVINT STDERR_FILE
"""
import os
import socket
import subprocess
import sys


def decode(data):
    """One native-protocol datagram: each field `NAME=value` and a newline, or `NAME`, a
    newline, a 64-bit little-endian length, the value's bytes and a newline."""
    fields, at = {}, 0
    while at < len(data):
        end = data.index(b"\n", at)
        line = data[at:end]
        if b"=" in line:
            name, value = line.split(b"=", 1)
            at = end + 1
        else:
            name = line
            size = int.from_bytes(data[end + 1 : end + 9], "little")
            value = data[end + 9 : end + 9 + size]
            at = end + 9 + size + 1
        fields[name.decode()] = value.decode("utf-8", "replace")
    return fields


devint, err_path = sys.argv[1], sys.argv[2]
os.makedirs("/run/systemd/journal", exist_ok=True)
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind("/run/systemd/journal/socket")
sock.settimeout(30)
with open(err_path, "w") as err:
    st = os.fstat(err.fileno())
    env = dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}")
    child = subprocess.Popen([devint, "serve"], stdout=subprocess.DEVNULL, stderr=err, env=env)
    try:
        while True:
            fields = decode(sock.recv(1 << 16))
            if fields.get("MESSAGE", "").startswith("no gateway URL"):
                sys.stdout.write("".join(f"{k}={v}\n" for k, v in fields.items()))
                break
    finally:
        child.kill()
        child.wait()
