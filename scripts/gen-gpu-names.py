#!/usr/bin/env python3
"""Generates checks/gpu-names.toml: AMD GPUs by PCI device id, with marketing names and `gfx` ISA.

One row per PCI device id of vendor 0x1002 that amdgpu drives and whose ISA a source states (and
one row per revision where libdrm names a revision differently), with its marketing names, the
chip's codename and the ISA, each row naming where each of them came from. `rocm-doctor why`
reads it (src/packs/gpunames.rs) to turn a product name or a PCI id in a text into an ISA fact.
Beside them: the ISAs the kernel's KFD gives a gfx_target_version (`kfd_isas`; those it takes
only with the amdgpu.exp_hw_support module option, `kfd_experimental`), and the chip
names the kernel prints with the ISA of each (`[[asic]]`, src/packs/asicnames.rs), by the same
rules (1) and (2) below; a chip neither reaches is left out; and the GC IP versions KFD maps to a
gfx_target_version (`[[kfd_gc]]`, src/packs/gcversions.rs: older kernels refuse a GPU found by
IP discovery as `GC IP %06x %s not supported in kfd`).

Inputs (all pinned; PINS below gives each file's SHA-256, the run refuses another):
- libdrm's `amdgpu.ids` (device id, revision, marketing name) from Debian's libdrm-common;
- `pci.ids` (device id -> "Codename [marketing names]") from Debian's pci.ids package;
- the Linux kernel's amdgpu driver from Debian's linux-source .deb: `amdgpu_drv.c` `pciidlist`
  (device id -> CHIP_*), `amdgpu_discovery.c` (the GC IP version of the chips before IP
  discovery tables), `kfd_device.c` (`kgd2kfd_probe`: CHIP_* or GC IP version ->
  gfx_target_version; its case comments name the chip of each GC version), `amdgpu_device.c`
  (`amdgpu_asic_name[]`, the chip names amdgpu and KFD print: "initializing kernel modesetting
  (POLARIS10 ...", "PITCAIRN  not supported in kfd") and `include/drm/amd_asic_type.h` (`enum
  amd_asic_type`, whose order the names follow);
- LLVM's `llvm/docs/AMDGPUUsage.rst` processor table (alternative processor names such as
  `tahiti`, and the "Example Products" column) from Debian's llvm-toolchain-21 orig tarball;
- TheRock's target list (`cmake/therock_amdgpu_targets.cmake`, the product name of each target),
  transcribed below at its pinned commit (THEROCK).

How an id gets its ISA, in order: (1) the kernel lists it in `pciidlist` and KFD gives its CHIP
a gfx_target_version; (2) else LLVM names its CHIP as an alternative processor name; (3) else (a
chip amdgpu finds by IP discovery) a product name libdrm or pci.ids gives the id is an example
product of one ISA in LLVM's table or TheRock's list; (4) else its pci.ids codename is one whose
other ids got exactly one ISA by (3), or a codename TheRock names. An id none of these reaches
is left out (the run prints how many). Names are read as users write them by the doctor, not
here: the table keeps them verbatim.

Getting the inputs (Debian sid; each file's SHA-256 is in PINS):
  apt-get download libdrm-common=2.4.134-3 pci.ids=0.0~2026.10.24-1   # then dpkg-deb -x each
  curl -O http://deb.debian.org/debian/pool/main/l/linux/linux-source-7.2_7.2.13-1_all.deb
  curl -O http://deb.debian.org/debian/pool/main/l/llvm-toolchain-21/llvm-toolchain-21_21.1.8.orig.tar.xz
(the last two are the inputs scripts/harvest-origins.py pins as KERNEL_NEWEST and DEBIAN_SRC).

Usage:
  scripts/gen-gpu-names.py --amdgpu-ids FILE --pci-ids FILE --kernel-deb DEB --llvm-tar TAR [--check]
(--check compares with checks/gpu-names.toml instead of writing it.)
"""

import argparse
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile

PINS = {
    "amdgpu.ids": {
        "what": "libdrm's data/amdgpu.ids, Debian libdrm-common 2.4.134-3 (/usr/share/libdrm/amdgpu.ids)",
        "sha256": "ffd2a8f1bfa755f4d90f537b4969fc4676f116e5af051ce2f18ef93a96d8beb6",
    },
    "pci.ids": {
        "what": "pci.ids 2026.10.24, Debian pci.ids 0.0~2026.10.24-1 (/usr/share/misc/pci.ids)",
        "sha256": "c536d82778aaafb7344204239a806fb89d13138467aae4c3d22125fe02d482a0",
    },
    "kernel": {
        "what": "Linux 7.2.13, Debian linux-source-7.2 7.2.13-1 (drivers/gpu/drm/amd: "
        "amdgpu/amdgpu_drv.c, amdgpu/amdgpu_discovery.c, amdgpu/amdgpu_device.c, "
        "amdkfd/kfd_device.c; include/drm/amd_asic_type.h)",
        "sha256": "30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d",
    },
    "llvm": {
        "what": "LLVM 21.1.8 llvm/docs/AMDGPUUsage.rst (processor table), Debian "
        "llvm-toolchain-21_21.1.8.orig.tar.xz",
        "sha256": "d983d6b6ffce1d413a1910a9fd00f794bb99a5ae4c4e7d23d18a99254640f4eb",
    },
    "therock": {
        "what": "ROCm/TheRock cmake/therock_amdgpu_targets.cmake at "
        "02eb4a57fdf5a19809c807e51fcd6945b432ddc1 (therock_add_amdgpu_target product names)",
        "sha256": "",
    },
}

# TheRock's `therock_add_amdgpu_target(gfx "product name" ...)` lines at the commit of
# PINS["therock"], transcribed (target, product name), in the file's order.
THEROCK = [
    ("gfx906", "Radeon VII / MI50 CDNA"),
    ("gfx908", "MI100 CDNA"),
    ("gfx90a", "MI210/250 CDNA"),
    ("gfx942", "MI300A/MI300X CDNA"),
    ("gfx950", "MI350X/MI355X CDNA"),
    ("gfx1010", "AMD RX 5700"),
    ("gfx1011", "AMD Radeon Pro V520"),
    ("gfx1012", "AMD RX 5500"),
    ("gfx1030", "AMD RX 6800 / XT"),
    ("gfx1032", "AMD RX 6600"),
    ("gfx1035", "AMD Radeon 680M Laptop iGPU"),
    ("gfx1036", "AMD Raphael iGPU"),
    ("gfx1100", "AMD RX 7900 XTX"),
    ("gfx1101", "AMD RX 7800 XT"),
    ("gfx1102", "AMD RX 7700S/Framework Laptop 16"),
    ("gfx1103", "AMD Radeon 780M Laptop iGPU"),
    ("gfx1150", "AMD Strix Point iGPU"),
    ("gfx1151", "AMD Strix Halo iGPU"),
    ("gfx1152", "AMD Krackan 1 iGPU"),
    ("gfx1153", "AMD Radeon 820M iGPU"),
    ("gfx1200", "AMD RX 9060 / XT"),
    ("gfx1201", "AMD RX 9070 / XT"),
]

# Codenames TheRock writes for a chip that pci.ids writes otherwise: pci.ids calls Strix Point
# "Strix" (beside "Strix Halo") and Krackan Point 1 "Krackan" (beside "Krackan2").
CODENAME_ALIASES = {"Strix Point": "Strix", "Krackan 1": "Krackan"}

# Words a product name carries that say nothing about which product it is (must match
# src/packs/gpunames.rs `FILLER`).
FILLER = {"amd", "ati", "radeon", "graphics", "series", "gpu", "igpu", "laptop", "accelerator",
          "cdna", "(tm)", "(r)", "tm"}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def pinned(path, pin):
    if sha256(path) != PINS[pin]["sha256"]:
        sys.exit(f"gen-gpu-names: {path} is not {PINS[pin]['what']} (SHA-256 differs)")


def is_model(word):
    """A model number: a word with two digits, or a digit and three characters (`6800`, `mi50`,
    `680m`); `r9` and `r7` are series."""
    digits = sum(c.isdigit() for c in word)
    return digits >= 2 or (digits == 1 and len(word) >= 3)


def key(name):
    """The product a name says, as the doctor compares names (src/packs/gpunames.rs `key`):
    (series word, model and suffix), or None for a name without a model number. A `/` ends the
    name (libdrm writes a few names as two products)."""
    n = name.lower().replace("™", " ").replace("®", " ").replace("(tm)", " ").replace("(r)", " ")
    toks = [t for t in re.split(r"[\s,]+", n) if t and t not in FILLER]
    toks = toks[:toks.index("/")] if "/" in toks else toks
    at = next((i for i, t in enumerate(toks) if is_model(t)), None)
    if at is None:
        return None
    series = toks[at - 1] if at > 0 else ""
    return series, "".join(toks[at:])


def expand(listing):
    """`Radeon RX 7900 XT/7900 XTX / PRO W7900` -> each product written in full: a part that
    starts with a digit takes the words before the first part's model; a part without a digit
    (`XT` in `RX 6800 / XT`) is a suffix of the part before it."""
    out, lead = [], ""
    for part in [p.strip() for p in listing.split("/")]:
        if not part:
            continue
        if part[0].isdigit():
            part = lead + part
        elif not any(c.isdigit() for c in part) and out and len(part) <= 3:
            part = out[-1] + " " + part
        m = re.match(r"^(.*?)(\S*\d)", part)
        if m and not part[0].isdigit():
            lead = m.group(1)
        out.append(part)
    return out


def read_amdgpu_ids(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#") or "," not in line:
            continue
        dev, rev, name = [x.strip() for x in line.split(",", 2)]
        rows.append((dev.lower(), rev.lower(), name))
    return rows


def read_pci_ids(path):
    """{device id: (codename, [names])} of vendor 1002."""
    out, inside = {}, False
    for line in open(path, encoding="utf-8", errors="replace"):
        if re.match(r"^[0-9a-f]{4}\s", line):
            inside = line.startswith("1002 ")
            continue
        m = re.match(r"^\t([0-9a-f]{4})\s+(.*)$", line.rstrip("\n")) if inside else None
        if m:
            text = m.group(2)
            b = re.match(r"^(.*?)\s*\[(.*)\]\s*$", text)
            code, names = (b.group(1), expand(b.group(2))) if b else (text, [])
            out[m.group(1)] = (code.strip(), names)
    return out


def kernel_files(deb):
    want = {
        "amdgpu_drv.c": "drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c",
        "amdgpu_discovery.c": "drivers/gpu/drm/amd/amdgpu/amdgpu_discovery.c",
        "kfd_device.c": "drivers/gpu/drm/amd/amdkfd/kfd_device.c",
        "amdgpu_device.c": "drivers/gpu/drm/amd/amdgpu/amdgpu_device.c",
        "amd_asic_type.h": "include/drm/amd_asic_type.h",
    }
    outer = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True, capture_output=True,
                           timeout=600).stdout
    with tarfile.open(fileobj=io.BytesIO(outer)) as t:
        m = next(x for x in t.getmembers() if x.isfile() and x.name.endswith(".tar.xz"))
        inner = t.extractfile(m).read()
    res = {}
    with tarfile.open(fileobj=io.BytesIO(inner), mode="r:*") as t:
        for x in t:
            rel = x.name.split("/", 1)[1] if "/" in x.name else x.name
            for k, p in want.items():
                if rel == p:
                    res[k] = t.extractfile(x).read().decode("utf-8", "replace")
    missing = set(want) - set(res)
    if missing:
        sys.exit(f"gen-gpu-names: {deb} lacks {sorted(missing)}")
    return res


def gfx_name(v):
    return f"gfx{v // 10000}{(v // 100) % 100:x}{v % 100:x}"


def asic_names(k):
    """[(printed name, CHIP_*)]: `amdgpu_asic_name[]` beside `enum amd_asic_type`, in order (the
    array is indexed by the enum); the run stops if the two differ in length."""
    dev = k["amdgpu_device.c"]
    body = dev[dev.index("const char *amdgpu_asic_name[] = {"):]
    body = body[body.index("{") + 1:body.index("};")]
    names = re.findall(r'"([^"]+)"', body)
    h = k["amd_asic_type.h"]
    enum = h[h.index("enum amd_asic_type {"):]
    enum = re.sub(r"/\*.*?\*/", "", enum[:enum.index("};")], flags=re.S)
    chips = re.findall(r"\b(CHIP_\w+)", enum)
    if len(names) != len(chips):
        sys.exit(f"gen-gpu-names: amdgpu_asic_name has {len(names)} names, amd_asic_type {len(chips)}")
    return list(zip(names, chips))


def kernel_isas(k):
    """({device id: CHIP}, {CHIP: (gfx, how)}, [ISA KFD gives a gfx_target_version], {GC IP
    version: gfx_target_version}) from the kernel; the CHIPs are those of `pciidlist` and of
    `enum amd_asic_type`."""
    drv = k["amdgpu_drv.c"]
    table = drv[drv.index("static const struct pci_device_id pciidlist[]"):]
    ids = {}
    for m in re.finditer(r"\{0x1002,\s*0x([0-9A-Fa-f]{4}),\s*PCI_ANY_ID,\s*PCI_ANY_ID,\s*0,\s*0,"
                         r"\s*(CHIP_\w+)", table):
        ids.setdefault(m.group(1).lower(), m.group(2))
    kfd = k["kfd_device.c"]
    probe = kfd[kfd.index("struct kfd_dev *kgd2kfd_probe("):]
    probe = probe[:probe.index("\n}\n")]
    by_chip, by_gc, labels = {}, {}, []
    # The cases that take the GPU only with the amdgpu.exp_hw_support module option (Hawaii:
    # "KFD support on Hawaii is experimental"): the labels whose version was set last, until
    # their `break`.
    group, experimental = [], set()
    for line in probe.splitlines():
        c = re.search(r"case (CHIP_\w+):", line)
        g = re.search(r"case IP_VERSION\((\d+), (\d+), (\d+)\):", line)
        v = re.search(r"gfx_target_version = (\d+);", line)
        if c:
            labels.append(("chip", c.group(1)))
        elif g:
            labels.append(("gc", tuple(int(x) for x in g.groups())))
        elif v:
            for kind, lab in labels:
                (by_chip if kind == "chip" else by_gc).setdefault(lab, int(v.group(1)))
            group = [(lab, int(v.group(1))) for _, lab in labels]
            labels = []
        elif re.search(r"\bbreak;", line):
            labels, group = [], []
        if "amdgpu_exp_hw_support" in line:
            experimental |= {gfx_name(ver) for _, ver in group}
    # The GC version of each chip: the case comments of kfd_device.c, and the versions
    # amdgpu_discovery.c sets for the chips without a discovery table.
    gc_of = {}
    for m in re.finditer(r"case IP_VERSION\((\d+), (\d+), (\d+)\):\s*/\*\s*([A-Z][A-Z0-9_]+)\s*\*/", kfd):
        if int(m.group(1)) >= 9:
            gc_of.setdefault("CHIP_" + m.group(4), set()).add(tuple(int(x) for x in m.groups()[:3]))
    disc = k["amdgpu_discovery.c"]
    parts = re.split(r"\n\tcase (CHIP_\w+):", disc)
    for chip, body in zip(parts[1::2], parts[2::2]):
        for m in re.finditer(r"ip_versions\[GC_HWIP\]\[0\] = IP_VERSION\((\d+), (\d+), (\d+)\)", body):
            gc_of.setdefault(chip, set()).add(tuple(int(x) for x in m.groups()))
    chips = {}
    for chip in sorted(set(ids.values()) | {c for _, c in asic_names(k)}):
        if chip in by_chip:
            chips[chip] = (gfx_name(by_chip[chip]), f"kfd_device.c: {chip} -> {by_chip[chip]}")
            continue
        vs = {by_gc[g] for g in gc_of.get(chip, ()) if g in by_gc}
        if len(vs) == 1:
            v = vs.pop()
            gcs = ", ".join("GC %d.%d.%d" % g for g in sorted(gc_of[chip]))
            chips[chip] = (gfx_name(v), f"kfd_device.c: {chip} = {gcs} -> {v}")
    kfd_isas = sorted({gfx_name(v) for v in list(by_chip.values()) + list(by_gc.values())})
    return ids, chips, kfd_isas, by_gc, sorted(experimental)


def llvm_table(tar):
    """({alternative processor name: gfx}, {product key: {gfx}}) of AMDGPUUsage's table."""
    with tarfile.open(tar, mode="r:*") as t:
        m = next(x for x in t if x.name.endswith("llvm/docs/AMDGPUUsage.rst"))
        text = t.extractfile(m).read().decode("utf-8")
    lines = text[text.index(":name: amdgpu-processor-table"):].splitlines()
    seps = [i for i, l in enumerate(lines) if re.match(r"^\s+=+( =+)+\s*$", l)]
    cols = [m.start() for m in re.finditer(r"=+", lines[seps[0]])]
    body = lines[seps[1] + 1:seps[2]]
    alt, products, gfx, last = {}, {}, None, None
    for l in body:
        head = l[cols[0]:cols[1]].strip()
        m = re.match(r"^``(gfx[0-9a-f]+)``$", head)
        if m:
            gfx, last = m.group(1), None
        elif head:
            gfx = None
        if gfx is None:
            continue
        a = re.match(r"^- ``(\w+)``$", l[cols[1]:cols[2]].strip())
        if a:
            alt[a.group(1)] = gfx
        ex = l[cols[-1]:].strip()
        if ex.startswith("- "):
            last = ex[2:]
            products.setdefault(gfx, []).append(last)
        elif ex and last is not None and not ex.startswith(("*", ".")):
            products[gfx][-1] += " " + ex
    return alt, products


def product_isas(llvm_products):
    """{model and suffix of a key: {gfx: [source]}} of the example products of LLVM and TheRock."""
    out = {}
    for gfx, names in llvm_products.items():
        for n in names:
            k = key(n)
            if k:
                out.setdefault(k[1], {}).setdefault(gfx, []).append(f"LLVM AMDGPUUsage: {n}")
    for gfx, n in THEROCK:
        for part in expand(n):
            k = key(part)
            if k:
                out.setdefault(k[1], {}).setdefault(gfx, []).append(f"TheRock: {n}")
    return out


def build(args):
    pinned(args.amdgpu_ids, "amdgpu.ids")
    pinned(args.pci_ids, "pci.ids")
    pinned(args.kernel_deb, "kernel")
    pinned(args.llvm_tar, "llvm")
    drm = read_amdgpu_ids(args.amdgpu_ids)
    pci = read_pci_ids(args.pci_ids)
    kfiles = kernel_files(args.kernel_deb)
    kid, kchip, kfd_isas, by_gc, kfd_experimental = kernel_isas(kfiles)
    alt, llvm_products = llvm_table(args.llvm_tar)
    # The chip names the kernel prints, by rules (1) and (2); `IP DISCOVERY` and `LAST` name no
    # chip (the ids do), and a chip neither rule reaches is left out.
    asics, asics_left = [], []
    for name, chip in asic_names(kfiles):
        if chip in ("CHIP_IP_DISCOVERY", "CHIP_LAST"):
            continue
        if chip in kchip:
            asics.append({"name": name, "isa": kchip[chip][0], "isa_from": f"amdgpu_device.c amdgpu_asic_name {name} = {chip}; {kchip[chip][1]}"})
        elif chip[5:].lower() in alt:
            asics.append({"name": name, "isa": alt[chip[5:].lower()], "isa_from": f"amdgpu_device.c amdgpu_asic_name {name} = {chip}; LLVM AMDGPUUsage alternative processor {chip[5:].lower()}"})
        else:
            asics_left.append(name)
    prod = product_isas(llvm_products)
    drm_by_id = {}
    for dev, rev, name in drm:
        drm_by_id.setdefault(dev, []).append((rev, name))
    all_ids = sorted(set(drm_by_id) | set(kid) | {i for i, (c, n) in pci.items() if n or i in kid})
    isa, how = {}, {}
    for i in all_ids:
        chip = kid.get(i)
        if chip in kchip:
            isa[i], how[i] = kchip[chip][0], f"kernel: amdgpu_drv.c pciidlist {chip}; {kchip[chip][1]}"
        elif chip and chip[5:].lower() in alt:
            isa[i], how[i] = alt[chip[5:].lower()], f"kernel: amdgpu_drv.c pciidlist {chip}; LLVM AMDGPUUsage alternative processor {chip[5:].lower()}"
    # (3) product names of ids amdgpu finds by IP discovery: ids the kernel does not list that
    # libdrm names, or that share a pci.ids chip with one (not the chip's other functions).
    not_gpu = re.compile(r"Audio|USB|Bridge|Controller|\bPort\b|Switch")
    disc_chips = {pci[i][0] for i in drm_by_id if i not in kid and i in pci}
    discovered = {i for i in all_ids if i not in kid and (i in drm_by_id or (
        i in pci and pci[i][0] in disc_chips)) and not not_gpu.search(pci.get(i, ("", []))[0])}
    direct = {}
    for i in all_ids:
        if i in isa or i not in discovered:
            continue
        names = [n for _, n in drm_by_id.get(i, [])] + pci.get(i, ("", []))[1]
        found = {}
        for n in names:
            k = key(n)
            for g, srcs in prod.get(k and k[1], {}).items():
                found.setdefault(g, set()).update(srcs)
        if len(found) == 1:
            g, srcs = found.popitem()
            direct[i] = (g, sorted(srcs)[0])
    codename = {}
    for i, (g, _) in direct.items():
        c = pci.get(i, ("", []))[0]
        if c:
            codename.setdefault(c, set()).add(g)
    for g, n in THEROCK:
        m = re.match(r"^AMD (.+) iGPU$", n)
        if m and not any(ch.isdigit() for ch in m.group(1).split()[0]) and not m.group(1).startswith("Radeon"):
            c = CODENAME_ALIASES.get(m.group(1), m.group(1))
            codename.setdefault(c, set()).add(g)
    for i in all_ids:
        if i in isa or i not in discovered:
            continue
        if i in direct:
            isa[i], how[i] = direct[i][0], f"IP discovery; product {direct[i][1]}"
            continue
        c = pci.get(i, ("", []))[0]
        if c and len(codename.get(c, ())) == 1:
            g = next(iter(codename[c]))
            isa[i], how[i] = g, f"IP discovery; pci.ids chip {c} = {g} (its other ids' products, or TheRock)"
    rows, left = [], []
    for i in all_ids:
        if i not in isa:
            # amdgpu drives it (the kernel lists it, or libdrm names it) but no source says its ISA
            if i in kid or i in drm_by_id:
                left.append(i)
            continue
        code, pci_names = pci.get(i, ("", []))
        revs = drm_by_id.get(i, [])
        distinct = sorted({n for _, n in revs})
        base = {"id": i, "isa": isa[i], "chip": code, "isa_from": how[i]}
        if len(distinct) <= 1:
            names = distinct + [n for n in pci_names if n not in distinct]
            src = (["amdgpu.ids"] if distinct else []) + (["pci.ids"] if pci_names else [])
            rows.append(dict(base, rev="", names=names, names_from=src))
        else:
            if pci_names:
                rows.append(dict(base, rev="", names=pci_names, names_from=["pci.ids"]))
            for rev, n in sorted(revs):
                rows.append(dict(base, rev=rev, names=[n], names_from=["amdgpu.ids"]))
    # The GC IP versions kgd2kfd_probe maps to a gfx_target_version, in version order.
    gcs = [{"gc": "%d.%d.%d" % g, "isa": gfx_name(v),
            "isa_from": "kfd_device.c kgd2kfd_probe: IP_VERSION(%d, %d, %d) -> %d" % (g + (v,))}
           for g, v in sorted(by_gc.items())]
    return rows, left, (kfd_isas, asics, asics_left, gcs, kfd_experimental)


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(rows, left, kernel):
    kfd_isas, asics, asics_left, gcs, kfd_experimental = kernel
    out = [
        "# GENERATED by scripts/gen-gpu-names.py from the pinned inputs below; do not edit.",
        "# AMD GPUs (PCI vendor 0x1002) amdgpu drives, by device id (and revision where libdrm",
        "# names revisions differently): marketing names, chip codename, `gfx` ISA, and where each",
        "# came from. Loaded by src/packs/gpunames.rs (src/data.rs).",
        f"# {len(left)} ids with a name but no source stating their ISA are left out.",
        "",
        "# The ISAs the kernel's KFD gives a gfx_target_version (kfd_device.c kgd2kfd_probe): the",
        "# GPUs a kernel's KFD can know at all.",
        "kfd_isas = [" + ", ".join(q(i) for i in kfd_isas) + "]",
        "# Of them, those KFD takes only with the amdgpu.exp_hw_support module option (the same",
        "# function: the case prints that its support is experimental and sets nothing without it).",
        "kfd_experimental = [" + ", ".join(q(i) for i in kfd_experimental) + "]",
        "",
    ]
    for k in ["amdgpu.ids", "pci.ids", "kernel", "llvm", "therock"]:
        out += ["[[source]]", f"name = {q(k)}", f"what = {q(PINS[k]['what'])}"]
        if PINS[k]["sha256"]:
            out.append(f"sha256 = {q(PINS[k]['sha256'])}")
        out.append("")
    out += [
        "# The chip names amdgpu and KFD print (amdgpu_device.c amdgpu_asic_name[], indexed by",
        "# amd_asic_type.h's enum), with their ISA; chips amdgpu finds by IP discovery print",
        "# `IP DISCOVERY`, which names no chip. Left out (no source states their ISA): "
        + (", ".join(asics_left) or "none") + ".",
    ]
    for a in asics:
        out += ["[[asic]]", f"name = {q(a['name'])}", f"isa = {q(a['isa'])}", f"isa_from = {q(a['isa_from'])}", ""]
    out += [
        "# The GC IP versions KFD gives a gfx_target_version (kfd_device.c kgd2kfd_probe), with",
        "# their ISA: older kernels refuse a GPU found by IP discovery by its GC version (\"GC IP",
        "# %06x %s not supported in kfd\"), which a newer kernel's KFD may take.",
    ]
    for g in gcs:
        out += ["[[kfd_gc]]", f"gc = {q(g['gc'])}", f"isa = {q(g['isa'])}", f"isa_from = {q(g['isa_from'])}", ""]
    for r in rows:
        out += ["[[gpu]]", f"id = {q(r['id'])}"]
        if r["rev"]:
            out.append(f"rev = {q(r['rev'])}")
        out += [f"isa = {q(r['isa'])}"]
        if r["chip"]:
            out.append(f"chip = {q(r['chip'])}")
        out += [
            "names = [" + ", ".join(q(n) for n in r["names"]) + "]",
            "names_from = [" + ", ".join(q(n) for n in r["names_from"]) + "]",
            f"isa_from = {q(r['isa_from'])}",
            "",
        ]
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--amdgpu-ids", required=True)
    p.add_argument("--pci-ids", required=True)
    p.add_argument("--kernel-deb", required=True)
    p.add_argument("--llvm-tar", required=True)
    p.add_argument("--check", action="store_true")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "checks", "gpu-names.toml"))
    a = p.parse_args()
    rows, left, kernel = build(a)
    text = render(rows, left, kernel)
    ids = len({r["id"] for r in rows})
    print(f"gen-gpu-names: {ids} device ids ({len(rows)} rows), {len(left)} ids left out (no source states their ISA)", file=sys.stderr)
    if a.check:
        with open(a.out, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit("gen-gpu-names: checks/gpu-names.toml differs from what the pinned inputs give")
        print("gen-gpu-names: checks/gpu-names.toml is reproduced byte for byte", file=sys.stderr)
        return
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
