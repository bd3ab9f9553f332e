//! Property tests: every parser of text that comes from outside (sysfs files, environment
//! values, version files, compiler output, ACL xattrs) returns a value or an error for any
//! input, and never panics. The code-object parsers have their own (tests/inspect_props.rs).

use proptest::prelude::*;
use rocm_doctor::gpu::{access, overrides, props, visibility};
use rocm_doctor::inventory::{clang, devicelibs, targets, versions};
use rocm_doctor::isa::{decode_gfx_target_version, encode_gfx_target_version, TargetId};

/// Text that looks like the real thing often enough to reach deep paths.
fn texty() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z_ 0-9\n.:+\\-\"';,]{0,200}",
        "(gfx[0-9a-f]{0,5}(:(xnack|sramecc)[+\\-]?)*[;, ]?){0,6}",
        "([a-z_]{1,20} [0-9]{1,25}\n){0,30}",
        "(#define [A-Z_]{1,20} [0-9a-z]{0,12}\n){0,8}",
        "(\"[^\"]{0,30}\" ){0,10}(clang: error: [a-z ]{0,40}\n)?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn target_ids_parse_or_refuse(s in texty()) {
        if let Ok(id) = TargetId::parse(&s) {
            // What parses prints back to something that parses to the same id.
            prop_assert_eq!(TargetId::parse(&id.to_string()).ok(), Some(id));
        }
    }

    #[test]
    fn gfx_target_version_round_trips(v in 0u64..2_000_000) {
        if let Some(name) = decode_gfx_target_version(v) {
            prop_assert_eq!(encode_gfx_target_version(&name).map(u64::from), Some(v));
        }
    }

    #[test]
    fn kfd_properties(s in texty()) {
        let _ = props::parse(&s);
    }

    #[test]
    fn visibility_values(s in texty(), ids in proptest::collection::vec(any::<u64>(), 0..8)) {
        let _ = visibility::apply_rocr(Some(&s), &ids);
        let _ = visibility::apply_hip(Some(&s), &ids);
    }

    #[test]
    fn override_values(s in texty()) {
        let _ = overrides::parse_override(&s);
        let _ = overrides::parse_hsa_xnack(Some(&s));
    }

    #[test]
    fn acl_texts_and_xattrs(lines in proptest::collection::vec(texty(), 0..6), bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = access::parse_acl_text(&lines);
        let _ = access::parse_acl_xattr(&bytes);
    }

    #[test]
    fn version_files(s in texty()) {
        let _ = versions::parse_info_version(&s);
        let _ = versions::parse_header_version(&s, "HIP_VERSION");
        let _ = versions::parse_hip_version_file(&s);
        let _ = versions::parse_clang_version(&s);
        let _ = versions::major_minor(&s);
    }

    #[test]
    fn compiler_output(s in texty()) {
        let _ = clang::parse_supported_cpus(&s);
        let _ = clang::split_quoted(&s);
        let mut v = clang::HipDriverView::default();
        clang::parse_dry_run(&s, &mut v);
        let _ = v.bitcode_dir();
        let _ = rocm_doctor::diag::classify(&s);
        let lines: Vec<&str> = s.lines().collect();
        let _ = rocm_doctor::asm::parse::attribute(&lines, &s, false);
    }

    #[test]
    fn target_lists_and_bitcode_listings(s in texty(), names in proptest::collection::vec(texty(), 0..20)) {
        for item in targets::split_list(&s) {
            let _ = TargetId::parse(item);
        }
        let d = devicelibs::classify_names("/b".into(), "x".into(), &names);
        prop_assert!(d.file_count <= names.len());
    }

    #[test]
    fn amdgpu_health_files(s in health_texty(), bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        use rocm_doctor::gpu::health::parse as h;
        let _ = h::parse_ras_count(&s);
        let _ = h::ras_count_file(&s);
        let _ = h::parse_ras_features(&s);
        let b = h::parse_bad_pages(&s);
        prop_assert!(b.pages.len() + b.malformed.len() <= s.lines().count());
        if let Ok(t) = h::parse_bad_page_threshold(&s) {
            let _ = h::threshold_policy(t, h::parse_kernel_release(&s), Some(64 << 30));
        }
        let _ = h::parse_link_speed(&s);
        let _ = h::parse_link_width(&s);
        let _ = h::pcie_dpm_levels(&s);
        let _ = h::is_pci_address(&s);
        let _ = h::parse_fw_version(&s);
        let _ = h::fw_name(&s);
        let _ = h::hwmon_attr(&s);
        let _ = h::parse_microwatts(&s);
        let _ = h::parse_dec_i64(&s);
        let _ = h::parse_partition_mode(&s, &h::COMPUTE_PARTITIONS);
        let _ = h::parse_partition_list(&s);
        let _ = h::truncate(&s, 3);
        if let Ok(m) = h::parse_gpu_metrics(&bytes) {
            let _ = h::active_throttlers(&m);
        }
        if let Ok(a) = h::parse_aer_stats(&s, "TOTAL_ERR_COR") {
            prop_assert!(a.kinds.len() < s.lines().count());
        }
    }
}

/// Text shaped like the amdgpu health files often enough to reach their deep paths.
fn health_texty() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "((ue|ce|de|xx): [0-9]{0,22}\n){0,4}",
        "feature mask: 0x[0-9a-fA-F]{0,10}\n?",
        "(0x[0-9a-f]{0,17} : 0x[0-9a-f]{0,9} : [RPFX ]{0,2}\n){0,6}",
        "-?[0-9]{0,21}\n?",
        "[0-9]{0,5}\\.?[0-9]{0,3} GT/s( PCIe)?\n?|Unknown( speed)?",
        "((SPX|DPX|CPX|NPS[0-9]|Not supported)(, )?){0,5}\n?",
        "[a-z]{0,6}[0-9]{0,3}_[a-z_]{0,12}",
        "[0-9]{0,3}\\.[0-9]{0,3}[.\\-a-z0-9]{0,12}",
        "([A-Za-z_ \\[\\]0-9]{0,24} [0-9]{0,21}\n){0,4}TOTAL_ERR_(COR|FATAL) [0-9]{0,21}\n?",
    ]
}
