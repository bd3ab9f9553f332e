#!/usr/bin/env python3
"""Which GPU ISAs each kernel's amdkfd gives a compute device, read from linux-source .debs.

Usage: scripts/kfd-since.py [--cache DIR] DEB ...

Each argument is a distribution's linux-source .deb (Ubuntu's linux-source-X.Y.0, Debian's
linux-source-X.Y) named in PINS below with the SHA-256 its archive index (Packages.xz) states; a
file not pinned, or whose digest differs, is refused. Each series is read at the newest release
its archive had (stable and distribution releases add GPUs within a series). Download from
http://archive.ubuntu.com/ubuntu/<path> (Ubuntu) or
http://deb.debian.org/debian/<path> / http://security.debian.org/debian-security/<path> (Debian). From the kernel tarball inside, the script reads
drivers/gpu/drm/amd/amdkfd/kfd_device.c and lists the ISAs its KFD knows:

The chip is the fact in the table eras (a table row's `gfx_target_version` is what KFD reports,
not whether it adds the device: Ubuntu's 5.15.0-204 reports Renoir as 90002), so CHIP_X wins
there:

- kernels whose KFD looks devices up by PCI id (`supported_devices[] = { { 0x1304,
  &kaveri_device_info }, ...}`, 4.15..5.4): the `.asic_family = CHIP_X` of each
  `*_device_info` the table names;
- kernels indexed by asic_type (`kfd_supported_devices[][2] = { [CHIP_X] = {&..., ...}}`): the
  CHIP_X of each row whose bare-metal entry is not NULL;
- kernels whose `kgd2kfd_probe` sets `gfx_target_version` (switch on asic_type and on the GC IP
  version): every number assigned there (major*10000 + minor*100 + stepping, the ISA
  gfx<major><minor:x><stepping:x>, as KFD reports it in the topology's gfx_target_version).

CHIP_X names are mapped to ISAs by CHIP_ISA below (the processor names of LLVM's AMDGPU
backend, llvm/docs/AMDGPUUsage.rst "Processors" table, e.g. llvm-project llvmorg-21.1.8:
tonga/iceland -> gfx802, fiji/polaris10/polaris11/polaris12/vegam -> gfx803, ...).

Prints one line per kernel (series, package, version, SHA-256, ISAs) and then, per ISA that some
read kernel lacks, `lacks` (newest series read without it) and `has` (oldest series read with
it), as [[kfd_since]] rows grouped by (lacks, has). Re-runnable; --cache keeps the extracted
kfd_device.c per digest.
"""

import hashlib
import os
import re
import subprocess
import sys

# amd_shared.h's enum amd_asic_type names -> the ISA LLVM names for that chip
# (AMDGPUUsage.rst: gfx700 kaveri, gfx701 hawaii, gfx702 ..., gfx801 carrizo, gfx802
# iceland/tonga, gfx803 fiji/polaris10/polaris11/polaris12/vegam, gfx810 stoney, gfx900 vega10,
# gfx902 raven, gfx904 vega12, gfx906 vega20, gfx908 arcturus, gfx90a aldebaran, gfx90c
# renoir, gfx1010 navi10, gfx1011 navi12, gfx1012 navi14, gfx1030 sienna_cichlid, gfx1031
# navy_flounder, gfx1032 dimgrey_cavefish, gfx1033 vangogh, gfx1034 beige_goby, gfx1035
# yellow_carp, gfx1013 cyan_skillfish).
CHIP_ISA = {
    "KAVERI": "gfx700",
    "HAWAII": "gfx701",
    "CARRIZO": "gfx801",
    "TOPAZ": "gfx802",
    "TONGA": "gfx802",
    "FIJI": "gfx803",
    "POLARIS10": "gfx803",
    "POLARIS11": "gfx803",
    "POLARIS12": "gfx803",
    "VEGAM": "gfx803",
    "STONEY": "gfx810",
    "VEGA10": "gfx900",
    "RAVEN": "gfx902",
    "VEGA12": "gfx904",
    "VEGA20": "gfx906",
    "ARCTURUS": "gfx908",
    "ALDEBARAN": "gfx90a",
    "RENOIR": "gfx90c",
    "NAVI10": "gfx1010",
    "NAVI12": "gfx1011",
    "NAVI14": "gfx1012",
    "CYAN_SKILLFISH": "gfx1013",
    "SIENNA_CICHLID": "gfx1030",
    "NAVY_FLOUNDER": "gfx1031",
    "DIMGREY_CAVEFISH": "gfx1032",
    "VANGOGH": "gfx1033",
    "BEIGE_GOBY": "gfx1034",
    "YELLOW_CARP": "gfx1035",
}

# file name -> (archive path, SHA-256 of the archive's Packages.xz), the newest release of each
# series in Ubuntu's bionic/focal/jammy/noble-updates and Debian's bullseye-security,
# bookworm-security and the 7.2 of checks/gpu-names.toml (read 2026-11-28).
PINS = {
    "linux-source-4.15.0_4.15.0-213.224_all.deb": (
        "ubuntu pool/main/l/linux/",
        "0bde7e726c5ce9bd006d7b295e48a3032afb06611aa8fb74a6848157fd07d5f2"),
    "linux-source-5.4.0_5.4.0-216.236_all.deb": (
        "ubuntu pool/main/l/linux/",
        "b73e42f7fe1fe893d91fb5c8eec777f5b24ababfdbc718992feaf55643c4fc4d"),
    "linux-source-5.10_5.10.262-1_all.deb": (
        "debian-security pool/updates/main/l/linux/",
        "4f01148344ca9e5c1c9743ab4a084cf61c437548f803443ccc044602278b52bc"),
    "linux-source-5.15.0_5.15.0-204.214_all.deb": (
        "ubuntu pool/main/l/linux/",
        "cd087cc6e12f5bed5f2d53051d3f090ec0c579339c0a9f379bd304957cccf1d5"),
    "linux-source-5.19.0_5.19.0-50.50_all.deb": (
        "ubuntu pool/main/l/linux-hwe-5.19/",
        "db01d53128555e2463b953744a48f350f5013da7643badfbc9285d87b406704f"),
    "linux-source-6.1_6.1.192-2_all.deb": (
        "debian-security pool/updates/main/l/linux/",
        "ae95fe63d4c553f8d0e6c86cb1ab566f3894a43743eb19ab585cd97d82f26514"),
    "linux-source-6.2.0_6.2.0-39.40~22.04.1_all.deb": (
        "ubuntu pool/main/l/linux-hwe-6.2/",
        "6063ea25955af77b496794c7d3c11e5db509b436fc50afe080501781a909bb52"),
    "linux-source-6.5.0_6.5.0-45.45~22.04.1_all.deb": (
        "ubuntu pool/main/l/linux-hwe-6.5/",
        "ad18425e218551fa593ebec1e7144df3bb3290fd4e8828314fdd3cf68b490e24"),
    "linux-source-6.8.0_6.8.0-151.151_all.deb": (
        "ubuntu pool/main/l/linux/",
        "6791e1a9073551df1e2c653436171aa9a9333f569d7fc1779b1dd3829b5ce3a0"),
    "linux-source-6.12_6.12.117-1~deb12u1_all.deb": (
        "debian-security pool/updates/main/l/linux-6.12/",
        "e849faf31ca3555757f3a8877cb01af92122f744f75d1f3102734651c4e14703"),
    "linux-source-7.2_7.2.13-1_all.deb": (
        "debian pool/main/l/linux/",
        "30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d"),
}

MEMBER = "drivers/gpu/drm/amd/amdkfd/kfd_device.c"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def extract(deb, digest, cache):
    """kfd_device.c of the kernel tarball inside `deb`, as text."""
    cached = os.path.join(cache, digest + ".kfd_device.c") if cache else None
    if cached and os.path.exists(cached):
        with open(cached, encoding="utf-8", errors="replace") as f:
            return f.read()
    listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True, check=True)
    # Regular files only: Ubuntu's package also holds a symlink to its tarball.
    inner = [l.split()[-1] for l in listing.stdout.splitlines()
             if l.startswith("-") and re.search(r"/usr/src/linux-source-[^/]*(/linux-source-[^/]*)?\.tar\.(bz2|xz)$", l)]
    if len(inner) != 1:
        sys.exit(f"{deb}: no single kernel tarball inside ({inner})")
    comp = "-j" if inner[0].endswith(".bz2") else "-J"
    # tar stops at the first match (--occurrence=1), so dpkg-deb's pipe breaks: its complaint
    # is dropped.
    fsys = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    outer = subprocess.Popen(["tar", "-xO", inner[0]], stdin=fsys.stdout, stdout=subprocess.PIPE)
    fsys.stdout.close()
    text = subprocess.run(["tar", comp, "-xO", "--wildcards", "--occurrence=1", "*/" + MEMBER],
                          stdin=outer.stdout, capture_output=True, check=False).stdout
    outer.stdout.close()
    outer.wait()
    fsys.wait()
    if not text:
        sys.exit(f"{deb}: {MEMBER} not found")
    if cached:
        with open(cached, "wb") as f:
            f.write(text)
    return text.decode("utf-8", errors="replace")


def isa_of_target(n):
    major, minor, step = n // 10000, n // 100 % 100, n % 100
    return f"gfx{major}{minor:x}{step:x}"


def strip_comments(src):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", src, flags=re.S)


def function_body(src, name):
    m = re.search(r"\b" + name + r"\s*\([^)]*\)\s*\{", src)
    if not m:
        return ""
    depth, i = 1, m.end()
    while depth and i < len(src):
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        i += 1
    return src[m.end():i]


def isas(src):
    """The ISAs this kfd_device.c gives a compute device (see the module doc)."""
    src = strip_comments(src)
    found = set()
    # PCI-id tables: { 0x1304, &kaveri_device_info }
    infos = {}
    for m in re.finditer(r"kfd_device_info\s+(\w+)\s*=\s*\{(.*?)\};", src, re.S):
        fam = re.search(r"\.asic_family\s*=\s*CHIP_(\w+)", m.group(2))
        tgt = re.search(r"\.gfx_target_version\s*=\s*(\d+)", m.group(2))
        infos[m.group(1)] = (fam.group(1) if fam else None, int(tgt.group(1)) if tgt else None)
    tables = re.findall(r"supported_devices\s*\[[^\]]*\](?:\s*\[[^\]]*\])?\s*=\s*\{(.*?)\n\};",
                        src, re.S)
    for table in tables:
        for m in re.finditer(r"\{\s*0x[0-9a-fA-F]+\s*,\s*&(\w+)\s*\}", table):
            fam, tgt = infos.get(m.group(1), (None, None))
            if fam in CHIP_ISA:
                found.add(CHIP_ISA[fam])
            elif tgt:
                found.add(isa_of_target(tgt))
        # asic_type tables: [CHIP_X] = {&x_device_info, &x_vf_device_info}
        for m in re.finditer(r"\[CHIP_(\w+)\]\s*=\s*\{\s*(&\w+|NULL)", table):
            if m.group(2) == "NULL":
                continue
            if m.group(1) in CHIP_ISA:
                found.add(CHIP_ISA[m.group(1)])
            else:
                tgt = infos.get(m.group(2)[1:], (None, None))[1]
                if tgt:
                    found.add(isa_of_target(tgt))
    # kgd2kfd_probe's switches: gfx_target_version = 90402; or = a ? 90402 : 90401;
    probe = function_body(src, "kgd2kfd_probe")
    for m in re.finditer(r"gfx_target_version\s*=\s*([^;]+);", probe):
        for n in re.findall(r"\b(\d{5,6})\b", m.group(1)):
            found.add(isa_of_target(int(n)))
    return found


def series(version):
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2)))


def isa_key(isa):
    digits = isa[3:]
    return (len(digits), digits)


def known_processors():
    """The processor names of checks/isa.toml (the ISAs a text can name; rows name no other)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checks", "isa.toml")
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r'^name = "(gfx[0-9a-f]+)"', f.read(), re.M))


def main(argv):
    cache = None
    if argv[:1] == ["--cache"]:
        cache, argv = argv[1], argv[2:]
    kernels = []
    for deb in argv:
        name = os.path.basename(deb)
        if name not in PINS:
            sys.exit(f"{deb}: not pinned in PINS")
        want = PINS[name][1]
        got = sha256(deb)
        if got != want:
            sys.exit(f"{deb}: SHA-256 {got}, expected {want}")
        m = re.match(r"(linux-source-[\d.]+)_([^_]+)_all\.deb$", name)
        if not m:
            sys.exit(f"{deb}: not a linux-source package name")
        package, version = m.group(1), m.group(2)
        found = isas(extract(deb, got, cache))
        if not found:
            sys.exit(f"{deb}: no KFD device table read")
        kernels.append((series(version), package, version, got, found))
    kernels.sort()
    for s, package, version, digest, found in kernels:
        print(f"# {s[0]}.{s[1]} {package} {version} sha256:{digest}: "
              + " ".join(sorted(found, key=isa_key)))
    everything = set().union(*(k[4] for k in kernels))
    known = known_processors()
    rows = {}
    for isa in sorted(everything, key=isa_key):
        if not re.match(r"gfx(8|9|1\d)", isa):
            continue  # gfx7: ROCm dropped it long ago; the table starts at gfx8
        if isa not in known:
            print(f"# {isa}: no processor of checks/isa.toml, no row")
            continue
        having = [k for k in kernels if isa in k[4]]
        has = having[0]
        lacking = [k for k in kernels if isa not in k[4] and k[0] < has[0]]
        # A series newer than the first that has it and lacks it again: the ISA was dropped
        # (gfx940/gfx941 became gfx942); said, and the row still bounds the older series.
        dropped = [k for k in kernels if isa not in k[4] and k[0] > has[0]]
        if dropped:
            print(f"# {isa}: first in {has[2]}, not in {', '.join(k[2] for k in dropped)}")
        if not lacking:
            continue
        lacks = lacking[-1]
        rows.setdefault((lacks[0], has[0]), (lacks, has, []))[2].append(isa)
    for (_, _), (lacks, has, group) in sorted(rows.items()):
        print("\n[[kfd_since]]")
        print("isas = [" + ", ".join(f'"{i}"' for i in group) + "]")
        print(f'lacks = "{lacks[0][0]}.{lacks[0][1]}"')
        print(f'has = "{has[0][0]}.{has[0][1]}"')
        print(f"# lacks: {lacks[1]} {lacks[2]} sha256:{lacks[3]}")
        print(f"# has: {has[1]} {has[2]} sha256:{has[3]}")


if __name__ == "__main__":
    main(sys.argv[1:])
