//! Device visibility variables, applied the way the runtimes apply them.
//!
//! Order of application (a HIP program): ROCr filters and orders its GPU agents with
//! `ROCR_VISIBLE_DEVICES`; HIP (CLR) then filters and orders ROCr's agents with
//! `HIP_VISIBLE_DEVICES`, or `CUDA_VISIBLE_DEVICES` when the former is empty. `GPU_DEVICE_ORDINAL`
//! is read by CLR for OpenCL only.
//!
//! Sources (read, not copied):
//! - ROCr `runtime/hsa-runtime/core/runtime/amd_filter_device.cpp` (`RvdFilter`): tokens split on
//!   `,`, upper-cased and trimmed; a token starting with `G` is a UUID prefix (5..=20 chars,
//!   matched against `GPU-%016X` of the node's `unique_id`, `Invalid-UUID` when it is 0; more
//!   than one match ends the list); otherwise `strtol(token, &end, 0)` and the whole token must
//!   be consumed. The first invalid, out-of-range or repeated entry ends the list; only the
//!   first `number of GPUs` tokens are looked at. `core/util/flag.h`: the filter applies when the
//!   variable is *set*, so an empty value hides every GPU.
//! - CLR `rocclr/device/rocm/rocdevice.cpp` (`Device::init`): `HIP_VISIBLE_DEVICES` if non-empty,
//!   else `CUDA_VISIBLE_DEVICES`; an empty value means no filtering. Entries split on `,`; an
//!   entry containing `GPU-` is replaced by the index of the first agent whose HSA UUID contains
//!   it; the entry must then be exactly the decimal index (`atoi` round trip), in range; the
//!   first invalid entry ends the list; repeated entries are skipped.

/// Why ROCr's or HIP's list ended before its last entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    pub token: String,
    pub reason: String,
}

/// The result of applying one variable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    /// Indices into the input list, in the order the runtime exposes them.
    pub selected: Vec<usize>,
    /// Where parsing stopped, if it did.
    pub stop: Option<Stop>,
    /// Entries never looked at (ROCr reads at most as many entries as there are GPUs).
    pub ignored: Vec<String>,
    /// Repeated entries that were skipped (HIP).
    pub duplicates: Vec<String>,
}

/// ROCr's UUID string for a node: `GPU-` + 16 upper-case hex digits of `unique_id`.
pub(crate) fn rocr_uuid(unique_id: u64) -> String {
    if unique_id == 0 {
        "Invalid-UUID".to_string()
    } else {
        format!("GPU-{unique_id:016X}")
    }
}

/// The UUID string HIP compares against (`HSA_AMD_AGENT_INFO_UUID`): lower-case hex.
pub(crate) fn hsa_uuid(unique_id: u64) -> String {
    if unique_id == 0 {
        "GPU-XX".to_string()
    } else {
        format!("GPU-{unique_id:016x}")
    }
}

/// C `strtol(s, &end, 0)` with the requirement that the whole string is consumed.
fn strtol_base0_whole(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, h)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = i64::from_str_radix(digits, radix).ok()?;
    Some(if neg { -v } else { v })
}

/// Applies `ROCR_VISIBLE_DEVICES` (`None` = unset) to ROCr's GPU list, given each GPU's
/// `unique_id`.
pub fn apply_rocr(value: Option<&str>, unique_ids: &[u64]) -> Applied {
    let n = unique_ids.len();
    let Some(value) = value else {
        return Applied {
            selected: (0..n).collect(),
            ..Default::default()
        };
    };
    let mut out = Applied::default();
    if value.is_empty() {
        return out;
    }
    let uuids: Vec<String> = unique_ids.iter().map(|u| rocr_uuid(*u)).collect();
    // getline() does not produce a trailing empty token for a trailing separator.
    let mut tokens: Vec<String> = value
        .split(',')
        .map(|t| t.trim().to_ascii_uppercase())
        .collect();
    if value.ends_with(',') {
        tokens.pop();
    }
    for (i, token) in tokens.iter().enumerate() {
        if i >= n {
            out.ignored = tokens[i..].to_vec();
            break;
        }
        let stop = |reason: &str| {
            Some(Stop {
                token: token.clone(),
                reason: reason.to_string(),
            })
        };
        let idx = match token_index(token, &uuids, n) {
            Ok(i) => i,
            Err(reason) => {
                out.stop = stop(&reason);
                break;
            }
        };
        if out.selected.contains(&idx) {
            out.stop = stop("repeated entry (ROCr ends the list at a repeat)");
            break;
        }
        out.selected.push(idx);
    }
    out
}

/// One entry of ROCR_VISIBLE_DEVICES: the index of the GPU it names (a `GPU-` UUID prefix or a
/// number as `strtol(.., 0)` reads it), or why ROCr stops the list there.
fn token_index(token: &str, uuids: &[String], n: usize) -> Result<usize, String> {
    if token.is_empty() {
        return Err("empty entry".into());
    }
    if token.starts_with('G') {
        if !(5..=20).contains(&token.len()) {
            return Err(
                "a UUID entry must be 5 to 20 characters (GPU- and up to 16 hex digits)".into(),
            );
        }
        let hits: Vec<usize> = uuids
            .iter()
            .enumerate()
            .filter(|(_, u)| u.starts_with(token))
            .map(|(i, _)| i)
            .collect();
        return match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err("no GPU has this UUID".into()),
            _ => Err(
                "the UUID prefix matches more than one GPU (partitions of one \
                device share a unique_id)"
                    .into(),
            ),
        };
    }
    match strtol_base0_whole(token) {
        Some(v) if v >= 0 && (v as u64) < n as u64 => Ok(v as usize),
        Some(_) => Err(format!(
            "index out of range (ROCr sees {n} GPU(s): 0..{})",
            n.saturating_sub(1)
        )),
        None => Err("not an index or a GPU- UUID".into()),
    }
}

/// Which variable HIP reads: `HIP_VISIBLE_DEVICES` when non-empty, else `CUDA_VISIBLE_DEVICES`.
pub(crate) fn hip_variable<'a>(
    hip: Option<&'a str>,
    cuda: Option<&'a str>,
) -> Option<(&'static str, &'a str)> {
    match (hip, cuda) {
        (Some(h), _) if !h.is_empty() => Some(("HIP_VISIBLE_DEVICES", h)),
        (_, Some(c)) if !c.is_empty() => Some(("CUDA_VISIBLE_DEVICES", c)),
        _ => None,
    }
}

/// Applies HIP's ordinal list to the agents ROCr exposes (given their `unique_id`s in ROCr order).
pub fn apply_hip(value: Option<&str>, unique_ids: &[u64]) -> Applied {
    let n = unique_ids.len();
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Applied {
            selected: (0..n).collect(),
            ..Default::default()
        };
    };
    let uuids: Vec<String> = unique_ids.iter().map(|u| hsa_uuid(*u)).collect();
    let mut out = Applied::default();
    let mut pos = 0usize;
    while pos < value.len() {
        let end = value[pos..]
            .find(',')
            .map(|e| pos + e)
            .unwrap_or(value.len());
        let raw = &value[pos..end];
        let mut id = raw.to_string();
        if raw.contains("GPU-") {
            if let Some(i) = uuids.iter().position(|u| u.contains(raw)) {
                id = i.to_string();
            }
        }
        let ok = id
            .parse::<usize>()
            .ok()
            .filter(|i| *i < n && i.to_string() == id);
        match ok {
            None => {
                let reason = if raw.contains("GPU-") {
                    "no agent's UUID contains this text".to_string()
                } else if raw.is_empty() {
                    "empty entry".to_string()
                } else if id.parse::<usize>().is_ok_and(|i| i.to_string() == id) {
                    format!("index out of range (HIP sees {n} device(s) after ROCr's filter)")
                } else {
                    "not a plain decimal index or a GPU- UUID (no spaces, signs or leading zeros)"
                        .to_string()
                };
                out.stop = Some(Stop {
                    token: raw.to_string(),
                    reason,
                });
                break;
            }
            Some(i) => {
                if out.selected.contains(&i) {
                    out.duplicates.push(raw.to_string());
                } else {
                    out.selected.push(i);
                }
            }
        }
        pos = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDS: [u64; 3] = [0x1111, 0x2222, 0];

    #[test]
    fn rocr_unset_keeps_all_and_empty_hides_all() {
        assert_eq!(apply_rocr(None, &IDS).selected, vec![0, 1, 2]);
        assert!(apply_rocr(Some(""), &IDS).selected.is_empty());
    }

    #[test]
    fn rocr_orders_by_the_list_and_stops_at_the_first_bad_entry() {
        assert_eq!(apply_rocr(Some("2,0"), &IDS).selected, vec![2, 0]);
        let a = apply_rocr(Some("1, 7 ,0"), &IDS);
        assert_eq!(a.selected, vec![1]);
        assert_eq!(a.stop.unwrap().token, "7");
        let a = apply_rocr(Some("0,0,1"), &IDS);
        assert_eq!(a.selected, vec![0]);
        assert!(a.stop.unwrap().reason.contains("repeated"));
        assert_eq!(apply_rocr(Some("0,"), &IDS).selected, vec![0]);
        assert_eq!(apply_rocr(Some("0,,1"), &IDS).selected, vec![0]);
    }

    #[test]
    fn rocr_reads_c_integers_and_only_as_many_entries_as_gpus() {
        assert_eq!(apply_rocr(Some("0x1"), &IDS).selected, vec![1]);
        assert_eq!(apply_rocr(Some("02"), &IDS).selected, vec![2]);
        assert!(apply_rocr(Some("08"), &IDS).selected.is_empty());
        assert!(apply_rocr(Some("1a"), &IDS).selected.is_empty());
        let a = apply_rocr(Some("0,1,2,5"), &IDS);
        assert_eq!(a.selected, vec![0, 1, 2]);
        assert_eq!(a.ignored, vec!["5"]);
    }

    #[test]
    fn rocr_uuid_prefixes() {
        assert_eq!(rocr_uuid(0x2222), "GPU-0000000000002222");
        assert_eq!(
            apply_rocr(Some("gpu-0000000000002222"), &IDS).selected,
            vec![1]
        );
        // "GPU-0" is a prefix of both non-zero ids: ambiguous, the list ends.
        let a = apply_rocr(Some("GPU-0"), &IDS);
        assert!(a.selected.is_empty());
        assert!(a.stop.unwrap().reason.contains("more than one"));
        assert!(apply_rocr(Some("GPU"), &IDS)
            .stop
            .unwrap()
            .reason
            .contains("5 to 20"));
        assert!(apply_rocr(Some("GPU-FFFF"), &IDS)
            .stop
            .unwrap()
            .reason
            .contains("no GPU"));
    }

    #[test]
    fn hip_prefers_hip_over_cuda_and_empty_means_all() {
        assert_eq!(
            hip_variable(Some("1"), Some("0")),
            Some(("HIP_VISIBLE_DEVICES", "1"))
        );
        assert_eq!(
            hip_variable(Some(""), Some("0")),
            Some(("CUDA_VISIBLE_DEVICES", "0"))
        );
        assert_eq!(hip_variable(None, None), None);
        assert_eq!(apply_hip(Some(""), &IDS).selected, vec![0, 1, 2]);
    }

    #[test]
    fn hip_is_strict_decimal_and_skips_repeats() {
        assert_eq!(apply_hip(Some("2,1"), &IDS).selected, vec![2, 1]);
        let a = apply_hip(Some("1,1,0"), &IDS);
        assert_eq!(a.selected, vec![1, 0]);
        assert_eq!(a.duplicates, vec!["1"]);
        assert!(apply_hip(Some(" 1"), &IDS).selected.is_empty());
        assert!(apply_hip(Some("01"), &IDS).selected.is_empty());
        assert_eq!(apply_hip(Some("0x1"), &IDS).selected, Vec::<usize>::new());
        let a = apply_hip(Some("0,3"), &IDS);
        assert_eq!(a.selected, vec![0]);
        assert!(a.stop.unwrap().reason.contains("out of range"));
        assert!(apply_hip(Some(",0"), &IDS).selected.is_empty());
    }

    #[test]
    fn hip_uuid_substring() {
        assert_eq!(
            apply_hip(Some("GPU-0000000000002222"), &IDS).selected,
            vec![1]
        );
        assert!(apply_hip(Some("GPU-dead"), &IDS).selected.is_empty());
    }
}
