//! The findings of an `inspect` run, kept outside the process's memory until they are printed.
//!
//! Every listed file gets its findings when it is read, but they are printed (human view) or
//! written (`findings` in JSON) only after the listing, and a tree of 100,000 files has
//! 100,000 of them or more. They are appended as JSON lines to an unnamed file in the doctor's
//! own temp dir (`tempfile::tempfile_in`: unlinked at once, gone when the process exits) and
//! read back, as often as the renderer needs, with constant memory. The few findings decided
//! after the walk (rocBLAS files wait for the Tensile directories) fill numbered slots,
//! written as `#N` lines. Without a temp dir, or after a write fails, the lines stay in
//! memory, which is what every run did before.

use crate::report::human::Findings;
use crate::report::{Counts, Finding};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};

/// Lines are written to the file in chunks of about this size.
const CHUNK: usize = 256 << 10;

#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// The spill file and how many bytes of it hold complete lines.
    file: Option<(File, u64)>,
    /// Lines not yet written (all of them without a file).
    tail: Vec<u8>,
    /// Slot number -> its findings, once decided.
    slots: BTreeMap<usize, Vec<Finding>>,
    next_slot: usize,
    /// Findings after the listing's (Tensile directories, symbols): few, held as they are.
    after: Vec<Finding>,
    counts: Counts,
    /// Writes the check's id on findings as they come in (the engine's, given by the command).
    stamp: Option<Stamp>,
}

/// Writes a check's id on findings: `runner::stamp`, given by the `inspect` command (the
/// library below the engine never writes an id itself).
pub(crate) type Stamp = fn(&mut [Finding]);

impl Kept {
    /// Keeps the findings in a file of `dir` (the doctor's temp dir), or in memory when it
    /// cannot be created.
    pub(crate) fn in_dir(dir: Option<&std::path::Path>) -> Self {
        Kept {
            file: dir.and_then(|d| tempfile::tempfile_in(d).ok().map(|f| (f, 0))),
            ..Default::default()
        }
    }

    /// Findings kept from now on get their id from `stamp`.
    pub(crate) fn stamped_by(self, stamp: Stamp) -> Self {
        Kept {
            stamp: Some(stamp),
            ..self
        }
    }

    fn stamp(&self, findings: &mut [Finding]) {
        if let Some(stamp) = self.stamp {
            stamp(findings);
        }
    }

    /// Whether the findings go to a file.
    #[cfg(test)]
    pub(crate) fn on_disk(&self) -> bool {
        self.file.is_some()
    }

    /// Appends a listed file's findings.
    pub(crate) fn push(&mut self, findings: &mut [Finding]) {
        self.stamp(findings);
        for f in findings.iter() {
            self.counts.add(f.status);
            // Serialising our own plain data into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut self.tail, f);
            self.tail.push(b'\n');
        }
        if self.tail.len() >= CHUNK {
            self.write_out();
        }
    }

    /// Reserves the next slot, filled later by [`Kept::fill`], and returns its number.
    pub(crate) fn reserve(&mut self) -> usize {
        let n = self.next_slot;
        self.next_slot += 1;
        let _ = writeln!(self.tail, "#{n}");
        n
    }

    /// The findings of a reserved slot.
    pub(crate) fn fill(&mut self, slot: usize, mut findings: Vec<Finding>) {
        self.stamp(&mut findings);
        for f in &findings {
            self.counts.add(f.status);
        }
        self.slots.insert(slot, findings);
    }

    /// Findings that follow the listing's.
    pub(crate) fn append(&mut self, findings: impl IntoIterator<Item = Finding>) {
        let start = self.after.len();
        self.after.extend(findings);
        let stamp = self.stamp;
        let new = &mut self.after[start..];
        if let Some(stamp) = stamp {
            stamp(new);
        }
        for f in new.iter() {
            self.counts.add(f.status);
        }
    }

    /// Pass, warn, fail, skip and error counts of every finding kept.
    pub(crate) fn counts(&self) -> Counts {
        self.counts
    }

    /// Moves the pending lines to the file. A failed write (a full disk) truncates the file
    /// back to its last complete line and keeps everything from there on in memory.
    fn write_out(&mut self) {
        let Some((f, len)) = self.file.as_mut() else {
            return;
        };
        match f.write_all(&self.tail) {
            Ok(()) => {
                *len += self.tail.len() as u64;
                self.tail.clear();
            }
            Err(_) => {
                let good = *len;
                let _ = f.set_len(good);
                let f = self.file.take().map(|(f, _)| f);
                // The complete lines written so far come back into memory, ahead of the rest.
                let mut head = Vec::new();
                if let Some(mut f) = f {
                    let _ = f.seek(SeekFrom::Start(0));
                    let _ = f.take(good).read_to_end(&mut head);
                }
                if head.len() as u64 == good {
                    head.append(&mut self.tail);
                    self.tail = head;
                } else {
                    // Cannot read back what was written: keep going in memory; the lines read
                    // back so far are lost, and said so when they are read.
                    self.tail.splice(0..0, b"!lost\n".iter().copied());
                }
            }
        }
    }

    fn each_line(&self, line: &[u8], f: &mut dyn FnMut(&Finding)) -> io::Result<()> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if let Some(n) = line.strip_prefix(b"#") {
            let n: usize = std::str::from_utf8(n)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| io::Error::other("a corrupt slot line"))?;
            for x in self.slots.get(&n).into_iter().flatten() {
                f(x);
            }
            return Ok(());
        }
        if line == b"!lost" {
            return Err(io::Error::other(
                "findings written to the temp dir could not be read back",
            ));
        }
        let x: Finding = serde_json::from_slice(line).map_err(io::Error::other)?;
        f(&x);
        Ok(())
    }
}

impl Findings for Kept {
    fn each(&self, f: &mut dyn FnMut(&Finding)) -> io::Result<()> {
        if let Some((file, len)) = &self.file {
            let mut r = file;
            r.seek(SeekFrom::Start(0))?;
            let mut r = BufReader::with_capacity(64 << 10, r.take(*len));
            let mut line = Vec::new();
            loop {
                line.clear();
                if r.read_until(b'\n', &mut line)? == 0 {
                    break;
                }
                self.each_line(&line, f)?;
            }
        }
        for line in self.tail.split_inclusive(|b| *b == b'\n') {
            self.each_line(line, f)?;
        }
        self.after.iter().for_each(f);
        Ok(())
    }
}

impl Kept {
    /// Writes what is still pending: call once every finding was pushed.
    pub(crate) fn seal(&mut self) {
        if !self.tail.is_empty() {
            self.write_out();
        }
    }

    /// Every finding, in memory (for callers that need a list: `why --binary`).
    pub(crate) fn to_vec(&self) -> io::Result<Vec<Finding>> {
        let mut v = Vec::new();
        self.each(&mut |f| v.push(f.clone()))?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    fn finding(i: usize, s: Status) -> Finding {
        let mut f = Finding::new(s, format!("file {i}"));
        f.id = "libs.code-objects".into();
        f.category = "libs".into();
        f.subject = Some(format!("/lib/{i}.so"));
        f.evidence = vec![format!("evidence {i}"), "a\nb".into()];
        f
    }

    fn ids(k: &Kept) -> Vec<String> {
        let mut v = Vec::new();
        k.each(&mut |f| v.push(f.summary.clone())).unwrap();
        v
    }

    /// Many findings, a slot in the middle and findings after: read back in order, twice,
    /// from a file and from memory alike, with the same counts.
    #[test]
    fn findings_come_back_in_order_from_disk_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        for mut k in [Kept::in_dir(Some(dir.path())), Kept::in_dir(None)] {
            let mut want = Vec::new();
            for i in 0..5000 {
                if i == 2500 {
                    let slot = k.reserve();
                    want.push("slot".to_string());
                    k.push(&mut [finding(i, Status::Pass)]);
                    want.push(format!("file {i}"));
                    k.fill(slot, vec![Finding::fail("slot")]);
                    continue;
                }
                k.push(&mut [finding(
                    i,
                    if i % 7 == 0 {
                        Status::Warn
                    } else {
                        Status::Pass
                    },
                )]);
                want.push(format!("file {i}"));
            }
            k.append([Finding::skip("after")]);
            want.push("after".into());
            k.seal();
            assert_eq!(ids(&k), want);
            assert_eq!(ids(&k), want, "a second reading gives the same");
            let c = k.counts();
            assert_eq!((c.pass, c.warn, c.fail, c.skip), (4285, 715, 1, 1));
            let back = k.to_vec().unwrap();
            assert_eq!(back[1].evidence, ["evidence 1", "a\nb"]);
            assert_eq!(back[1].subject.as_deref(), Some("/lib/1.so"));
        }
    }

    /// The human view rendered from the file equals the one rendered from a list: categories
    /// in first-seen order, an all-skip category folded to one line, repeated fixes said once.
    #[test]
    fn the_human_view_from_disk_equals_the_one_from_a_list() {
        use crate::report::human::{render, render_to, Options};
        use crate::report::Fix;
        let mut all = Vec::new();
        for i in 0..3000 {
            let mut f = finding(i, [Status::Pass, Status::Fail, Status::Warn][i % 3]);
            if i % 3 != 0 {
                f.fix = Some(Fix::text(format!("fix {}", i % 5)).command("make"));
            }
            if i % 4 == 0 {
                f.category = "other".into();
                f.id = format!("other.{}", i % 8);
            }
            all.push(f);
        }
        for i in 0..3 {
            let mut f = finding(i, Status::Skip);
            f.category = "quiet".into();
            f.summary = "no GPU agents and no --isa: not matched".into();
            all.push(f);
        }
        let dir = tempfile::tempdir().unwrap();
        let mut k = Kept::in_dir(Some(dir.path()));
        for c in all.chunks(7) {
            k.push(&mut c.to_vec());
        }
        k.seal();
        for verbose in [0, 1, 2] {
            for color in [false, true] {
                let o = Options { color, verbose };
                let mut from_disk = String::new();
                render_to(&k, &o, &mut from_disk).unwrap();
                assert_eq!(
                    from_disk,
                    render(&all, &o),
                    "verbose {verbose} color {color}"
                );
            }
        }
        let mut s = String::new();
        render_to(
            &k,
            &Options {
                color: false,
                verbose: 0,
            },
            &mut s,
        )
        .unwrap();
        assert!(
            s.contains("same as above") && s.contains("[-] quiet:"),
            "{s}"
        );
    }

    #[test]
    fn the_file_is_used_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let mut k = Kept::in_dir(Some(dir.path()));
        assert!(k.on_disk());
        for i in 0..2000 {
            k.push(&mut [finding(i, Status::Pass)]);
        }
        assert!(k.tail.len() < CHUNK, "lines were moved to the file");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        k.seal();
        assert_eq!(ids(&k).len(), 2000);
    }

    #[test]
    fn a_failed_write_keeps_every_finding_in_memory() {
        // /dev/full accepts the open and fails every write with ENOSPC.
        let Ok(full) = std::fs::OpenOptions::new()
            .write(true)
            .read(true)
            .open("/dev/full")
        else {
            return;
        };
        let mut k = Kept {
            file: Some((full, 0)),
            ..Default::default()
        };
        for i in 0..3000 {
            k.push(&mut [finding(i, Status::Pass)]);
        }
        k.seal();
        assert!(!k.on_disk());
        assert_eq!(ids(&k).len(), 3000);
    }

    /// The stamp the command gives writes the id on every finding, whichever way it came in
    /// (a listed file's, a slot's, after the listing), on disk and in memory; without one the
    /// findings keep the (empty) id they were made with.
    #[test]
    fn every_finding_kept_gets_the_stamps_id() {
        fn stamp(fs: &mut [Finding]) {
            for f in fs {
                f.id = "libs.code-objects".into();
                f.category = "libs".into();
            }
        }
        let dir = tempfile::tempdir().unwrap();
        for on_disk in [true, false] {
            let place = on_disk.then(|| dir.path());
            let fill = |k: &mut Kept| {
                let slot = k.reserve();
                k.push(&mut [Finding::pass("listed")]);
                k.fill(slot, vec![Finding::fail("slot")]);
                k.append([Finding::skip("after")]);
                k.seal();
            };
            let mut k = Kept::in_dir(place).stamped_by(stamp);
            fill(&mut k);
            assert_eq!(k.on_disk(), on_disk);
            let all = k.to_vec().unwrap();
            let got: Vec<(&str, &str, &str)> = all
                .iter()
                .map(|f| (f.summary.as_str(), f.id.as_str(), f.category.as_str()))
                .collect();
            assert_eq!(
                got,
                [
                    ("slot", "libs.code-objects", "libs"),
                    ("listed", "libs.code-objects", "libs"),
                    ("after", "libs.code-objects", "libs"),
                ]
            );
            assert_eq!(k.counts().fail, 1);
            let mut plain = Kept::in_dir(place);
            fill(&mut plain);
            assert!(plain.to_vec().unwrap().iter().all(|f| f.id.is_empty()));
        }
    }
}
