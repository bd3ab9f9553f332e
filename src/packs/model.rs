//! The pack file as written: serde structs with spans, nothing evaluated. docs/check-packs.md
//! documents every key; unknown keys are errors (`deny_unknown_fields`).

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPack {
    pub pack: RawMeta,
    #[serde(default)]
    pub check: Vec<RawCheck>,
    #[serde(default)]
    pub symptom: Vec<RawSymptom>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMeta {
    /// The namespace: every check id starts with `<name>.`.
    pub name: Spanned<String>,
    pub version: String,
    /// Who ships it, or where it comes from (a URL, a team).
    pub source: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCheck {
    pub id: Spanned<String>,
    #[serde(default)]
    pub category: Option<Spanned<String>>,
    pub title: String,
    pub what: String,
    pub why: String,
    pub fix: String,
    /// The default repair action of the check's warn and fail findings (`fix-config` when
    /// not written: a pack judges an installation).
    #[serde(default)]
    pub action: Option<crate::report::Action>,
    #[serde(default)]
    pub sources: Vec<String>,
    #[serde(default)]
    pub when: RawWhen,
    #[serde(default)]
    pub probe: Vec<RawProbe>,
    #[serde(default)]
    pub rule: Vec<RawRule>,
}

/// The profiles a pack names: the run's own type.
pub(crate) use crate::config::Profile;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWhen {
    #[serde(default)]
    pub profile: Vec<Profile>,
    /// `true`: only when KFD shows a GPU; `false`: only when it shows none.
    pub gpu: Option<bool>,
    /// Processor prefixes (`gfx9`, `gfx11`): at least one GPU must match one.
    #[serde(default)]
    pub isa_family: Vec<String>,
    /// A component (`rocm`, `hip`, `clang`, or a library name such as `amdhip64`) ...
    pub component: Option<Spanned<String>>,
    /// ... whose version is in this range (`>=6.0, <6.2`).
    pub versions: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ProbeKind {
    Env,
    File,
    Glob,
    Command,
    Fact,
    Library,
    Kfd,
    #[serde(rename = "code-objects")]
    CodeObjects,
    #[serde(rename = "python-package")]
    PythonPackage,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawProbe {
    pub name: Spanned<String>,
    pub kind: ProbeKind,
    /// env: the variable.
    pub var: Option<String>,
    /// file, glob: the machine path (rooted in --sysroot).
    pub path: Option<String>,
    /// file: read the contents (first 64 KiB) as the value.
    #[serde(default)]
    pub read: bool,
    /// command: program and arguments (a bare program name is looked up in PATH).
    pub argv: Option<Vec<String>>,
    /// command: seconds (default 10, at most 60; the run's --timeout also applies).
    pub timeout: Option<Spanned<f64>>,
    /// fact: one of the inventory facts (docs/check-packs.md).
    pub fact: Option<Spanned<String>>,
    /// library: `amdhip64`, `rocblas`, ... as the loader would find `lib<name>.so`.
    pub library: Option<String>,
    /// python-package: a top-level package name (`torch`).
    pub package: Option<String>,
    /// kfd: a key of the GPU nodes' `properties` files.
    pub property: Option<String>,
    /// code-objects: libraries (`rocblas`, `amdhip64`) whose device code is read, as the
    /// loader finds `lib<name>.so`.
    pub libraries: Option<Vec<String>>,
    /// The value must match this regex; its captures are usable in templates.
    pub regex: Option<Spanned<String>>,
    /// Split the value into tokens at any of these characters.
    pub split: Option<String>,
    /// Every token must be among another probe's tokens.
    pub subset_of: Option<Spanned<String>>,
    /// Every token of another probe must be among this one's.
    pub covers: Option<Spanned<String>>,
    /// Replace the tokens by their indices `0..n` (a count of devices as a set of ordinals).
    #[serde(default)]
    pub as_indices: bool,
}

/// A rule's verdict: the finding's own status (`error` is refused: it is the doctor's, not a
/// rule's).
pub(crate) use crate::report::Status;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRule {
    /// Terms that must all hold: `p`, `p.found`, `p.matched`, each may start with `!`.
    #[serde(default, rename = "if")]
    pub cond: Vec<Spanned<String>>,
    pub status: Spanned<Status>,
    pub message: Spanned<String>,
    #[serde(default)]
    pub fix: Option<Spanned<String>>,
    /// This rule's repair action, when it differs from the check's.
    #[serde(default)]
    pub action: Option<crate::report::Action>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSymptom {
    pub id: Spanned<String>,
    pub title: String,
    /// Regexes; any match in the pasted text recognises the symptom.
    pub patterns: Vec<Spanned<String>>,
    /// The message as the tool prints it.
    pub text: String,
    /// Where that text comes from (file and message id in the tool's source).
    pub source: String,
    pub cause: String,
    pub fix: String,
    /// Checks whose verdict confirms (warn/fail/error) or rules out (pass) the cause here.
    pub checks: Vec<Spanned<String>>,
    /// Checks whose `pass` is evidence against the cause (absent: any of `checks`; `[]`:
    /// none, the machine can only confirm). A pass of a check that only validates input (a
    /// target name) must not rule a cause out.
    #[serde(default)]
    pub rule_out_by: Option<Vec<Spanned<String>>>,
    /// Values captured from the text that the checks are run with.
    #[serde(default)]
    pub with: RawWith,
    /// The cause this symptom names: an id of `checks/causes.toml` (`gpu-kfd-permission`).
    /// Symptoms of one class are alternative ways the same cause shows.
    #[serde(default)]
    pub class: Option<Spanned<String>>,
    /// Regexes that must all match somewhere in the text as well: the detail that decides
    /// between causes sharing a headline (a group list, an ABI version, a processor name).
    #[serde(default)]
    pub needs: Vec<Spanned<String>>,
    /// Regexes any one of which, anywhere in the text, rules this symptom out (the text shows
    /// the cause is something else, or the fix was already applied).
    #[serde(default)]
    pub unless: Vec<Spanned<String>>,
    /// Order among the symptoms one text shows: higher first (default 50). A symptom that
    /// needs decisive detail outranks the headline-only one it refines.
    #[serde(default)]
    pub rank: Option<u8>,
    /// `runtime`: its checks run as under `--profile runtime`, so a machine without a GPU fails
    /// them (a "no GPU" message is then confirmed here, not skipped).
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Regexes over the summaries of its checks' warn/fail findings: only a matching one
    /// confirms this cause (a check that fails for several reasons, like `gpu.kfd` for EACCES
    /// and for a missing node, confirms only the cause its summary names). Empty: any.
    #[serde(default)]
    pub confirm_if: Vec<Spanned<String>>,
    /// A skip of its checks whose summary matches `confirm_if` confirms too: for a check that
    /// skips *because* of the cause's fact (`gpu.layers`: "no AMD GPU at any layer"). Needs
    /// `confirm_if`.
    #[serde(default)]
    pub confirm_skipped: bool,
    /// A named group of the patterns: the symptom is shown only when two matches capture
    /// different versions in it (neither a dotted prefix of the other) while their other named
    /// groups are equal: two releases of one library named in one text.
    #[serde(default)]
    pub differ: Option<Spanned<String>>,
}

/// `[symptom.with]`: which named capture group of the patterns feeds which run setting.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWith {
    /// A group holding a processor or target id (`gfx1200`): judged as an extra `--isa`.
    pub isa: Option<Spanned<String>>,
}
