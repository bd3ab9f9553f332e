//! Rules over the device-node facts of a text (issue 28, item 4). Pure.
//!
//! - "the GPU's device nodes belong to a group the container does not know": `ls -l` of
//!   /dev/kfd or a render node printing the owning group as a number, in a container or pod
//!   whose user is not root. `ls` prints a group's number where the system's group database has
//!   no name for it (GNU coreutils `ls`, "-n: numeric user and group IDs", the fallback for an id
//!   without a name); inside a container that database is the image's, so the host's render (or
//!   video) group that owns the nodes has no name there and no user of the image is in it.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{line_of, re, rule_symptom, Derived, Facts, Platform};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

/// "The GPU's device nodes belong to a group the container does not know": `ls -l` of /dev/kfd
/// or /dev/dri/renderD* with a numeric group, in a container or pod (a platform fact, or the
/// text says so), run by a user who is not root (root opens the nodes whatever their group).
/// The fix is the group's number as a supplementary group of the container's user: Docker's
/// `--group-add <gid>` (AMD, "Running ROCm Docker containers": the video and render groups),
/// Kubernetes' `securityContext.supplementalGroups` (kubernetes.io, "Configure a Security
/// Context for a Pod or Container"); ROCm/k8s-device-plugin#39, where adding the gid there let
/// the pod use the GPU.
fn numeric_group(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static LS: OnceLock<Regex> = OnceLock::new();
    static INSIDE: OnceLock<Regex> = OnceLock::new();
    static NONROOT: OnceLock<Regex> = OnceLock::new();
    let ls = re(
        &LS,
        concat!(
            r"(?m)^\s*c[rwxs-]{9}[.+]?\s+\d+\s+\S+\s+(\d+)\s+\d+,\s*\d+\s[^\n]*",
            r"(/dev/(?:kfd|dri/renderD\d+))",
        ),
    );
    let c = ls.captures(text)?;
    let (gid, node) = (c[1].to_string(), c[2].to_string());
    let inside = f.on(Platform::Container)
        || f.on(Platform::Kubernetes)
        || re(
            &INSIDE,
            r"(?i)\bcontainers?\b|\bpods?\b|\bk8s\b|\bkubernetes\b|\bLXD\b|\bLXC\b",
        )
        .is_match(text);
    let nonroot = re(
        &NONROOT,
        r"(?i)unprivil|non-?root|\bnobody\b|runAsUser|Permission denied|\bEACCES\b",
    );
    if !inside || !nonroot.is_match(text) {
        return None;
    }
    let line = line_of(text, ls)?;
    let sy = S.get_or_init(|| {
        rule_symptom(
            "devgroups.numeric-group",
            "the GPU's device nodes belong to a host group the container does not know",
            "gpu-container-devices",
            "The container has /dev/kfd and the render node, but their group is the host's \
             render (or video) group, which has no name in the container's image: its user is \
             not in that group, so a program not run as root cannot open the GPU.",
            "Give the container's user the group by its number: `docker run --group-add <gid>` \
             (or compose's group_add), Kubernetes' securityContext.supplementalGroups: [<gid>] \
             in the pod spec; or run the program as root.",
            "rule over the device-node facts of the text (src/packs/devgroups.rs)",
        )
    });
    Some(
        Derived::reasoned(
            sy,
            line,
            format!(
                "{node} is owned by group {gid}, a number without a name in the container, and \
                 the program runs as a user that is not root: add group {gid} to that user \
                 ({FROM})"
            ),
        )
        .overruling(&["gpu-kfd-permission"]),
    )
}

/// The rules of this module that fire on a text.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    numeric_group(text, f).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        rules(text, &Facts::of(text))
            .into_iter()
            .map(|d| d.symptom.id.clone())
            .collect()
    }

    #[test]
    fn a_numeric_group_on_the_gpu_nodes_in_a_container_is_the_missing_group() {
        let t = "running the pod as user nobody\nroot@job-pod:/# ls -l /dev/kfd\ncrw-rw---- 1 \
                 root 106 242, 0 Apr 18 15:58 /dev/kfd\n";
        let d = rules(t, &Facts::of(t));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].symptom.class.as_deref(), Some("gpu-container-devices"));
        let r = &d[0].captures[0].1;
        assert!(r.contains("group 106"), "{r}");
        let docker = "docker run --device=/dev/dri --device=/dev/kfd -u 1000 img\n$ ls -l \
                      /dev/dri/renderD128\ncrw-rw---- 1 root 993 226, 128 Jan 1 \
                      /dev/dri/renderD128\n\
                      hipErrorNoDevice ... Permission denied\n";
        assert_eq!(ids(docker), ["devgroups.numeric-group"]);
    }

    #[test]
    fn named_groups_a_host_or_root_are_not_this_rule() {
        // The group has a name: the container knows it.
        let named = "in the container, user nobody:\ncrw-rw---- 1 root render 242, 0 Apr 18 \
                     /dev/kfd\n";
        assert!(ids(named).is_empty());
        // Not a container.
        let host = "non-root user\ncrw-rw---- 1 root 106 242, 0 Apr 18 /dev/kfd\n";
        assert!(ids(host).is_empty());
        // Root in the container opens it whatever the group.
        let root = "docker run --device=/dev/kfd img\ncrw-rw---- 1 root 106 242, 0 Apr 18 \
                    /dev/kfd\n";
        assert!(ids(root).is_empty());
    }
}
