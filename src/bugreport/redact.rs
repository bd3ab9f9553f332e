//! Redaction of user names and host names: pure string work, no I/O (the names are gathered
//! by `bugreport::gather_with_log` through the `Host`).
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

//!
//! Secrets (issue 25, item 6) are scrubbed by value as well as by name, always (`--no-redact`
//! keeps user and host names, never secrets), in every string of the report
//! ([`scrub_secrets`]):
//! - the user information of a URL (`https://user:pass@host/`, `https://TOKEN@host/`) becomes
//!   `<redacted>`: pip does the same for index URLs in its logs (`redact_auth_from_url`, which
//!   masks the password, or the user part when it stands alone), and a lone user part of an
//!   `https://` URL is often a token;
//! - the credentials after `Bearer ` and after an `Authorization:` header (RFC 6750 section
//!   2.1, RFC 9110 section 11.6.2);
//! - the value of any `NAME=VALUE` (`-DDB_PASS=x` in `CFLAGS`, `?token=x` in a URL,
//!   `--password=x`) and of `--NAME VALUE` whose name names a secret ([`is_secret_name`]):
//!   sos report masks values of keys matching password and secret patterns in what it
//!   collects;
//! - the home directories of the users named (the sudo user's too) wherever they stand,
//!   outside `/home` as well (`/data/users/alice` becomes `<home>`), not `/root` or `/`.

/// What a secret is replaced with.
pub(crate) const SECRET: &str = "<redacted>";
/// What a known user's home directory (outside `/home`) is replaced with.
pub(crate) const HOME: &str = "<home>";

/// Whether a variable, option or key name names a secret: the one rule, shared with the
/// environment given to another root's programs ([`crate::host::names_a_secret`]).
pub(crate) fn is_secret_name(name: &str) -> bool {
    crate::host::names_a_secret(name)
}

/// Characters of a name before `=` (`-DDB_PASS=`, `--password=`, `?token=`).
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Where a value in running text ends: white space, a quote, or a separator of URL queries
/// and lists (`&`, `;`, `,`).
fn ends_value(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '&' | ';' | ',' | ')' | ']' | '>')
}

/// Where a URL's authority ends (RFC 3986 section 3.2: `/`, `?`, `#`), or the URL itself in
/// running text.
fn ends_authority(c: char) -> bool {
    matches!(c, '/' | '?' | '#') || ends_value(c) || c == '<'
}

/// The text with the secrets of the module rules replaced by [`SECRET`].
pub(crate) fn scrub_secrets(text: &str) -> String {
    let t = url_userinfo_scrubbed(text);
    let t = auth_scrubbed(&t);
    let t = assignments_scrubbed(&t);
    option_values_scrubbed(&t)
}

/// `scheme://userinfo@host` becomes `scheme://<redacted>@host`.
fn url_userinfo_scrubbed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let start = at + 3;
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let auth_len = tail.find(ends_authority).unwrap_or(tail.len());
        match tail[..auth_len].rfind('@') {
            Some(userinfo_len) if !tail[..userinfo_len].starts_with(SECRET) => {
                out.push_str(SECRET);
                rest = &tail[userinfo_len..];
            }
            _ => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

/// The word after `Bearer ` (any case) and the rest of the line after `Authorization:`.
fn auth_scrubbed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let lower = text.to_ascii_lowercase();
    let mut i = 0;
    while i < text.len() {
        let word_start = i == 0 || !text[..i].ends_with(|c: char| c.is_ascii_alphanumeric());
        let found = if word_start {
            [("bearer", false), ("authorization:", true)]
                .into_iter()
                .find(|(k, _)| lower[i..].starts_with(k))
        } else {
            None
        };
        let Some((key, to_eol)) = found else {
            let c = text[i..].chars().next().expect("char boundary");
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        let after = i + key.len();
        let gap = text[after..]
            .find(|c: char| c != ' ' && c != '\t')
            .unwrap_or(text.len() - after);
        let v = after + gap;
        let len = if to_eol {
            text[v..].find(['\n', '"', '\'']).unwrap_or(text.len() - v)
        } else {
            text[v..].find(ends_value).unwrap_or(text.len() - v)
        };
        // `Bearer` must be followed by blanks and a credential; `bearer=` or a lone word is
        // left to the other rules.
        if (!to_eol && gap == 0) || len == 0 || text[v..].starts_with(SECRET) {
            out.push_str(&text[i..after]);
            i = after;
            continue;
        }
        out.push_str(&text[i..v]);
        out.push_str(SECRET);
        i = v + len;
    }
    out
}

/// The value of `NAME=VALUE` when NAME names a secret (a quoted value up to its quote).
fn assignments_scrubbed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(eq) = rest.find('=') {
        let name_start = rest[..eq]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_name_char(*c))
            .last()
            .map_or(eq, |(i, _)| i);
        let name = &rest[name_start..eq];
        out.push_str(&rest[..=eq]);
        let tail = &rest[eq + 1..];
        if !is_secret_name(name) || tail.is_empty() || tail.starts_with(SECRET) {
            rest = tail;
            continue;
        }
        let len = match tail.chars().next() {
            Some(q @ ('\'' | '"')) => tail[1..].find(q).map_or(tail.len(), |n| n + 2),
            _ => tail.find(ends_value).unwrap_or(tail.len()),
        };
        if len > 0 {
            out.push_str(SECRET);
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// The word after an option `--NAME` or `-NAME` whose name names a secret (`--password x`).
fn option_values_scrubbed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev_secret = false;
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end();
        let blank = &piece[word.len()..];
        if prev_secret && !word.is_empty() && !word.starts_with('-') {
            out.push_str(SECRET);
            out.push_str(blank);
            prev_secret = false;
            continue;
        }
        out.push_str(piece);
        if !word.is_empty() {
            prev_secret = word.starts_with('-')
                && !word.contains('=')
                && word.trim_start_matches('-').chars().all(is_name_char)
                && is_secret_name(word.trim_start_matches('-'));
        }
        if blank.contains('\n') {
            prev_secret = false;
        }
    }
    out
}

/// Every occurrence of one of `homes` as a whole path (not inside a longer component)
/// becomes [`HOME`].
pub(crate) fn homes_replaced(text: &str, homes: &[String]) -> String {
    let mut out = text.to_string();
    for h in homes {
        let mut next = String::with_capacity(out.len());
        let mut i = 0;
        while let Some(at) = out[i..].find(h.as_str()) {
            let start = i + at;
            let end = start + h.len();
            let before_ok = out[..start].chars().next_back().is_none_or(ends_component);
            let after_ok = out[end..].chars().next().is_none_or(ends_component);
            next.push_str(&out[i..start]);
            next.push_str(if before_ok && after_ok { HOME } else { h });
            i = end;
        }
        next.push_str(&out[i..]);
        out = next;
    }
    out
}

/// What a user name is replaced with.
pub(crate) const USER: &str = "<user>";
/// What a host name is replaced with.
pub(crate) const HOST: &str = "<host>";

/// Names shorter than this are replaced only as `/home/<name>` components.
pub(crate) const MIN_BARE_LEN: usize = 3;

/// Common words that are also user or host names: replaced only as `/home/<name>` components,
/// never as bare words (they are part of ordinary text, paths and tool names).
pub(crate) const GENERIC: &[&str] = &[
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
pub(crate) fn is_specific(name: &str) -> bool {
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
pub(crate) struct Redactor {
    on: bool,
    /// Specific names, longest first.
    names: Vec<Name>,
    /// Home directories of the users named, outside `/home`, longest first.
    homes: Vec<String>,
}

impl Redactor {
    /// A redactor for these user names and host names (empty, blank and duplicate entries are
    /// dropped; a host name that is also a user name counts as a user name). A host name's
    /// first label (`node7` of `node7.cluster.example.org`) is a name too.
    pub(crate) fn new<U, H>(users: U, hosts: H) -> Self
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
        Redactor {
            on: true,
            names,
            homes: Vec::new(),
        }
    }

    /// Also replaces these home directories (of the users named) as whole paths: those under
    /// `/home` are covered already, and `/`, `/root` and relative paths identify no one.
    pub(crate) fn with_homes<I, S>(mut self, homes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for h in homes {
            let h = h.as_ref().trim().trim_end_matches('/');
            let skip = !h.starts_with('/')
                || h == "/root"
                || h.starts_with("/home/")
                || h.contains(['\n', '\r'])
                || self.homes.iter().any(|k| k == h);
            if !skip {
                self.homes.push(h.to_string());
            }
        }
        self.homes.sort_by_key(|h| std::cmp::Reverse(h.len()));
        self
    }

    /// No redaction at all.
    pub(crate) fn off() -> Self {
        Redactor {
            on: false,
            names: Vec::new(),
            homes: Vec::new(),
        }
    }

    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// The text with `/home/<name>` components and the known names replaced.
    pub(crate) fn apply(&self, text: &str) -> String {
        if !self.on {
            return text.to_string();
        }
        let text = homes_replaced(text, &self.homes);
        self.names_replaced(&home_components_replaced(&text))
    }

    /// Redacts a string in place.
    pub(crate) fn in_place(&self, s: &mut String) {
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
pub(crate) fn home_components_replaced(text: &str) -> String {
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
    fn url_credentials() {
        assert_eq!(
            scrub_secrets("HIP_PATH=https://bob:s3cret@example.invalid/x"),
            "HIP_PATH=https://<redacted>@example.invalid/x"
        );
        // A lone user part (often a token), several URLs, a URL without credentials.
        assert_eq!(
            scrub_secrets("git+https://ghp_abc@github.com/a https://x.org/@b ftp://u:p@h"),
            "git+https://<redacted>@github.com/a https://x.org/@b ftp://<redacted>@h"
        );
        assert_eq!(
            scrub_secrets("https://repo.radeon.com/rocm/"),
            "https://repo.radeon.com/rocm/"
        );
    }

    #[test]
    fn bearer_and_authorization() {
        assert_eq!(
            scrub_secrets("curl -H 'Authorization: Bearer abc.def.ghi' x"),
            "curl -H 'Authorization: <redacted>' x"
        );
        assert_eq!(
            scrub_secrets("HIP_X=bearer abc.def.ghi y"),
            "HIP_X=bearer <redacted> y"
        );
        // Words that only start like it, and a bare word at the end.
        assert_eq!(
            scrub_secrets("bearers of news; Bearer"),
            "bearers of news; Bearer"
        );
    }

    #[test]
    fn secret_assignments_and_options() {
        assert_eq!(
            scrub_secrets("-O2 -DDB_PASS=hunter2 -DUSE_X=1 --password='a b' x"),
            "-O2 -DDB_PASS=<redacted> -DUSE_X=1 --password=<redacted> x"
        );
        assert_eq!(
            scrub_secrets("https://h/p?api_key=K1&x=2 MY_TOKEN=\"t t\" --token T2 -v"),
            "https://h/p?api_key=<redacted>&x=2 MY_TOKEN=<redacted> --token <redacted> -v"
        );
        // Not secrets: ordinary names, an option followed by another option.
        let plain = "-DGPU_TARGETS=gfx90a PASSES=3 --token-file=/x --auth -v HSA_XNACK=1";
        assert_eq!(scrub_secrets(plain), plain);
        // Idempotent.
        let once = scrub_secrets("A_PASS=x https://u:p@h Bearer t");
        assert_eq!(scrub_secrets(&once), once);
    }

    #[test]
    fn secret_names() {
        for n in [
            "DB_PASS",
            "db-pass",
            "FOO_AUTH",
            "HIP_API_TOKEN",
            "MY_SECRET",
            "PASSWORD",
            "aws_access_key_id",
            "CREDENTIALS",
            "x.pw",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "PASSES",
            "BYPASS_CACHE",
            "HIP_PATH",
            "GPU_TARGETS",
            "PWD",
            "COMPASS",
            "--token-file",
            "SSL_KEY_PATH",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn homes_outside_home() {
        let red = r(&["al"], &[]).with_homes(["/data/users/al", "/root", "/", "/home/al", "rel"]);
        assert_eq!(
            red.apply("HIP_PATH=/data/users/al/hip:/mnt/data/users/al /data/users/alx /root/x"),
            "HIP_PATH=<home>/hip:/mnt/data/users/al /data/users/alx /root/x"
        );
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
