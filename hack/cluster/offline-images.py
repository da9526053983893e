#!/usr/bin/env python3
"""Builds the real node's container images without a registry: one docker-archive tar (the
format `ctr images import` reads) holding two images over a single layer made from Debian's
busybox-static (/bin/busybox and a link per applet):

  docker.io/library/busybox:1.36   what check scripts and test Jobs run in (entrypoint sh)
  waitgate.local/pause:1.36        the pod sandbox ("pause") container: sleeps until SIGTERM

The tar is deterministic (fixed times and owners), so a rebuild gives the same image ids.

  offline-images.py BUSYBOX_BINARY OUT.tar
"""
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

BUSYBOX_TAG = "docker.io/library/busybox:1.36"
PAUSE_TAG = "waitgate.local/pause:1.36"
PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The sandbox's process: PID 1 of the pod, ends at once on SIGTERM (a plain `sleep` as PID 1
# would ignore it and wait for SIGKILL).
PAUSE_SCRIPT = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"


def add(tar, name, kind=tarfile.DIRTYPE, mode=0o755, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    if kind == tarfile.SYMTYPE:
        info.linkname = link
    if kind == tarfile.REGTYPE:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    else:
        tar.addfile(info)


def layer(busybox):
    applets = subprocess.run([busybox, "--list-full"], check=True, capture_output=True, text=True).stdout.split()
    with open(busybox, "rb") as f:
        binary = f.read()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for d in ["bin", "dev", "etc", "home", "proc", "root", "run", "sbin", "sys", "usr", "usr/bin", "usr/sbin", "var"]:
            add(tar, d, mode=0o700 if d == "root" else 0o755)
        add(tar, "tmp", mode=0o1777)
        add(tar, "bin/busybox", tarfile.REGTYPE, 0o755, binary)
        passwd = b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\nnonroot:x:65532:65532:nonroot:/home:/bin/false\n"
        group = b"root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"
        add(tar, "etc/passwd", tarfile.REGTYPE, 0o644, passwd)
        add(tar, "etc/group", tarfile.REGTYPE, 0o644, group)
        for path in sorted(set(applets)):
            if path == "bin/busybox":
                continue
            depth = path.count("/")
            add(tar, path, tarfile.SYMTYPE, 0o777, link="../" * depth + "bin/busybox")
    return buf.getvalue()


def config(diff_id, entrypoint, cmd):
    return json.dumps(
        {
            "architecture": {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine),
            "os": "linux",
            "created": "1970-01-01T00:00:00Z",
            "config": {"Env": [PATH_ENV], "Entrypoint": entrypoint, "Cmd": cmd, "WorkingDir": "/"},
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
            "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "waitgate hack/cluster/offline-images.py"}],
        },
        sort_keys=True,
    ).encode()


def main():
    busybox, out = sys.argv[1], sys.argv[2]
    data = layer(busybox)
    digest = hashlib.sha256(data).hexdigest()
    layer_path = f"{digest}/layer.tar"
    images = [
        (BUSYBOX_TAG, config(f"sha256:{digest}", None, ["sh"])),
        (PAUSE_TAG, config(f"sha256:{digest}", ["/bin/sh", "-c", PAUSE_SCRIPT], None)),
    ]
    manifest = []
    tmp = f"{out}.{os.getpid()}.tmp"  # two clusters starting at once may both build it
    with tarfile.open(tmp, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        add(tar, digest)
        add(tar, layer_path, tarfile.REGTYPE, 0o644, data)
        for tag, cfg in images:
            name = hashlib.sha256(cfg).hexdigest() + ".json"
            add(tar, name, tarfile.REGTYPE, 0o644, cfg)
            manifest.append({"Config": name, "RepoTags": [tag], "Layers": [layer_path]})
        add(tar, "manifest.json", tarfile.REGTYPE, 0o644, json.dumps(manifest).encode())
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
