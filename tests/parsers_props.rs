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
}
