//! Table tests for the GPU checks' judging, in process (the harness: `crate::checks::testkit`):
//! a fixture sysroot from `tests/fixtures/sysroots` plus environment pairs, run through one check
//! function. No child process is started: a fixture root has no PATH, so the inventory finds no
//! clang and the checks judge files only.

use super::*;
use crate::checks::testkit::{check_table, fix_commands, fix_env, judge, row, Row, NO_GPU};
use crate::report::Status;

const MIXED: &str = "gfx1036-igpu-gfx1031-dgpu";
const DGPU: &str = "gfx1030-dgpu";

#[test]
fn visibility_table() {
    use Status::*;
    check_table(
        "gpu.visibility",
        visibility::visibility,
        &[
            // The iGPU is HIP device 0 on a mixed machine unless something selects the dGPU.
            row(
                MIXED,
                &[],
                &[(
                    Warn,
                    "HIP sees the integrated GPU gfx1036 next to the discrete GPU(s) gfx1031",
                )],
            ),
            row(
                MIXED,
                &[("HIP_VISIBLE_DEVICES", "1")],
                &[(Pass, "HIP sees 0=node 2 gfx1031")],
            ),
            row(
                MIXED,
                &[("ROCR_VISIBLE_DEVICES", "1")],
                &[(Pass, "HIP sees 0=node 2 gfx1031")],
            ),
            // An index past the end hides everything.
            row(
                MIXED,
                &[("HIP_VISIBLE_DEVICES", "5")],
                &[(Fail, "hide every GPU")],
            ),
            row(
                DGPU,
                &[("CUDA_VISIBLE_DEVICES", "3")],
                &[(Fail, "hide every GPU")],
            ),
            row(DGPU, &[], &[(Pass, "HIP sees 0=node 1 gfx1030")]),
            row(
                DGPU,
                &[("HIP_VISIBLE_DEVICES", "0")],
                &[(Pass, "HIP sees 0=node 1 gfx1030")],
            ),
            // Variables on a machine without a GPU: a skip that names them, not a failure.
            row(
                NO_GPU,
                &[("HIP_VISIBLE_DEVICES", "0")],
                &[(Skip, "visibility variables are set but there is no GPU")],
            ),
            row(NO_GPU, &[], &[(Skip, "no GPU")]),
        ],
    );
    // The fixes: select the dGPU by its index in ROCr's list; with no dGPU/iGPU choice, unset.
    let f = judge(MIXED, &[], Profile::Auto, visibility::visibility);
    assert_eq!(
        fix_env(&f, "integrated"),
        [("ROCR_VISIBLE_DEVICES".to_string(), "1".to_string())]
    );
    let f = judge(
        MIXED,
        &[("HIP_VISIBLE_DEVICES", "5")],
        Profile::Auto,
        visibility::visibility,
    );
    assert_eq!(
        fix_env(&f, "hide every GPU"),
        [("ROCR_VISIBLE_DEVICES".to_string(), "1".to_string())]
    );
    assert_eq!(
        fix_commands(&f, "hide every GPU"),
        ["unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES"]
    );
    let f = judge(
        DGPU,
        &[("CUDA_VISIBLE_DEVICES", "3")],
        Profile::Auto,
        visibility::visibility,
    );
    assert!(fix_env(&f, "hide every GPU").is_empty());
    assert_eq!(
        fix_commands(&f, "hide every GPU"),
        ["unset ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES"]
    );
}

#[test]
fn overrides_table() {
    use Status::*;
    const OVR: &str = "HSA_OVERRIDE_GFX_VERSION";
    check_table(
        "gpu.overrides",
        overrides::overrides,
        &[
            row(DGPU, &[], &[(Pass, "no HSA_OVERRIDE_GFX_VERSION")]),
            row(
                DGPU,
                &[(OVR, "10.3.0")],
                &[(Warn, "repeats the GPU's own ISA")],
            ),
            // gfx1031 code on gfx1030: same generic family.
            row(
                DGPU,
                &[(OVR, "10.3.1")],
                &[(Pass, "an ISA-compatible sibling")],
            ),
            row(DGPU, &[(OVR, "9.0.0")], &[(Fail, "crosses GPU families")]),
            row(
                DGPU,
                &[(OVR, "10.1.0")],
                &[(
                    Warn,
                    "share a major version but not an ISA-compatible generic family",
                )],
            ),
            row(DGPU, &[(OVR, "ten")], &[(Fail, "is invalid")]),
            row(
                DGPU,
                &[("HSA_OVERRIDE_GFX_VERSION_7", "10.3.0")],
                &[(Warn, "names no GPU node")],
            ),
            // One global value on a mixed machine: each GPU judged, plus the advice to split it.
            row(
                MIXED,
                &[(OVR, "10.3.0")],
                &[
                    (Pass, "node 1 (gfx1036)"),
                    (Warn, "one global HSA_OVERRIDE_GFX_VERSION"),
                    (Pass, "node 2 (gfx1031)"),
                ],
            ),
            row(
                NO_GPU,
                &[(OVR, "10.3.0")],
                &[(Skip, "well-formed (gfx1030) but there is no GPU")],
            ),
            row(NO_GPU, &[(OVR, "x")], &[(Warn, "is invalid")]),
        ],
    );
    let f = judge(
        MIXED,
        &[(OVR, "10.3.0")],
        Profile::Auto,
        overrides::overrides,
    );
    let mut env = fix_env(&f, "one global");
    env.sort();
    assert_eq!(
        env,
        [
            (
                "HSA_OVERRIDE_GFX_VERSION_1".to_string(),
                "10.3.0".to_string()
            ),
            (
                "HSA_OVERRIDE_GFX_VERSION_2".to_string(),
                "10.3.0".to_string()
            )
        ]
    );
    assert_eq!(
        fix_commands(&f, "one global"),
        ["unset HSA_OVERRIDE_GFX_VERSION"]
    );
}

#[test]
fn kfd_table() {
    use Status::*;
    check_table(
        "gpu.kfd",
        kfd::kfd,
        &[
            row(DGPU, &[], &[(Pass, "/dev/kfd opens read-write")]),
            row(
                "kfd-group-missing",
                &[],
                &[(Fail, "cannot open /dev/kfd read-write (EACCES)")],
            ),
            row(
                "container-no-devices",
                &[],
                &[(Fail, "/dev/kfd does not exist")],
            ),
            // A capture without a manifest says what it cannot judge.
            row(
                "k8s-vega10-gfx900",
                &[],
                &[(Skip, "does not describe device nodes")],
            ),
            row(
                NO_GPU,
                &[],
                &[(Skip, "use --profile runtime to require one")],
            ),
            Row {
                profile: Profile::Build,
                ..row(
                    NO_GPU,
                    &[],
                    &[(Skip, "the build profile does not need one")],
                )
            },
            Row {
                profile: Profile::Runtime,
                ..row(NO_GPU, &[], &[(Fail, "no usable GPU")])
            },
            row("wsl", &[], &[(Skip, "WSL")]),
        ],
    );
    // The group that owns the node, by name from the fixture's /etc/group.
    let f = judge("kfd-group-missing", &[], Profile::Auto, kfd::kfd);
    assert_eq!(
        fix_commands(&f, "EACCES"),
        ["sudo usermod -aG render $USER"]
    );
    let f = judge("container-no-devices", &[], Profile::Auto, kfd::kfd);
    assert!(fix_commands(&f, "does not exist")[0].contains("--device=/dev/kfd"));
}

#[test]
fn xnack_table() {
    use Status::*;
    check_table(
        "gpu.xnack",
        xnack::xnack,
        &[
            row(
                "gfx90c-apu",
                &[],
                &[(Pass, "the kernel's default (HSA_XNACK unset)")],
            ),
            row(
                "gfx90c-apu",
                &[("HSA_XNACK", "1")],
                &[(Pass, "on (HSA_XNACK=1)")],
            ),
            row(
                "gfx90c-apu",
                &[("HSA_XNACK", "0")],
                &[(Pass, "off (HSA_XNACK=0)")],
            ),
            // ROCr reads only "0" and "1".
            row(
                "gfx90c-apu",
                &[("HSA_XNACK", "yes")],
                &[(Warn, "is ignored")],
            ),
            // gfx1030 has no XNACK.
            row(
                DGPU,
                &[("HSA_XNACK", "1")],
                &[(Warn, "no GPU here supports XNACK")],
            ),
            row(NO_GPU, &[("HSA_XNACK", "1")], &[(Skip, "no GPU to judge")]),
        ],
    );
}

#[test]
fn agents_table() {
    use Status::*;
    check_table(
        "gpu.agents",
        agents::agents,
        &[
            row(
                DGPU,
                &[],
                &[(Pass, "1 GPU agent(s) in KFD"), (Pass, "knows gfx1030")],
            ),
            Row {
                profile: Profile::Runtime,
                ..row(NO_GPU, &[], &[(Fail, "no usable GPU")])
            },
        ],
    );
}

/// `gpu.layers`: fixtures with the PCI layer (`layers-*`, formats in their SOURCE.md) and the
/// KFD-only ones (captures, APUs), each loss at its own layer.
#[test]
fn layers_table() {
    use crate::checks::testkit::table;
    use Status::*;
    let expect = |n: u32| -> fn(&mut crate::config::Config) {
        match n {
            8 => |c| c.expect_gpus = Some(8),
            // The site policy's expectation, and --expect-gpus winning over it.
            90 => |c| {
                c.policy = crate::policy::Policy::parse(
                    "policy.toml",
                    "[thresholds]\n\"gpu.layers.expect-gpus\" = 9\n",
                )
                .unwrap()
            },
            91 => |c| {
                c.policy = crate::policy::Policy::parse(
                    "policy.toml",
                    "[thresholds]\n\"gpu.layers.expect-gpus\" = 9\n",
                )
                .unwrap();
                c.expect_gpus = Some(8);
            },
            9 => |c| c.expect_gpus = Some(9),
            _ => |c| c.expect_gpus = Some(1),
        }
    };
    table(
        CheckId::GpuLayers,
        &[
            row(
                "layers-mi210x8-ok",
                &[],
                &[(
                    Pass,
                    "8 GPU(s) on every layer: pci 8 → amdgpu 8 → drm 8 → kfd 8 → rocr 8 → hip 8",
                )],
            ),
            Row {
                setup: expect(8),
                ..row(
                    "layers-mi210x8-ok",
                    &[],
                    &[(Pass, "8 GPU(s) usable by ROCr, 8 expected (--expect-gpus)")],
                )
            },
            Row {
                setup: expect(9),
                ..row(
                    "layers-mi210x8-ok",
                    &[],
                    &[(Fail, "8 GPU(s) usable by ROCr, 9 expected (--expect-gpus)")],
                )
            },
            Row {
                setup: expect(90),
                ..row(
                    "layers-mi210x8-ok",
                    &[],
                    &[(Fail, "8 GPU(s) usable by ROCr, 9 expected")],
                )
            },
            Row {
                setup: expect(91),
                ..row(
                    "layers-mi210x8-ok",
                    &[],
                    &[(Pass, "8 GPU(s) usable by ROCr, 8 expected")],
                )
            },
            // The visibility variables hide GPUs on purpose: counted, not failed.
            row(
                "layers-mi210x8-ok",
                &[("HIP_VISIBLE_DEVICES", "0,1")],
                &[(Pass, "8 GPU(s) on every layer; 6 hidden on purpose")],
            ),
            row(
                "layers-mi210x8-lost",
                &[],
                &[
                    (Fail, "0000:83:00.0: AMD GPU on the PCI bus with no driver bound (the kernel log shows the probe failed with error -12)"),
                    (Fail, "0000:a3:00.0: bound to vfio-pci"),
                    (Fail, "0000:c3:00.0: amdgpu bound (card6) but no KFD node (the kernel log of this boot says nothing about it)"),
                    (Fail, "0000:e3:00.0: /dev/dri/renderD132: ENOENT"),
                ],
            ),
            Row {
                setup: expect(8),
                ..row(
                    "layers-mi210x8-lost",
                    &[],
                    &[
                        (Fail, "0000:83:00.0"),
                        (Fail, "0000:a3:00.0"),
                        (Fail, "0000:c3:00.0"),
                        (Fail, "0000:e3:00.0"),
                        (Fail, "4 GPU(s) usable by ROCr, 8 expected (--expect-gpus)"),
                    ],
                )
            },
            // MI300X in CPX mode: eight PCI functions, 63 KFD nodes in the real capture.
            row(
                "layers-mi300x-cpx",
                &[],
                &[(Pass, "8 GPU(s) on every layer: pci 8 → amdgpu 8 → drm 8 → kfd 8 (63 nodes) → rocr 8 (63 nodes) → hip 8 (63 nodes)")],
            ),
            // The same capture without the PCI layer.
            row(
                "k8s-mi300x-cpx-gfx942",
                &[],
                &[(Pass, "8 GPU(s) on every layer: pci not observed → amdgpu not observed → drm not observed → kfd 8 (63 nodes)")],
            ),
            row(
                "gfx90c-apu",
                &[],
                &[(Pass, "1 GPU(s) on every layer: pci not observed → amdgpu not observed → drm 1 → kfd 1 → rocr 1 → hip 1")],
            ),
            row(
                MIXED,
                &[],
                &[(Pass, "2 GPU(s) on every layer")],
            ),
            row(
                "polaris-no-kfd-node",
                &[],
                &[(Fail, "0000:0b:00.0: DRM card1 but no KFD node (the kernel log cannot be read here: `dmesg` says why)")],
            ),
            // A device cgroup hides node 2: reported, not failed.
            row(
                "node-eperm",
                &[],
                &[(Pass, "1 GPU(s) on every layer; 1 KFD node(s) hidden from this process")],
            ),
            row(
                "container-no-devices",
                &[],
                &[(Fail, "0000:03:00.0: ROCr cannot initialise: /dev/kfd cannot be opened read-write (ENOENT)")],
            ),
            row(NO_GPU, &[], &[(Skip, "no AMD GPU at any layer")]),
            Row {
                setup: expect(1),
                ..row(NO_GPU, &[], &[(Fail, "no AMD GPU usable by ROCr, 1 expected")])
            },
        ],
    );
}
