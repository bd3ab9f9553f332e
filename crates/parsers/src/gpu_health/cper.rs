//! Common Platform Error Records (CPER, UEFI specification appendix N) as amdgpu keeps them in
//! its CPER ring, read from debugfs `/sys/kernel/debug/dri/<minor>/amdgpu_ring_cper` (Linux
//! 6.15+, MI300-class parts; root only). A pure function over bytes: no I/O here.
//!
//! The file (`amdgpu_ring.c:amdgpu_debugfs_ring_read`, and from the unified RAS manager
//! `amdgpu_ras_cper_debugfs_read`) starts with a 12-byte ring header (rptr, wptr, driver wptr;
//! zeros in the RAS-manager path) followed by the ring's bytes: whole records back to back,
//! possibly with unused (zero) ring space around them. Records are found by their `"CPER"`
//! signature and `signature_end` 0xFFFFFFFF, and bounded by their `record_length`.
//!
//! Layouts are packed (`#pragma pack(1)` in `drivers/gpu/drm/amd/include/amd_cper.h`):
//! `struct cper_hdr` is 128 bytes, `struct cper_sec_desc` 72 bytes, matching the UEFI record
//! header (N.2.1) and section descriptor (N.2.2).

use serde::Serialize;

/// The ring header amdgpu puts before the ring's bytes.
pub const RING_HEADER: usize = 12;
/// `sizeof(struct cper_hdr)`.
pub const HDR_LEN: usize = 128;
/// `sizeof(struct cper_sec_desc)`.
pub const SEC_DESC_LEN: usize = 72;
/// At most this many records are decoded from one file (amdgpu's ring holds at most
/// `CPER_MAX_ALLOWED_COUNT` 0x1000; the rest are counted, not decoded).
pub const MAX_RECORDS: usize = 4096;
/// At most this many section descriptors are decoded per record.
pub const MAX_SECTIONS: usize = 16;

/// `error_severity` of the record header and of a section (UEFI N.2.1; `enum
/// cper_error_severity` in amd_cper.h: 0 non-fatal uncorrected, 1 fatal, 2 corrected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CperSeverity {
    /// 0: "recoverable" in UEFI, `CPER_SEV_NON_FATAL_UNCORRECTED` in amdgpu.
    Uncorrected,
    /// 1.
    Fatal,
    /// 2.
    Corrected,
    /// 3: informational (amdgpu uses it for boot records and, before a 2025 fix, for the
    /// bad-page-threshold record).
    Informational,
    /// Any other value.
    Other(u32),
}

impl CperSeverity {
    pub fn from_raw(v: u32) -> Self {
        match v {
            0 => CperSeverity::Uncorrected,
            1 => CperSeverity::Fatal,
            2 => CperSeverity::Corrected,
            3 => CperSeverity::Informational,
            n => CperSeverity::Other(n),
        }
    }

    pub fn label(&self) -> String {
        match self {
            CperSeverity::Uncorrected => "non-fatal uncorrected".into(),
            CperSeverity::Fatal => "fatal".into(),
            CperSeverity::Corrected => "corrected".into(),
            CperSeverity::Informational => "informational".into(),
            CperSeverity::Other(n) => format!("severity {n}"),
        }
    }
}

/// The `notify_type` GUID of a record (amd_cper.h: `CPER_NOTIFY_MCE`, `CPER_NOTIFY_CMC`,
/// `BOOT_TYPE`), as amdgpu sets it in `amdgpu_cper_entry_fill_hdr`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CperNotify {
    /// Machine check exception: fatal and uncorrected errors, the bad-page threshold.
    Mce,
    /// Corrected machine check.
    Cmc,
    /// Boot-time error record.
    Boot,
    Other(String),
}

impl CperNotify {
    pub fn label(&self) -> String {
        match self {
            CperNotify::Mce => "MCE".into(),
            CperNotify::Cmc => "CMC".into(),
            CperNotify::Boot => "boot".into(),
            CperNotify::Other(g) => format!("notify {g}"),
        }
    }
}

/// What a section holds, from its `sec_type` GUID (amd_cper.h).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CperSectionKind {
    /// `AMD_CRASHDUMP`: a fatal error's (or boot error's) register dump.
    Crashdump,
    /// `AMD_GPU_NONSTANDARD_ERROR`: runtime corrected/uncorrected errors, the bad-page
    /// threshold.
    NonStandard,
    /// `PROC_ERR_SECTION_TYPE`.
    Processor,
    Other(String),
}

impl CperSectionKind {
    pub fn label(&self) -> String {
        match self {
            CperSectionKind::Crashdump => "crashdump".into(),
            CperSectionKind::NonStandard => "non-standard error".into(),
            CperSectionKind::Processor => "processor error".into(),
            CperSectionKind::Other(g) => format!("section {g}"),
        }
    }
}

/// One section descriptor, with what is read from its section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CperSection {
    pub kind: CperSectionKind,
    pub severity: CperSeverity,
    /// `fru_text` (amdgpu writes `OAM<socket>`), when its valid bit is set.
    pub fru_text: Option<String>,
    /// `flag_bits.exceed_err_threshold` (bit 3): the bad-page threshold was exceeded.
    pub threshold_exceeded: bool,
    /// `flag_bits.latent_err` (bit 4 in amd_cper.h, where amdgpu sets it for poison; UEFI puts
    /// "latent error" at bit 5, which is read too).
    pub latent: bool,
    /// The ACA bank `STATUS` register of the section's register dump, when the section is one
    /// of AMD's and long enough: the value AMD's tools decode into an AFID.
    pub aca_status: Option<u64>,
}

/// One record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CperRecord {
    /// Byte offset of the record in the file.
    pub offset: usize,
    pub severity: CperSeverity,
    pub notify: CperNotify,
    /// `record_id` (8 characters, amdgpu: `"<socket>:<n>"`).
    pub record_id: String,
    /// `creator_id` (`"amdgpu"`).
    pub creator: String,
    /// `platform_id` (amdgpu: `"0x1002:0x74A1"`).
    pub platform: String,
    /// `YYYY-MM-DD hh:mm:ss` from the header's timestamp, when its valid bit is set.
    pub timestamp: Option<String>,
    pub sections: Vec<CperSection>,
}

/// What one read of the file gave.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CperLog {
    pub records: Vec<CperRecord>,
    /// Records found beyond [`MAX_RECORDS`] (counted, not decoded).
    pub more: usize,
    /// Places where a `"CPER"` signature was found but the record was not whole or not
    /// consistent (`offset: why`); the scan resumes after the signature.
    pub damaged: Vec<String>,
}

impl CperLog {
    pub fn count(&self, s: CperSeverity) -> usize {
        self.records.iter().filter(|r| r.severity == s).count()
    }
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    let s = b.get(o..o.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    let s = b.get(o..o.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from(u32_at(b, o)?) | (u64::from(u32_at(b, o + 4)?) << 32))
}

/// A fixed-size character field up to its first NUL, printable ASCII only.
fn text(b: &[u8]) -> String {
    b.iter()
        .take_while(|c| **c != 0)
        .map(|c| {
            if c.is_ascii_graphic() || *c == b' ' {
                *c as char
            } else {
                '?'
            }
        })
        .collect()
}

/// A GUID in the EFI byte order of `GUID_INIT(a, b, c, d0..d7)` (a, b, c little-endian).
fn guid(a: u32, b: u16, c: u16, d: [u8; 8]) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[0..4].copy_from_slice(&a.to_le_bytes());
    g[4..6].copy_from_slice(&b.to_le_bytes());
    g[6..8].copy_from_slice(&c.to_le_bytes());
    g[8..].copy_from_slice(&d);
    g
}

fn guid_text(g: &[u8]) -> String {
    if g.len() != 16 {
        return String::new();
    }
    let a = u32::from_le_bytes([g[0], g[1], g[2], g[3]]);
    let b = u16::from_le_bytes([g[4], g[5]]);
    let c = u16::from_le_bytes([g[6], g[7]]);
    let d: String = g[8..].iter().map(|x| format!("{x:02x}")).collect();
    format!("{a:08x}-{b:04x}-{c:04x}-{}-{}", &d[..4], &d[4..])
}

/// The GUIDs of amd_cper.h.
pub fn notify_mce() -> [u8; 16] {
    guid(
        0xE8F56FFE,
        0x919C,
        0x4cc5,
        [0xBA, 0x88, 0x65, 0xAB, 0xE1, 0x49, 0x13, 0xBB],
    )
}
pub fn notify_cmc() -> [u8; 16] {
    guid(
        0x2DCE8BB1,
        0xBDD7,
        0x450e,
        [0xB9, 0xAD, 0x9C, 0xF4, 0xEB, 0xD4, 0xF8, 0x90],
    )
}
pub fn notify_boot() -> [u8; 16] {
    guid(
        0x3D61A466,
        0xAB40,
        0x409a,
        [0xA6, 0x98, 0xF3, 0x62, 0xD4, 0x64, 0xB3, 0x8F],
    )
}
pub fn section_crashdump() -> [u8; 16] {
    guid(
        0x32AC0C78,
        0x2623,
        0x48F6,
        [0xB0, 0xD0, 0x73, 0x65, 0x72, 0x5F, 0xD6, 0xAE],
    )
}
pub fn section_nonstandard() -> [u8; 16] {
    guid(
        0x32AC0C78,
        0x2623,
        0x48F6,
        [0x81, 0xA2, 0xAC, 0x69, 0x17, 0x80, 0x55, 0x1D],
    )
}
pub fn section_processor() -> [u8; 16] {
    guid(
        0xDC3EA0B0,
        0xA144,
        0x4797,
        [0xB9, 0x5B, 0x53, 0xFA, 0x24, 0x2B, 0x6E, 0x1D],
    )
}

/// Where the ACA `STATUS` register sits in AMD's sections (amd_cper.h): a crashdump section is
/// `cper_sec_crashdump_hdr` (128 bytes) then the body's `reg_ctx_type`, `reg_arr_size`, two
/// reserved fields (16 bytes) and `data.status_lo/hi`; a non-standard section is
/// `cper_sec_nonstd_err_hdr` (64) + `cper_sec_nonstd_err_info` (64) + the context's 16-byte
/// head, then `reg_dump[]` = CTL_LO, CTL_HI, STATUS_LO, STATUS_HI, ...
fn aca_status_offset(kind: &CperSectionKind) -> Option<usize> {
    match kind {
        CperSectionKind::Crashdump => Some(128 + 16),
        CperSectionKind::NonStandard => Some(128 + 16 + 8),
        _ => None,
    }
}

/// `YYYY-MM-DD hh:mm:ss` from `struct cper_timestamp` (seconds, minutes, hours, flag, day,
/// month, year, century; UEFI N.2.1 "Timestamp", BCD in the spec, binary as amdgpu's
/// `amdgpu_cper_get_timestamp` writes it).
fn timestamp(t: &[u8]) -> Option<String> {
    if t.len() != 8 {
        return None;
    }
    let (sec, min, hour, day, month, year, century) = (t[0], t[1], t[2], t[4], t[5], t[6], t[7]);
    if sec > 60 || min > 59 || hour > 23 || !(1..=31).contains(&day) || !(1..=12).contains(&month) {
        return None;
    }
    Some(format!(
        "{:04}-{month:02}-{day:02} {hour:02}:{min:02}:{sec:02}",
        u32::from(century) * 100 + u32::from(year)
    ))
}

/// Decodes one record at `at` (its `"CPER"` signature); Err(why) when it is not whole or not
/// consistent; Ok((record, length)).
fn record(b: &[u8], at: usize) -> Result<(CperRecord, usize), String> {
    let h = b
        .get(at..at.saturating_add(HDR_LEN))
        .ok_or_else(|| format!("{} bytes left, a record header is {HDR_LEN}", b.len() - at))?;
    if u32_at(h, 6) != Some(u32::MAX) {
        return Err("signature_end is not 0xFFFFFFFF".into());
    }
    let sec_cnt = usize::from(u16_at(h, 10).unwrap_or(0));
    let len = u32_at(h, 20).unwrap_or(0) as usize;
    let min_len = HDR_LEN + sec_cnt.saturating_mul(SEC_DESC_LEN);
    if len < min_len {
        return Err(format!(
            "record_length {len} is shorter than its header and {sec_cnt} section descriptor(s)"
        ));
    }
    let rec = b.get(at..at.saturating_add(len)).ok_or_else(|| {
        format!(
            "record_length {len} runs past the end of the data ({} bytes left)",
            b.len() - at
        )
    })?;
    let valid = u32_at(h, 16).unwrap_or(0);
    let notify_g = &h[80..96];
    let notify = if notify_g == notify_mce() {
        CperNotify::Mce
    } else if notify_g == notify_cmc() {
        CperNotify::Cmc
    } else if notify_g == notify_boot() {
        CperNotify::Boot
    } else {
        CperNotify::Other(guid_text(notify_g))
    };
    let mut sections = Vec::new();
    for i in 0..sec_cnt.min(MAX_SECTIONS) {
        let d = &rec[HDR_LEN + i * SEC_DESC_LEN..HDR_LEN + (i + 1) * SEC_DESC_LEN];
        let st = &d[16..32];
        let kind = if st == section_crashdump() {
            CperSectionKind::Crashdump
        } else if st == section_nonstandard() {
            CperSectionKind::NonStandard
        } else if st == section_processor() {
            CperSectionKind::Processor
        } else {
            CperSectionKind::Other(guid_text(st))
        };
        let (off, slen) = (
            u32_at(d, 0).unwrap_or(0) as usize,
            u32_at(d, 4).unwrap_or(0) as usize,
        );
        let body = rec.get(off..off.saturating_add(slen));
        let flags = u32_at(d, 12).unwrap_or(0);
        let aca_status = aca_status_offset(&kind)
            .and_then(|o| body.and_then(|s| u64_at(s, o)))
            .filter(|v| *v != 0);
        sections.push(CperSection {
            severity: CperSeverity::from_raw(u32_at(d, 48).unwrap_or(u32::MAX)),
            fru_text: (d[10] & 0x2 != 0)
                .then(|| text(&d[52..72]))
                .filter(|t| !t.is_empty()),
            threshold_exceeded: flags & (1 << 3) != 0,
            latent: flags & (1 << 4 | 1 << 5) != 0,
            aca_status,
            kind,
        });
    }
    Ok((
        CperRecord {
            offset: at,
            severity: CperSeverity::from_raw(u32_at(h, 12).unwrap_or(u32::MAX)),
            notify,
            record_id: text(&h[96..104]),
            creator: text(&h[64..80]),
            platform: text(&h[32..48]),
            timestamp: (valid & (1 << 1) != 0)
                .then(|| timestamp(&h[24..32]))
                .flatten(),
            sections,
        },
        len,
    ))
}

/// Finds the next `"CPER"` signature at or after `from`.
fn find_signature(b: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?
        .windows(4)
        .position(|w| w == b"CPER")
        .map(|p| p + from)
}

/// Decodes the content of `amdgpu_ring_cper`: the 12-byte ring header, then every record found
/// by its signature. Never panics; damaged records are listed, not fatal. Bytes that hold no
/// signature (an empty ring, zero fill) give an empty log.
pub fn parse_cper_ring(bytes: &[u8]) -> CperLog {
    let mut log = CperLog::default();
    let mut at = RING_HEADER.min(bytes.len());
    while let Some(s) = find_signature(bytes, at) {
        match record(bytes, s) {
            Ok((r, len)) => {
                if log.records.len() < MAX_RECORDS {
                    log.records.push(r);
                } else {
                    log.more += 1;
                }
                at = s + len;
            }
            Err(why) => {
                if log.damaged.len() < 16 {
                    log.damaged.push(format!("offset {s}: {why}"));
                }
                at = s + 4;
            }
        }
    }
    log
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// Builds one record as amdgpu writes it (`amdgpu_cper_entry_fill_hdr`,
    /// `amdgpu_cper_entry_fill_section_desc`, `amdgpu_cper_entry_fill_runtime_section` /
    /// `_fatal_section`), one section of `sec_len` bytes: the writer the fixtures use too.
    pub fn amdgpu_record(
        severity: u32,
        notify: [u8; 16],
        sec_type: [u8; 16],
        sec_flags: u32,
        record_id: &str,
        aca_status: u64,
    ) -> Vec<u8> {
        let sec_len = if sec_type == section_crashdump() {
            128 + 16 + 32
        } else {
            128 + 16 + 4 * 16
        };
        let total = HDR_LEN + SEC_DESC_LEN + sec_len;
        let mut b = vec![0u8; total];
        b[0..4].copy_from_slice(b"CPER");
        b[4..6].copy_from_slice(&0x100u16.to_le_bytes()); // CPER_HDR_REV_1
        b[6..10].copy_from_slice(&u32::MAX.to_le_bytes());
        b[10..12].copy_from_slice(&1u16.to_le_bytes());
        b[12..16].copy_from_slice(&severity.to_le_bytes());
        // valid bits: platform_id (0), timestamp (1), partition_id (2).
        b[16..20].copy_from_slice(&0b111u32.to_le_bytes());
        b[20..24].copy_from_slice(&(total as u32).to_le_bytes());
        // 2026-11-26 21:04:05: sec, min, hour, flag, day, month, year, century.
        b[24..32].copy_from_slice(&[5, 4, 21, 0, 26, 11, 26, 20]);
        b[32..45].copy_from_slice(b"0x1002:0x74A1");
        b[64..70].copy_from_slice(b"amdgpu");
        b[80..96].copy_from_slice(&notify);
        let id = record_id.as_bytes();
        b[96..96 + id.len().min(8)].copy_from_slice(&id[..id.len().min(8)]);
        let d = HDR_LEN;
        b[d..d + 4].copy_from_slice(&((HDR_LEN + SEC_DESC_LEN) as u32).to_le_bytes());
        b[d + 4..d + 8].copy_from_slice(&(sec_len as u32).to_le_bytes());
        b[d + 8] = 0x01; // CPER_SEC_MINOR_REV_1
        b[d + 9] = 0x22; // CPER_SEC_MAJOR_REV_22
        b[d + 10] = 0x2; // valid: fru_text
        b[d + 12..d + 16].copy_from_slice(&(1 | sec_flags).to_le_bytes());
        b[d + 16..d + 32].copy_from_slice(&sec_type);
        b[d + 48..d + 52].copy_from_slice(&severity.to_le_bytes());
        b[d + 52..d + 56].copy_from_slice(b"OAM3");
        let s = HDR_LEN + SEC_DESC_LEN;
        let o = s + aca_status_offset(&if sec_type == section_crashdump() {
            CperSectionKind::Crashdump
        } else {
            CperSectionKind::NonStandard
        })
        .unwrap();
        b[o..o + 8].copy_from_slice(&aca_status.to_le_bytes());
        b
    }

    /// The ring file: the 12-byte header, the records, zero fill.
    pub fn ring(records: &[Vec<u8>]) -> Vec<u8> {
        let mut b = vec![0u8; RING_HEADER];
        for r in records {
            b.extend_from_slice(r);
        }
        b.extend_from_slice(&[0u8; 64]);
        b
    }

    #[test]
    fn records_as_amdgpu_writes_them() {
        let fatal = amdgpu_record(
            1,
            notify_mce(),
            section_crashdump(),
            0,
            "3:1",
            0xBAA0_0000_0001_0135,
        );
        let ce = amdgpu_record(
            2,
            notify_cmc(),
            section_nonstandard(),
            0,
            "3:2",
            0x9C20_0000_0000_011B,
        );
        let bp = amdgpu_record(1, notify_mce(), section_nonstandard(), 1 << 3, "3:3", 0);
        let log = parse_cper_ring(&ring(&[fatal, ce, bp]));
        assert!(log.damaged.is_empty(), "{:?}", log.damaged);
        assert_eq!(log.records.len(), 3);
        let r = &log.records[0];
        assert_eq!(r.offset, RING_HEADER);
        assert_eq!(r.severity, CperSeverity::Fatal);
        assert_eq!(r.notify, CperNotify::Mce);
        assert_eq!(
            (r.record_id.as_str(), r.creator.as_str()),
            ("3:1", "amdgpu")
        );
        assert_eq!(r.platform, "0x1002:0x74A1");
        assert_eq!(r.timestamp.as_deref(), Some("2026-11-26 21:04:05"));
        let s = &r.sections[0];
        assert_eq!(s.kind, CperSectionKind::Crashdump);
        assert_eq!(s.fru_text.as_deref(), Some("OAM3"));
        assert_eq!(s.aca_status, Some(0xBAA0_0000_0001_0135));
        assert!(!s.threshold_exceeded && !s.latent);
        assert_eq!(log.records[1].severity, CperSeverity::Corrected);
        assert_eq!(log.records[1].notify, CperNotify::Cmc);
        assert_eq!(
            log.records[1].sections[0].kind,
            CperSectionKind::NonStandard
        );
        assert_eq!(
            log.records[1].sections[0].aca_status,
            Some(0x9C20_0000_0000_011B)
        );
        assert!(log.records[2].sections[0].threshold_exceeded);
        assert_eq!(log.count(CperSeverity::Fatal), 2);
    }

    #[test]
    fn empty_damaged_and_hostile_input() {
        // Empty ring, bare header, zero fill: no records, nothing damaged.
        for b in [&[][..], &[0u8; 12][..], &[0u8; 4096][..]] {
            assert_eq!(parse_cper_ring(b), CperLog::default());
        }
        let good = amdgpu_record(2, notify_cmc(), section_nonstandard(), 0, "0:1", 1);
        // Truncated: the record runs past the end.
        let mut t = ring(std::slice::from_ref(&good));
        t.truncate(RING_HEADER + 200);
        let log = parse_cper_ring(&t);
        assert!(log.records.is_empty());
        assert!(
            log.damaged[0].contains("runs past the end"),
            "{:?}",
            log.damaged
        );
        // A length shorter than its own header; a bad signature_end; then a good record.
        let mut short = good.clone();
        short[20..24].copy_from_slice(&10u32.to_le_bytes());
        let mut bad_end = good.clone();
        bad_end[6] = 0;
        let log = parse_cper_ring(&ring(&[short, bad_end, good.clone()]));
        assert_eq!(log.records.len(), 1, "{log:?}");
        assert_eq!(log.damaged.len(), 2, "{:?}", log.damaged);
        // A section descriptor pointing outside the record decodes without its body.
        let mut wild = good.clone();
        wild[HDR_LEN..HDR_LEN + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let log = parse_cper_ring(&ring(&[wild]));
        assert_eq!(log.records[0].sections[0].aca_status, None);
        // An absurd section count is refused by the length check, not looped over.
        let mut many = good;
        many[10..12].copy_from_slice(&u16::MAX.to_le_bytes());
        assert_eq!(parse_cper_ring(&ring(&[many])).records.len(), 0);
        // Unknown GUIDs, severity and a bad timestamp are kept as such.
        let mut odd = amdgpu_record(7, [9; 16], [8; 16], 0, "x", 0);
        odd[28] = 0; // day 0
        let r = &parse_cper_ring(&ring(&[odd])).records[0];
        assert_eq!(r.severity, CperSeverity::Other(7));
        assert!(matches!(r.notify, CperNotify::Other(_)));
        assert!(matches!(r.sections[0].kind, CperSectionKind::Other(_)));
        assert_eq!(r.timestamp, None);
    }

    #[test]
    fn guid_byte_order() {
        assert_eq!(
            guid_text(&notify_mce()),
            "e8f56ffe-919c-4cc5-ba88-65abe14913bb"
        );
        assert_eq!(
            guid_text(&section_crashdump()),
            "32ac0c78-2623-48f6-b0d0-7365725fd6ae"
        );
    }
}
