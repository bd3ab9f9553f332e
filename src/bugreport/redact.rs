//! Redaction of user names and host names: pure string work, no I/O (the names are gathered
//! by `bugreport::gather` through the `Host`).
//!
//! Rules (docs/report.md, "Redaction"):
//! - every `/home/<name>` path component becomes `/home/<user>`, whatever the name (a home
//!   directory's name is a user name, known or not);
//! - each known user name and host name is replaced where it stands as a whole word: the
//!   characters around it must not be ASCII letters, digits or `_` (so `bob` in `bobcat` or
//!   `gfx_bob` stays, `bob` in `bob-laptop` or `bob@node` goes);
//! - a name is replaced as a bare word only when it is *specific*: at least
//!   [`MIN_BARE_LEN`] characters and not a common word ([`GENERIC`]): a user named `root` or
//!   `ci` would otherwise mangle `/root`, "root filesystem", "ROCm root" or `hipcc`;
//! - longer names first, so a host `alice-ws` becomes `<host>` and not `<user>-ws`; a host name
//!   equal to a user name is replaced as `<user>` (one label for one string), ignoring case
//!   as host names are;
//! - user names match exactly (Linux user names are case-sensitive, useradd(8)), host names
//!   ignoring ASCII case (DNS names are case-insensitive, RFC 4343);
//! - IPv4 addresses are *not* redacted: the report holds findings, versions and a fixed list
//!   of GPU variables (no proxy or SSH variables), and a dotted-quad pattern would also hit
//!   four-part version numbers (`1.0.0.0`), which the report exists to carry.

/// What a user name is replaced with.
pub const USER: &str = "<user>";
/// What a host name is replaced with.
pub const HOST: &str = "<host>";

/// Names shorter than this are replaced only as `/home/<name>` components.
pub const MIN_BARE_LEN: usize = 3;

/// Common words that are also user or host names: replaced only as `/home/<name>` components,
/// never as bare words (they are part of ordinary text, paths and tool names).
pub const GENERIC: &[&str] = &[
    "root",
    "admin",
    "administrator",
    "user",
    "users",
    "guest",
    "nobody",
    "daemon",
    "test",
    "build",
    "builder",
    "runner",
    "docker",
    "ubuntu",
    "debian",
    "fedora",
    "centos",
    "rocky",
    "arch",
    "nixos",
    "home",
    "host",
    "localhost",
    "localdomain",
    "localhost.localdomain",
    "linux",
    "amd",
    "rocm",
    "gpu",
    "node",
    "server",
    "jenkins",
    "gitlab-runner",
    "github",
    "vagrant",
    "pi",
];

/// Whether `name` is replaced as a bare word (see the module rules).
pub fn is_specific(name: &str) -> bool {
    name.chars().count() >= MIN_BARE_LEN
        && !GENERIC.iter().any(|g| g.eq_ignore_ascii_case(name))
        && !name.chars().all(|c| c.is_ascii_digit())
}

#[derive(Debug, Clone)]
struct Name {
    text: String,
    label: &'static str,
    ignore_case: bool,
}

/// Replaces user and host names in text. [`Redactor::off`] leaves text unchanged
/// (`--no-redact`).
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    on: bool,
    /// Specific names, longest first.
    names: Vec<Name>,
}

impl Redactor {
    /// A redactor for these user names and host names (empty, blank and duplicate entries are
    /// dropped; a host name that is also a user name counts as a user name). A host name's
    /// first label (`node7` of `node7.cluster.example.org`) is a name too.
    pub fn new<U, H>(users: U, hosts: H) -> Self
    where
        U: IntoIterator,
        U::Item: AsRef<str>,
        H: IntoIterator,
        H::Item: AsRef<str>,
    {
        let mut names: Vec<Name> = Vec::new();
        let mut add = |text: &str, label: &'static str, ignore_case: bool| {
            let text = text.trim();
            if !is_specific(text) || text.contains(['\n', '\r']) {
                return;
            }
            let dup = names.iter_mut().find(|n| {
                n.text == text
                    || (n.ignore_case || ignore_case) && n.text.eq_ignore_ascii_case(text)
            });
            if let Some(n) = dup {
                // A host name that is also a user name keeps the user label and the host's
                // case-insensitive match.
                n.ignore_case |= ignore_case;
            } else {
                names.push(Name {
                    text: text.to_string(),
                    label,
                    ignore_case,
                });
            }
        };
        for u in users {
            add(u.as_ref(), USER, false);
        }
        for h in hosts {
            let h = h.as_ref().trim();
            add(h, HOST, true);
            if let Some((first, _)) = h.split_once('.') {
                add(first, HOST, true);
            }
        }
        // Longest first: a longer name containing a shorter one is replaced whole.
        names.sort_by_key(|n| std::cmp::Reverse(n.text.len()));
        Redactor { on: true, names }
    }

    /// No redaction at all.
    pub fn off() -> Self {
        Redactor {
            on: false,
            names: Vec::new(),
        }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    /// The text with `/home/<name>` components and the known names replaced.
    pub fn apply(&self, text: &str) -> String {
        if !self.on {
            return text.to_string();
        }
        self.names_replaced(&home_components_replaced(text))
    }

    /// Redacts a string in place.
    pub fn in_place(&self, s: &mut String) {
        if self.on {
            *s = self.apply(s);
        }
    }

    fn names_replaced(&self, text: &str) -> String {
        if self.names.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        'scan: while i < text.len() {
            let prev = text[..i].chars().next_back();
            if !prev.is_some_and(is_word_char) {
                for n in &self.names {
                    let end = i + n.text.len();
                    let Some(cand) = text.get(i..end) else {
                        continue;
                    };
                    let same = if n.ignore_case {
                        cand.eq_ignore_ascii_case(&n.text)
                    } else {
                        cand == n.text
                    };
                    if same && !text[end..].chars().next().is_some_and(is_word_char) {
                        out.push_str(n.label);
                        i = end;
                        continue 'scan;
                    }
                }
            }
            let c = text[i..].chars().next().expect("i is a char boundary");
            out.push(c);
            i += c.len_utf8();
        }
        out
    }
}

/// Letters, digits (any script) and `_`: a name next to one of these is part of a longer word.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Characters that end a path component in running text: the separator, white space, and the
/// punctuation that surrounds or separates paths in evidence and variables (`PATH=a:b`,
/// `'path'`, `(path)`, `path,`).
fn ends_component(c: char) -> bool {
    c == '/'
        || c.is_whitespace()
        || matches!(
            c,
            ':' | ';' | ',' | '\'' | '"' | '`' | '(' | ')' | '[' | ']' | '<' | '>' | '|' | '='
        )
}

/// Every `/home/<name>` component (at any depth: `/var/home/<name>` on Fedora Atomic too)
/// becomes `/home/<user>`.
pub fn home_components_replaced(text: &str) -> String {
    const HOME: &str = "/home/";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HOME) {
        let start = at + HOME.len();
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let len = tail.find(ends_component).unwrap_or(tail.len());
        if len == 0 || &tail[..len] == USER {
            rest = tail;
            continue;
        }
        out.push_str(USER);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(users: &[&str], hosts: &[&str]) -> Redactor {
        Redactor::new(users.iter().copied(), hosts.iter().copied())
    }

    #[test]
    fn home_components_whatever_the_name() {
        let t = "HIP_PATH=/home/alice/rocm:/home/bob/x /var/home/carol\n/home/dave";
        assert_eq!(
            home_components_replaced(t),
            "HIP_PATH=/home/<user>/rocm:/home/<user>/x /var/home/<user>\n/home/<user>"
        );
        // Nothing after /home/, an already redacted one, and `home` inside another word.
        assert_eq!(
            home_components_replaced("/home/ /home/<user>/a"),
            "/home/ /home/<user>/a"
        );
        assert_eq!(
            home_components_replaced("/myhome/eve /homes/eve"),
            "/myhome/eve /homes/eve"
        );
        // Non-ASCII names are whole components too.
        assert_eq!(
            home_components_replaced("'/home/zoë/é'"),
            "'/home/<user>/é'"
        );
    }

    #[test]
    fn a_name_inside_another_word_stays() {
        let red = r(&["bob"], &[]);
        assert_eq!(
            red.apply("bobcat bob gfx_bob bob2 abob"),
            "bobcat <user> gfx_bob bob2 abob"
        );
        assert_eq!(
            red.apply("bob-laptop bob@node (bob)"),
            "<user>-laptop <user>@node (<user>)"
        );
        assert_eq!(red.apply("bob"), "<user>");
    }

    #[test]
    fn short_and_generic_names_only_as_home_components() {
        let red = r(&["root", "al", "Admin", "1000"], &["localhost", "pi"]);
        assert_eq!(
            red.apply("ROCm root /root al admin localhost uid 1000 /home/al/x /home/root"),
            "ROCm root /root al admin localhost uid 1000 /home/<user>/x /home/<user>"
        );
    }

    #[test]
    fn regex_special_characters_are_literal() {
        let red = r(&["a.b+c"], &["h(o)st$"]);
        assert_eq!(
            red.apply("a.b+c axbbc h(o)st$ hoost"),
            "<user> axbbc <host> hoost"
        );
        let red = r(&["j.doe"], &[]);
        assert_eq!(
            red.apply("j.doe jxdoe j.doe.old"),
            "<user> jxdoe <user>.old"
        );
    }

    #[test]
    fn host_equal_to_user_is_one_name() {
        let red = r(&["alice"], &["alice", "ALICE"]);
        assert_eq!(red.apply("alice ALICE"), "<user> <user>");
        // Host names ignore case, user names do not.
        let red = r(&["alice"], &["Workstation7"]);
        assert_eq!(
            red.apply("workstation7 WORKSTATION7 Alice"),
            "<host> <host> Alice"
        );
    }

    #[test]
    fn longer_names_first() {
        let red = r(&["alice"], &["alice-ws.lab.example.org"]);
        assert_eq!(
            red.apply("alice-ws.lab.example.org alice-ws alice"),
            "<host> <host> <user>"
        );
    }

    #[test]
    fn fqdn_first_label_is_a_name() {
        let red = r(&[] as &[&str], &["node7.cluster.example.org"]);
        assert_eq!(red.apply("node7 kernel: amdgpu"), "<host> kernel: amdgpu");
    }

    #[test]
    fn off_changes_nothing() {
        let red = Redactor::off();
        assert!(!red.is_on());
        assert_eq!(red.apply("/home/alice alice"), "/home/alice alice");
    }

    #[test]
    fn multibyte_text_around_names() {
        let red = r(&["ålice"], &[]);
        assert_eq!(red.apply("→ålice← xålice ålicé"), "→<user>← xålice ålicé");
        let red = r(&["alic"], &[]);
        assert_eq!(red.apply("alicé alic"), "alicé <user>");
    }
}
