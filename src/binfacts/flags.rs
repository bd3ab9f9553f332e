//! The flags a file (or a Tensile directory) can set for the known issues: one typed value
//! from the reader to the condition; its text (`file.ccob`, ...) is what
//! `checks/known-issues.toml` writes and what the packs' `code-objects` probe lists.

use super::file::FileReport;
use crate::codeobj::ccob::Method;
use std::collections::BTreeSet;
use std::fmt;

/// A fact about a file or directory that a known issue can ask for.
/// Ordered by name, as the text flags were (the probe's evidence lists them in that order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Flag {
    /// An offload bundle that is not compressed.
    UncompressedBundle,
    /// A compressed offload bundle (CCOB).
    Ccob,
    /// A CCOB of format version 3.
    CcobV3,
    /// A CCOB whose compressed bytes contain the bundle magic.
    CcobMagicInside,
    /// A zlib CCOB that does not decompress or whose hash does not match.
    CcobZlibBroken,
    /// A rocBLAS whose Tensile library is missing or empty where its loader looks.
    TensileMissing,
}

impl Flag {
    /// Every flag, in the order the table's did-you-mean lists them.
    pub(crate) const ALL: &'static [Flag] = &[
        Flag::UncompressedBundle,
        Flag::Ccob,
        Flag::CcobV3,
        Flag::CcobMagicInside,
        Flag::CcobZlibBroken,
        Flag::TensileMissing,
    ];

    /// The name the known-issues table writes.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Flag::UncompressedBundle => "file.uncompressed-bundle",
            Flag::Ccob => "file.ccob",
            Flag::CcobV3 => "file.ccob-v3",
            Flag::CcobMagicInside => "file.ccob-magic-inside",
            Flag::CcobZlibBroken => "file.ccob-zlib-broken",
            Flag::TensileMissing => "dir.tensile-missing",
        }
    }

    /// Whether the flag is read from the file itself (a `dir.*` flag needs the directory
    /// around it).
    pub(crate) fn of_file(self) -> bool {
        self != Flag::TensileMissing
    }

    pub(crate) fn parse(s: &str) -> Option<Flag> {
        Flag::ALL.iter().copied().find(|f| f.as_str() == s)
    }
}

impl Ord for Flag {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Flag {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The flags a file report sets.
pub(crate) fn file_flags(r: &FileReport) -> BTreeSet<Flag> {
    let mut f = BTreeSet::new();
    if r.uncompressed_bundles() > 0 {
        f.insert(Flag::UncompressedBundle);
    }
    for b in r.ccob_bundles() {
        f.insert(Flag::Ccob);
        if let Some(c) = &b.ccob {
            if c.version == 3 {
                f.insert(Flag::CcobV3);
            }
            if c.magic_inside {
                f.insert(Flag::CcobMagicInside);
            }
            if c.method == Method::Zlib && (b.error.is_some() || c.hash_ok == Some(false)) {
                f.insert(Flag::CcobZlibBroken);
            }
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_reads_back_from_its_name_and_only_dir_flags_need_a_directory() {
        for f in Flag::ALL {
            assert_eq!(Flag::parse(f.as_str()), Some(*f));
            assert_eq!(f.of_file(), f.as_str().starts_with("file."), "{f}");
        }
        assert_eq!(Flag::parse("file.cc0b"), None);
        // Sets list flags by name, as the text flags did (the probe's evidence shows them).
        let set: BTreeSet<Flag> = [Flag::UncompressedBundle, Flag::CcobV3, Flag::Ccob].into();
        let names: Vec<&str> = set.iter().map(|f| f.as_str()).collect();
        assert_eq!(
            names,
            ["file.ccob", "file.ccob-v3", "file.uncompressed-bundle"]
        );
    }
}
