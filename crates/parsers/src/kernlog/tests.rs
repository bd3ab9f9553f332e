//! Event tests on real lines. Sources: tests/corpus/*.toml (each case's `source` link is named
//! here by case id) and the lines the shared reference `amdgpu-health.md` §8 tags [real]
//! ("seen in public logs"); lines marked "constructed" follow the driver's format string of that
//! section exactly.

use super::*;

fn ev(line: &str) -> Event {
    classify(&parse_line(line)).unwrap_or_else(|| panic!("not recognised: {line}"))
}

fn events(text: &str) -> Vec<(usize, Event)> {
    amdgpu_events(&parse_text(text.as_bytes()))
}

#[test]
fn firmware_load_failed() {
    // corpus gpu-rocm-912-vega20-ta-firmware-harmless
    // (github.com/ROCm/legacy-rocm-build/issues/912)
    let e = ev("[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed with error -2");
    assert_eq!(e.kind, EventKind::FirmwareLoadFailed);
    assert_eq!(e.device.as_deref(), Some("0000:19:00.0"));
    assert_eq!(e.subject.as_deref(), Some("amdgpu/vega20_ta.bin"));
    assert_eq!(e.error, Some(-2));
    let e = ev("[    3.353886] amdgpu 0000:19:00.0: psp v11.0: Failed to load firmware \"amdgpu/vega20_ta.bin\"");
    assert_eq!(
        (e.kind, e.subject.as_deref()),
        (EventKind::FirmwareLoadFailed, Some("amdgpu/vega20_ta.bin"))
    );
    // corpus gpu-rocm-1357-mi100-arcturus-gpu-info-missing (github.com/ROCm/legacy-rocm-build/issues/1357)
    let e = ev("[    9.605988] amdgpu 0000:23:00.0: Failed to load gpu_info firmware \"amdgpu/arcturus_gpu_info.bin\"");
    assert_eq!(e.subject.as_deref(), Some("amdgpu/arcturus_gpu_info.bin"));
    // corpus gpu-rocm-2747-mi210-psp-ring-fabric-link (github.com/ROCm/legacy-rocm-build/issues/2747), dmesg -T
    let e = ev(
        "[Mon Dec 18 08:34:36 2023] [drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring failed!",
    );
    assert_eq!(
        (e.kind, e.subject.as_deref()),
        (EventKind::FirmwareLoadFailed, Some("PSP"))
    );
    // reference §8.1 [real]
    let e = ev("[drm:dm_early_init [amdgpu]] *ERROR* DMUB firmware loading failed: -19");
    assert_eq!((e.subject.as_deref(), e.error), (Some("DMUB"), Some(-19)));
    assert_eq!(
        ev("[drm] psp command (0x2) failed and response status is (0x117)").kind,
        EventKind::FirmwareLoadFailed
    );
}

#[test]
fn ip_init_and_probe_failed() {
    // reference §8.1 [real]
    let e = ev("[drm:amdgpu_device_init [amdgpu]] *ERROR* early_init of IP block <dm> failed -19");
    assert_eq!(e.kind, EventKind::IpInitFailed);
    assert_eq!(
        (e.subject.as_deref(), e.error),
        (Some("early_init dm"), Some(-19))
    );
    // corpus gpu-rocminstall-615-mi210-probe-error-12-bios (github.com/ROCm/rocm-install-on-linux/issues/615)
    let e = ev("[    9.292134] amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init");
    assert_eq!(
        (e.kind, e.device.as_deref()),
        (EventKind::IpInitFailed, Some("0000:83:00.0"))
    );
    let e = ev("[    9.292551] amdgpu: probe of 0000:83:00.0 failed with error -12```");
    assert_eq!(e.kind, EventKind::ProbeFailed);
    assert_eq!(
        (e.device.as_deref(), e.error),
        (Some("0000:83:00.0"), Some(-12))
    );
    // ≥≈6.9 form (constructed from drivers/base/dd.c, reference §8.1)
    let e = ev("amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -22");
    assert_eq!((e.kind, e.error), (EventKind::ProbeFailed, Some(-22)));
}

#[test]
fn kfd_asic_device_id_and_atomics() {
    // corpus gpu-rocm-2232-pitcairn-not-supported-in-kfd (github.com/ROCm/legacy-rocm-build/issues/2232)
    let e = ev("[    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd");
    assert_eq!(
        (e.kind, e.subject.as_deref()),
        (EventKind::AsicUnsupported, Some("PITCAIRN"))
    );
    // reference §8.2 [real text]
    let e = ev("Mar 02 09:14:07 ws1 kernel: kfd kfd: amdgpu: GC IP 0b0004  not supported in kfd");
    assert_eq!(e.subject.as_deref(), Some("GC IP 0b0004"));
    // corpus gpu-rocm-719-did-15d8-missing-picasso (github.com/ROCm/legacy-rocm-build/issues/719), a quoted paste
    let v = events("> [    2.503387] kfd kfd: added device 1002:67ef\n> [    2.510806] kfd kfd: DID 15d8 is missing in supported_devices\n> [    2.510808] kfd kfd: kgd2kfd_probe failed\n");
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].0, v[0].1.kind), (1, EventKind::DeviceIdMissing));
    assert_eq!(v[0].1.subject.as_deref(), Some("15d8"));
    assert_eq!(v[0].1.extra, ["kgd2kfd_probe failed"]);
    // corpus gpu-rocm-1214 and gpu-rocm-237; reference §8.2 [real] with the MEC versions
    for l in [
        "[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics",
        "[    8.190144] kfd kfd: skipped device 1002:687f, PCI rejects atomics",
        "[  115.275652] kfd kfd: amdgpu: skipped device 1002:67e3, PCI rejects atomics 730<0",
    ] {
        let e = ev(l);
        assert_eq!(e.kind, EventKind::PcieAtomicsRejected, "{l}");
        assert!(e.subject.as_deref().unwrap().starts_with("1002:"));
    }
    assert!(classify(&parse_line(
        "[    6.087732] kfd kfd: added device 1002:687f"
    ))
    .is_none());
}

#[test]
fn ring_timeouts_with_task_and_ring_reset() {
    // reference §8.3: [real, 6.12-era] timeout and task lines, [real] ring reset
    let v = events(
        "[ 3081.700001] amdgpu 0000:64:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=54114692, emitted seq=54114694\n\
         [ 3081.700020] amdgpu 0000:64:00.0: amdgpu: Process information: process gst-launch-1.0 pid 3640855 thread gst-launch:cs0 pid 3640875\n\
         [ 3081.700025] amdgpu 0000:64:00.0: amdgpu: Starting gfx_0.0.0 ring reset\n\
         [ 3081.700040] amdgpu 0000:64:00.0: amdgpu: Ring gfx_0.0.0 reset succeeded\n",
    );
    assert_eq!(v.len(), 1, "{v:?}");
    let e = &v[0].1;
    assert_eq!(
        (e.kind, e.subject.as_deref()),
        (EventKind::RingTimeout, Some("gfx_0.0.0"))
    );
    assert_eq!(e.process, Some(("gst-launch-1.0".to_string(), 3640855)));
    assert_eq!(e.extra.len(), 3);
    // ≤6.10 DRM_ERROR form (reference §8.3)
    let e = ev("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=14, emitted seq=15");
    assert_eq!(e.subject.as_deref(), Some("gfx"));
    // 6.17+ task line (reference §8.3 [real]) is a task line, folded or dropped
    assert_eq!(
        ev("amdgpu 0000:06:00.0: amdgpu: Process mpv pid 44985 thread vo pid 45004").kind,
        EventKind::TaskInfo
    );
    assert!(
        events("amdgpu 0000:06:00.0: amdgpu: Process mpv pid 44985 thread vo pid 45004\n")
            .is_empty()
    );
}

#[test]
fn hws_hang() {
    // reference §8.8 [real]
    let v = events(
        "[ 3081.747295] qcm fence wait loop timeout expired\n\
         [ 3081.747298] The cp might be in an unrecoverable state due to an unsuccessful queues preemption\n\
         [ 3081.747300] amdgpu: Failed to evict process queues\n",
    );
    assert_eq!(v.len(), 3);
    assert!(v.iter().all(|(_, e)| e.kind == EventKind::HwsHang));
}

#[test]
fn resets_and_vram_lost() {
    // reference §8.4: [real] begin; the ≤6.16 VRAM line; constructed succeeded/failed forms
    let v = events(
        "[ 3081.747745] amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!\n\
         [ 3082.004232] amdgpu 0000:2b:00.0: amdgpu: GPU reset succeeded, trying to resume\n\
         [ 3082.010100] [drm] VRAM is lost due to GPU reset!\n\
         [ 3082.910000] amdgpu 0000:2b:00.0: amdgpu: GPU reset(2) succeeded!\n",
    );
    let kinds: Vec<EventKind> = v.iter().map(|(_, e)| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::GpuResetBegin,
            EventKind::VramLost,
            EventKind::GpuResetSucceeded
        ]
    );
    assert_eq!(v[0].1.extra, ["GPU reset succeeded, trying to resume"]);
    // 6.18: the source (two blanks); journal short [real text]
    let e = ev("amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!. Source:  4");
    assert_eq!(e.subject.as_deref(), Some("hws"));
    let e = ev("Jan 23 22:04:34 tiana kernel: amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!");
    assert_eq!(e.kind, EventKind::GpuResetBegin);
    // ≤5.9 prefix without `amdgpu: ` [real]
    assert_eq!(
        ev("amdgpu 0000:0b:00.0: GPU reset begin!").kind,
        EventKind::GpuResetBegin
    );
    let e = ev("amdgpu 0000:2b:00.0: amdgpu: GPU reset(3) failed with error -110 ");
    assert_eq!((e.kind, e.error), (EventKind::GpuResetFailed, Some(-110)));
    assert_eq!(
        ev("amdgpu 0000:2b:00.0: amdgpu: GPU reset(3) failed").kind,
        EventKind::GpuResetFailed
    );
    assert_eq!(
        ev("amdgpu 0000:2b:00.0: amdgpu: GPU Recovery Failed: -22").error,
        Some(-22)
    );
    assert_eq!(
        ev("amdgpu 0000:2b:00.0: amdgpu: VRAM is lost due to GPU reset!").kind,
        EventKind::VramLost
    );
}

#[test]
fn page_faults_fold_their_lines() {
    // corpus co-rocm-5616-mes-firmware-fault (github.com/ROCm/legacy-rocm-build/issues/5616): 6.17+ task line
    let v = events(
        "[   67.058794] amdgpu 0000:c4:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32786)\n\
[   67.058806] amdgpu 0000:c4:00.0: amdgpu:  Process python3 pid 3370 thread python3 pid 3370\n\
[   67.058809] amdgpu 0000:c4:00.0: amdgpu:   in page starting at address 0x00007fa4808cb000 from client 10\n\
[   67.058812] amdgpu 0000:c4:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932\n\
[   67.058813] amdgpu 0000:c4:00.0: amdgpu: \t Faulty UTCL2 client ID: CPF (0x4)\n\
[   67.058815] amdgpu 0000:c4:00.0: amdgpu:      MORE_FAULTS: 0x0\n\
[   67.058816] amdgpu 0000:c4:00.0: amdgpu:      WALKER_ERROR: 0x1\n\
[   67.058817] amdgpu 0000:c4:00.0: amdgpu:      PERMISSION_FAULTS: 0x3\n\
[   67.058818] amdgpu 0000:c4:00.0: amdgpu:      MAPPING_ERROR: 0x1\n\
[   67.058819] amdgpu 0000:c4:00.0: amdgpu:      RW: 0x0\n",
    );
    assert_eq!(v.len(), 1, "{v:?}");
    let e = &v[0].1;
    assert_eq!(e.kind, EventKind::VmPageFault);
    assert_eq!(
        (e.device.as_deref(), e.subject.as_deref()),
        (Some("0000:c4:00.0"), Some("gfxhub"))
    );
    assert_eq!(e.process, Some(("python3".to_string(), 3370)));
    assert_eq!(e.extra.len(), 9);
    assert!(e
        .extra
        .contains(&"GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932".to_string()));

    // corpus gpu-rocmlibs-1132-gfx1151-hang-page-fault (github.com/ROCm/rocm-libraries/issues/1132): journal short, ≈6.9-6.16 `in process`
    let v = events(
        "Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32794)\n\
Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu:  in process llama-bench-roc pid 345001 thread llama-bench-roc pid 345001)\n\
Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu:   in page starting at address 0x00007f418f76f000 from client 10\n\
Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n\
Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu:          Faulty UTCL2 client ID: TCP (0x8)\n",
    );
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].1.process,
        Some(("llama-bench-roc".to_string(), 345001))
    );

    // corpus co-nixpkgs-207109-5600g-override-1030-pagefault (github.com/NixOS/nixpkgs/issues/207109): ≤≈6.8 inline task
    let e = ev("[  306.174866] amdgpu 0000:07:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:221 vmid:8 pasid:32771, for process python pid 2315 thread python pid 2315)");
    assert_eq!(
        (e.kind, e.subject.as_deref()),
        (EventKind::VmPageFault, Some("gfxhub0"))
    );
    assert_eq!(e.process, Some(("python".to_string(), 2315)));

    // reference §8.5 [real]: gfx9 ≈6.9-6.16 ` for process ...)` and the MI300 die line
    let v = events(
        "[19277.975569] amdgpu 0000:3d:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:160 vmid:3 pasid:32790)\n\
[19277.975611] amdgpu 0000:3d:00.0: amdgpu:  for process python3.12 pid 6071 thread python3.12 pid 6071)\n\
[19277.975625] amdgpu 0000:3d:00.0: amdgpu:   in page starting at address 0x0000709843600000 from IH client 0x12 (VMC)\n\
[19277.975640] amdgpu 0000:3d:00.0: amdgpu:   cookie node_id 0 fault from die AID0\n",
    );
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].1.process, Some(("python3.12".to_string(), 6071)));
    assert_eq!(v[0].1.extra.len(), 3);

    // Only the status lines pasted (reference §8.5 [real]): still one fault.
    let v = events("[ 3072.743622] amdgpu 0000:2b:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00840051\n[ 3072.743624] amdgpu 0000:2b:00.0: amdgpu: \t Faulty UTCL2 client ID: MP0 (0x0)\n");
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].1.extra.len(), 1);
}

#[test]
fn faults_of_two_devices_stay_apart() {
    let v = events(
        "[ 1.0] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:1)\n\
[ 1.0] amdgpu 0000:83:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:2)\n\
[ 1.0] amdgpu 0000:03:00.0: amdgpu:  Process a pid 1 thread a pid 1\n\
[ 1.0] amdgpu 0000:83:00.0: amdgpu:  Process b pid 2 thread b pid 2\n",
    );
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].1.process.as_ref().unwrap().0, "a");
    assert_eq!(v[1].1.process.as_ref().unwrap().0, "b");
}

#[test]
fn iommu() {
    // reference §8.6 [real text]
    let e = ev("[   12.345678] amdgpu 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0007 address=0xffffc02000 flags=0x0000]");
    assert_eq!(
        (e.kind, e.device.as_deref()),
        (EventKind::IommuFailure, Some("0000:07:00.0"))
    );
    // corpus gpu-awsdocs-152-amdgpu-unknown-symbol-iommu-v2 (github.com/awsdocs/amazon-ec2-user-guide/pull/152)
    let e = ev("[    7.668049] amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)");
    assert_eq!(
        (e.kind, e.subject.as_deref(), e.error),
        (
            EventKind::IommuFailure,
            Some("amd_iommu_bind_pasid"),
            Some(-2)
        )
    );
    // Another device's IOMMU fault is not the GPU's.
    assert!(classify(&parse_line("nvme 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0007 address=0x0 flags=0x0000]")).is_none());
}

#[test]
fn ras() {
    // reference §8.7 [real]: RAS_EVENT_LOG has no `amdgpu: ` tag
    let e = ev("[ 8123.400100] amdgpu 0000:0b:00.0: 1048560 correctable hardware errors detected in umc block");
    assert_eq!(e.kind, EventKind::RasEvent);
    assert_eq!(
        (e.ras, e.count, e.subject.as_deref()),
        (Some(RasSeverity::Correctable), Some(1048560), Some("umc"))
    );
    // constructed from the format strings (§8.7), with the `{N}` event id
    let e = ev("amdgpu 0000:05:00.0: {3}socket: 0, die: 1, 2 new uncorrectable hardware errors detected in umc block");
    assert_eq!(
        (e.ras, e.count),
        (Some(RasSeverity::Uncorrectable), Some(2))
    );
    let e = ev("amdgpu 0000:05:00.0: amdgpu: socket: 0, die: 0 5 deferred hardware errors detected in total in gfx block");
    assert_eq!(
        (e.ras, e.subject.as_deref()),
        (Some(RasSeverity::Deferred), Some("gfx"))
    );
    let e = ev("amdgpu 0000:05:00.0: {3}poison is consumed by client 6, kick off gpu reset flow");
    assert_eq!(e.ras, Some(RasSeverity::Poison));
    let e = ev(
        "amdgpu 0000:05:00.0: {4}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
    );
    assert_eq!(
        (e.ras, e.subject.as_deref()),
        (Some(RasSeverity::Fatal), Some("ERREVENT_ATHUB_INTERRUPT"))
    );
    assert_eq!(
        ev("Aug 02 04:10:11 gpu07 kernel: amdgpu 0000:05:00.0: {2}Poison is created").ras,
        Some(RasSeverity::Poison)
    );
}

#[test]
fn smu_and_throttling() {
    // format strings of §8.8 (constructed)
    for l in [
        "amdgpu 0000:05:00.0: amdgpu: SMC is not ready",
        "amdgpu 0000:05:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000006 SMN_C2PMSG_82:0x00000000",
        "amdgpu 0000:05:00.0: amdgpu: SMU is in hanged state, failed to send smu message!",
    ] {
        assert_eq!(ev(l).kind, EventKind::SmuFailure, "{l}");
    }
    let e = ev("[ 5001.000000] amdgpu 0000:05:00.0: amdgpu: WARN: GPU is throttled, expect performance decrease. PPT and HBM.");
    assert_eq!(
        (e.kind, e.subject.as_deref()),
        (EventKind::Throttling, Some("PPT and HBM"))
    );
}

#[test]
fn kmsg_device_fills_in_for_drm_lines() {
    let l = parse_kmsg_record(b"6,9,3082010100,-;[drm] VRAM is lost due to GPU reset!\n SUBSYSTEM=pci\n DEVICE=+pci:0000:2b:00.0\n").unwrap();
    let e = classify(&l).unwrap();
    assert_eq!(
        (e.kind, e.device.as_deref()),
        (EventKind::VramLost, Some("0000:2b:00.0"))
    );
}

#[test]
fn other_lines_are_not_events() {
    // corpus co-therock-1054 and gpu-rocm-1357: ordinary amdgpu lines
    for l in [
        "[    4.972828] [drm] Detected VRAM RAM=98304M, BAR=98304M",
        "[    9.602998] amdgpu: Topology: Add CPU node",
        "[    9.605792] amdgpu 0000:23:00.0: enabling device (0000 -> 0003)",
        "[    1.000000] pci 0000:03:00.0: [1002:73bf] type 00 class 0x030000",
        "[    1.000000] nvme 0000:01:00.0: Direct firmware load for x failed with error -2",
        "Aug 08 22:35:13 h systemd[1]: amdgpu 0000:03:00.0: amdgpu: GPU reset begin!",
        "",
        "random text",
    ] {
        assert!(classify(&parse_line(l)).is_none(), "{l}");
    }
}

#[test]
fn summary_counts_per_kind() {
    let v = events(
        "[ 1.0] amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!\n\
[ 2.0] amdgpu 0000:2b:00.0: amdgpu: GPU reset(1) succeeded!\n\
[ 3.0] unrelated\n\
[ 4.0] amdgpu 0000:2c:00.0: amdgpu: GPU reset begin!\n",
    );
    let s = summarize(&v);
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].kind, EventKind::GpuResetBegin);
    assert_eq!((s[0].count, s[0].first_line, s[0].last_line), (2, 0, 3));
    assert_eq!(s[0].devices, ["0000:2b:00.0", "0000:2c:00.0"]);
    assert_eq!((s[1].kind, s[1].count), (EventKind::GpuResetSucceeded, 1));
}

#[test]
fn ten_thousand_lines_are_quick() {
    // The budget is 50 ms in release; a debug build is ~10x slower, so it is checked loosely
    // here and exactly by tests/kernlog.rs's timing note.
    let mut text = String::new();
    for i in 0..10_000u32 {
        match i % 100 {
            0 => text.push_str(&format!("[{:5}.{:06}] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=2\n", i / 100, i)),
            1 => text.push_str(&format!("[{:5}.{:06}] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32794)\n", i / 100, i)),
            _ => text.push_str(&format!("[{:5}.{:06}] usb 1-{i}: new high-speed USB device number {i} using xhci_hcd\n", i / 100, i)),
        }
    }
    let t = std::time::Instant::now();
    let lines = parse_text(text.as_bytes());
    let v = amdgpu_events(&lines);
    let took = t.elapsed();
    assert_eq!(lines.len(), 10_000);
    assert_eq!(v.len(), 200);
    let budget = if cfg!(debug_assertions) { 1000 } else { 50 };
    assert!(took.as_millis() < budget, "{took:?}");
}
