//! A one-line progress indicator on stderr for long work (`inspect` of large trees, `log` of
//! big files). Drawn only when stderr is a terminal and the output is not `--json`: a pipe, a
//! CI log or a JSON consumer never sees it. Redrawn at most ten times a second; the line is
//! erased before anything else is written and when the work ends.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(100);
/// Longest line drawn, so that it never wraps on a narrow terminal (wrapping breaks `\r`).
const WIDTH: usize = 78;

pub(crate) struct Progress {
    on: bool,
    last: Option<Instant>,
    drawn: bool,
}

impl Progress {
    /// Enabled when stderr is a terminal and the output is human text.
    pub(crate) fn for_run(json: bool) -> Self {
        Progress::new(!json && std::io::stderr().is_terminal())
    }

    pub(crate) fn new(on: bool) -> Self {
        Progress {
            on,
            last: None,
            drawn: false,
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.on
    }

    /// Redraws the line with `msg()` when enabled and the last draw is old enough.
    pub(crate) fn tick(&mut self, msg: impl FnOnce() -> String) {
        if !self.on || self.last.is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        self.last = Some(Instant::now());
        // The line names files of the tree walked: their control characters are shown.
        let line = fit(&super::escape::visible(&msg()), WIDTH);
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K{line}");
        let _ = e.flush();
        self.drawn = true;
    }

    /// Erases the line (before other output, and at the end).
    pub(crate) fn clear(&mut self) {
        if self.drawn {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[2K");
            let _ = e.flush();
            self.drawn = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// `s` cut to `width` characters in the middle: the counts at the start and the file name
/// at the end of a long path stay readable.
pub(crate) fn fit(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width || width < 8 {
        return s.to_string();
    }
    let keep_head = (width - 3) / 2;
    let keep_tail = width - 3 - keep_head;
    let head: String = s.chars().take(keep_head).collect();
    let tail: String = s.chars().skip(n - keep_tail).collect();
    format!("{head}...{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_keep_their_end_and_fit() {
        let s = format!("inspect: 12 files  /usr/lib/{}/libfoo.so", "x".repeat(100));
        let f = fit(&s, WIDTH);
        assert_eq!(f.chars().count(), WIDTH);
        assert!(f.starts_with("inspect: 12 files") && f.ends_with("/libfoo.so"));
        assert!(f.contains("..."));
        assert_eq!(fit("short", WIDTH), "short");
    }

    #[test]
    fn disabled_progress_never_draws() {
        let mut p = Progress::new(false);
        p.tick(|| panic!("the message is not even built when disabled"));
        assert!(!p.drawn);
    }
}
