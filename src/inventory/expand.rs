//! Machine paths with shell wildcards in any component (`/usr/lib/python3*/site-packages`,
//! `/etc/ld.so.conf.d/*.conf`), expanded through the rooted directory listings with the one
//! glob matcher (`crate::glob::matches`: a leading `.` only by a leading `.`, as glob(3)). No
//! `**`: the pack probes' bounded walker (`packs::probe`) is the one that descends.

use crate::host::Host;
use std::path::{Component, Path, PathBuf};

/// The paths `pattern` names: each component with a wildcard is matched against the listing
/// of the directories found so far (sorted); the other components are appended unchecked, so a
/// pattern without wildcards comes back as it is and callers test what they need (`is_dir`).
pub(crate) fn expand(host: &Host, pattern: &Path) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::new()];
    for c in pattern.components() {
        let comp = c.as_os_str().to_string_lossy();
        if !matches!(c, Component::Normal(_)) || !crate::glob::has_magic(&comp) {
            found.iter_mut().for_each(|p| p.push(c));
            continue;
        }
        found = found
            .iter()
            .flat_map(|dir| {
                host.fs
                    .list_names(dir)
                    .into_iter()
                    .filter(|n| crate::glob::matches(&comp, &n.to_string_lossy()))
                    .map(move |n| dir.join(n))
            })
            .collect();
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};
    use std::time::Duration;

    /// Sorted by name within a directory (`python3` before `python3.11`); `.python3.9` is not
    /// matched by `python3*`.
    #[test]
    fn wildcards_in_any_component() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        for d in [
            "usr/lib/python3.11/site-packages",
            "usr/lib/python3.12/site-packages",
            "usr/lib/python3/x",
            "usr/lib/.python3.9/site-packages",
        ] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        let host = Host::new(
            r.to_path_buf(),
            Env::from_pairs(std::iter::empty::<(&str, &str)>()),
            Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
        );
        assert_eq!(
            expand(&host, Path::new("/usr/lib/python3*/site-packages")),
            vec![
                PathBuf::from("/usr/lib/python3/site-packages"),
                PathBuf::from("/usr/lib/python3.11/site-packages"),
                PathBuf::from("/usr/lib/python3.12/site-packages"),
            ]
        );
        assert_eq!(
            expand(&host, Path::new("/usr/lib/python3.11")),
            vec![PathBuf::from("/usr/lib/python3.11")]
        );
        assert!(expand(&host, Path::new("/nowhere/*/x")).is_empty());
    }
}
