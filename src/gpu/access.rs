//! Whether a process may open a device node read-write: owner/group/other mode bits and POSIX
//! ACLs, decided from numeric ids (inside containers, group *names* lie).
//!
//! The ACL rules follow acl(5) "ACCESS CHECK ALGORITHM": owner entry, then named-user entries
//! (masked), then the owning group and named groups (masked; access if any matching entry grants
//! it, denied if some matched but none grants), then other. uid 0 is granted (CAP_DAC_OVERRIDE).

use serde::Serialize;

/// The identity an access is judged for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Credentials {
    pub uid: u32,
    pub gid: u32,
    /// Supplementary groups (the effective gid is added when checking).
    pub groups: Vec<u32>,
}

impl Credentials {
    pub(crate) fn in_group(&self, g: u32) -> bool {
        self.gid == g || self.groups.contains(&g)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AclTag {
    UserObj,
    User,
    GroupObj,
    Group,
    Mask,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AclEntry {
    pub tag: AclTag,
    /// For named users and groups.
    pub id: Option<u32>,
    /// rwx bits (4 read, 2 write, 1 execute).
    pub perm: u8,
}

/// Parses the short text form `user::rw-`, `group:44:rw`, `mask::rw`, `other::---`.
pub fn parse_acl_text(entries: &[String]) -> Result<Vec<AclEntry>, String> {
    let mut out = Vec::new();
    for e in entries {
        let parts: Vec<&str> = e.split(':').collect();
        let [tag, id, perm] = parts.as_slice() else {
            return Err(format!("ACL entry '{e}' is not tag:id:perm"));
        };
        let id = if id.is_empty() {
            None
        } else {
            Some(
                id.parse::<u32>()
                    .map_err(|_| format!("ACL entry '{e}': id must be numeric"))?,
            )
        };
        let tag = match (*tag, id.is_some()) {
            ("user" | "u", false) => AclTag::UserObj,
            ("user" | "u", true) => AclTag::User,
            ("group" | "g", false) => AclTag::GroupObj,
            ("group" | "g", true) => AclTag::Group,
            ("mask" | "m", false) => AclTag::Mask,
            ("other" | "o", false) => AclTag::Other,
            _ => return Err(format!("ACL entry '{e}': unknown tag")),
        };
        let mut bits = 0u8;
        for c in perm.chars() {
            bits |= match c {
                'r' => 4,
                'w' => 2,
                'x' => 1,
                '-' => 0,
                _ => return Err(format!("ACL entry '{e}': bad permission '{c}'")),
            };
        }
        out.push(AclEntry {
            tag,
            id,
            perm: bits,
        });
    }
    Ok(out)
}

/// Parses the kernel's `system.posix_acl_access` xattr value (version 2 header, then
/// `{u16 tag, u16 perm, u32 id}` little-endian entries; `include/uapi/linux/posix_acl_xattr.h`).
pub fn parse_acl_xattr(bytes: &[u8]) -> Option<Vec<AclEntry>> {
    let header = bytes.get(0..4)?;
    if u32::from_le_bytes(header.try_into().ok()?) != 2 {
        return None;
    }
    let body = &bytes[4..];
    if body.len() % 8 != 0 {
        return None;
    }
    let mut out = Vec::new();
    for chunk in body.chunks_exact(8) {
        let tag = u16::from_le_bytes([chunk[0], chunk[1]]);
        let perm = u16::from_le_bytes([chunk[2], chunk[3]]) as u8 & 7;
        let id = u32::from_le_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]);
        let (tag, id) = match tag {
            0x01 => (AclTag::UserObj, None),
            0x02 => (AclTag::User, Some(id)),
            0x04 => (AclTag::GroupObj, None),
            0x08 => (AclTag::Group, Some(id)),
            0x10 => (AclTag::Mask, None),
            0x20 => (AclTag::Other, None),
            _ => return None,
        };
        out.push(AclEntry { tag, id, perm });
    }
    Some(out)
}

/// How access was granted or why it is denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    Granted(String),
    /// Denied; `groups_that_grant` are gids whose membership would grant access.
    Denied {
        reason: String,
        groups_that_grant: Vec<u32>,
    },
}

impl Decision {
    pub(crate) fn granted(&self) -> bool {
        matches!(self, Decision::Granted(_))
    }
}

/// Read and write permission bits.
const RW: u8 = 6;

/// The ACL's decision (acl(5), "ACCESS CHECK ALGORITHM"), after the owner: a named user
/// entry, else the group entries the caller is in, each through the mask; None when no entry
/// matches (the other bits decide). Groups whose entry would grant rw are added to
/// `grant_groups`.
fn decide_by_acl(
    cred: &Credentials,
    gid: u32,
    entries: &[AclEntry],
    grant_groups: &mut Vec<u32>,
) -> Option<Decision> {
    let ok = |p: u8| p & RW == RW;
    let mask = entries
        .iter()
        .find(|e| e.tag == AclTag::Mask)
        .map(|e| e.perm)
        .unwrap_or(7);
    if let Some(e) = entries
        .iter()
        .find(|e| e.tag == AclTag::User && e.id == Some(cred.uid))
    {
        return Some(if ok(e.perm & mask) {
            Decision::Granted(format!("ACL entry user:{}", cred.uid))
        } else {
            Decision::Denied {
                reason: format!("ACL entry user:{} lacks rw after the mask", cred.uid),
                groups_that_grant: vec![],
            }
        });
    }
    let mut matched = false;
    for e in entries {
        let g = match e.tag {
            AclTag::GroupObj => gid,
            AclTag::Group => e.id.unwrap_or(u32::MAX),
            _ => continue,
        };
        if ok(e.perm & mask) {
            grant_groups.push(g);
        }
        if cred.in_group(g) {
            matched = true;
            if ok(e.perm & mask) {
                return Some(Decision::Granted(format!("ACL group entry for gid {g}")));
            }
        }
    }
    matched.then(|| Decision::Denied {
        reason: "the matching ACL group entries lack rw after the mask".into(),
        groups_that_grant: grant_groups.clone(),
    })
}

/// Decides read-write access to a node with `mode` (permission bits), owner `uid:gid` and an
/// optional ACL.
pub(crate) fn decide_rw(
    cred: &Credentials,
    mode: u32,
    uid: u32,
    gid: u32,
    acl: Option<&[AclEntry]>,
) -> Decision {
    let ok = |p: u8| p & RW == RW;
    if cred.uid == 0 {
        return Decision::Granted("uid 0 (root) bypasses permission bits".into());
    }
    let owner = ((mode >> 6) & 7) as u8;
    let group = ((mode >> 3) & 7) as u8;
    let other = (mode & 7) as u8;
    let acl = acl.filter(|a| {
        a.iter()
            .any(|e| matches!(e.tag, AclTag::User | AclTag::Group | AclTag::Mask))
    });
    if cred.uid == uid {
        return if ok(owner) {
            Decision::Granted(format!("owner uid {uid} has rw"))
        } else {
            Decision::Denied {
                reason: format!("owner uid {uid} lacks rw (mode {mode:04o})"),
                groups_that_grant: vec![],
            }
        };
    }
    let mut grant_groups = Vec::new();
    match acl {
        None => {
            if ok(group) {
                grant_groups.push(gid);
            }
            if cred.in_group(gid) {
                return if ok(group) {
                    Decision::Granted(format!("member of owning group {gid}"))
                } else {
                    Decision::Denied {
                        reason: format!("owning group {gid} lacks rw (mode {mode:04o})"),
                        groups_that_grant: vec![],
                    }
                };
            }
        }
        Some(entries) => {
            if let Some(d) = decide_by_acl(cred, gid, entries, &mut grant_groups) {
                return d;
            }
        }
    }
    if ok(other) {
        return Decision::Granted(format!("mode {mode:04o} grants rw to everyone"));
    }
    grant_groups.sort_unstable();
    grant_groups.dedup();
    Decision::Denied {
        reason: format!(
            "uid {} is not the owner ({uid}) and in none of the groups with rw; mode {mode:04o} \
             gives others no rw",
            cred.uid
        ),
        groups_that_grant: grant_groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(groups: &[u32]) -> Credentials {
        Credentials {
            uid: 1000,
            gid: 1000,
            groups: groups.to_vec(),
        }
    }

    #[test]
    fn mode_bits() {
        assert!(decide_rw(&user(&[]), 0o666, 0, 992, None).granted());
        assert!(decide_rw(&user(&[992]), 0o660, 0, 992, None).granted());
        match decide_rw(&user(&[44]), 0o660, 0, 992, None) {
            Decision::Denied {
                groups_that_grant, ..
            } => assert_eq!(groups_that_grant, vec![992]),
            d => panic!("{d:?}"),
        }
        // In the group but the group has no write bit.
        assert!(!decide_rw(&user(&[992]), 0o640, 0, 992, None).granted());
        // Owner bits win over other bits.
        assert!(!decide_rw(
            &Credentials {
                uid: 5,
                gid: 5,
                groups: vec![]
            },
            0o066,
            5,
            992,
            None
        )
        .granted());
        assert!(decide_rw(
            &Credentials {
                uid: 0,
                gid: 0,
                groups: vec![]
            },
            0o000,
            1,
            1,
            None
        )
        .granted());
        // The effective gid counts as a group.
        assert!(decide_rw(
            &Credentials {
                uid: 7,
                gid: 992,
                groups: vec![]
            },
            0o660,
            0,
            992,
            None
        )
        .granted());
    }

    #[test]
    fn acls_named_entries_and_mask() {
        let acl = parse_acl_text(&[
            "user::rw-".into(),
            "user:1000:rw-".into(),
            "group::rw-".into(),
            "mask::rw-".into(),
            "other::---".into(),
        ])
        .unwrap();
        assert!(decide_rw(&user(&[]), 0o660, 0, 992, Some(&acl)).granted());
        let masked = parse_acl_text(&[
            "user::rw".into(),
            "user:1000:rw".into(),
            "group::rw".into(),
            "mask::r".into(),
            "other::".into(),
        ])
        .unwrap();
        assert!(!decide_rw(&user(&[]), 0o640, 0, 992, Some(&masked)).granted());
        let grp = parse_acl_text(&[
            "user::rw".into(),
            "group::rw".into(),
            "group:44:rw".into(),
            "mask::rw".into(),
            "other::".into(),
        ])
        .unwrap();
        assert!(decide_rw(&user(&[44]), 0o660, 0, 992, Some(&grp)).granted());
        match decide_rw(&user(&[]), 0o660, 0, 992, Some(&grp)) {
            Decision::Denied {
                groups_that_grant, ..
            } => assert_eq!(groups_that_grant, vec![44, 992]),
            d => panic!("{d:?}"),
        }
        assert!(parse_acl_text(&["bogus".into()]).is_err());
        assert!(parse_acl_text(&["group:video:rw".into()]).is_err());
    }

    #[test]
    fn acl_xattr_binary_form() {
        let mut b = 2u32.to_le_bytes().to_vec();
        for (tag, perm, id) in [
            (1u16, 6u16, u32::MAX),
            (2, 6, 1000),
            (4, 6, u32::MAX),
            (0x10, 6, u32::MAX),
            (0x20, 0, u32::MAX),
        ] {
            b.extend(tag.to_le_bytes());
            b.extend(perm.to_le_bytes());
            b.extend(id.to_le_bytes());
        }
        let acl = parse_acl_xattr(&b).unwrap();
        assert_eq!(
            acl[1],
            AclEntry {
                tag: AclTag::User,
                id: Some(1000),
                perm: 6
            }
        );
        assert!(decide_rw(&user(&[]), 0o660, 0, 992, Some(&acl)).granted());
        assert!(parse_acl_xattr(&b[..7]).is_none());
        assert!(parse_acl_xattr(&[1, 0, 0, 0]).is_none());
    }
}
