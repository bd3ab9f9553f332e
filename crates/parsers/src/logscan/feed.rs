//! Feeding a reader's lines to a [`Summary`] from fixed-size buffers (bounded memory whatever
//! the size). The main crate's `logscan::read` opens files and streams (compression, parallel
//! regions by positioned reads) and feeds each through [`feed`].

use super::summary::Summary;
use std::io::{self, Read};

/// Read buffer per thread. A line longer than this is counted as over-long and cut.
const BUF: usize = 4 << 20;
/// The buffer a reader starts with.
const FIRST_BUF: usize = 64 << 10;

/// Reads `reader` to the end, feeding complete lines to `s`, and finishes `s`.
pub fn scan_reader<R: Read>(r: R, s: &mut Summary) -> io::Result<()> {
    feed(r, s, &mut Vec::new())?;
    s.finish();
    Ok(())
}

/// Reads `reader` to the end, feeding complete lines to `s` (left unfinished for merging).
/// `buf` is the read buffer, kept by the caller to be reused; an empty one is made here.
pub fn feed<R: Read>(mut r: R, s: &mut Summary, buf: &mut Vec<u8>) -> io::Result<()> {
    // Small inputs (a pasted excerpt on stdin) get a small buffer; one that keeps filling it
    // doubles it up to BUF.
    if buf.is_empty() {
        buf.resize(FIRST_BUF, 0);
    }
    let mut filled = 0;
    let mut line_no = 0u64;
    let mut skipping = false; // inside the tail of an over-long line that was already counted
    loop {
        let space = buf.len() - filled;
        let n = match r.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let eof = n == 0;
        filled += n;
        let mut start = 0;
        let block = &buf[..filled];
        for nl in memchr::memchr_iter(b'\n', block) {
            if skipping {
                skipping = false;
            } else {
                line_no += 1;
                s.add_in(block, start, nl, line_no);
            }
            start = nl + 1;
        }
        if eof {
            if start < filled && !skipping {
                line_no += 1;
                s.add_in(block, start, filled, line_no);
                s.truncated_last_line = true;
            }
            s.end_block(block);
            return Ok(());
        }
        // The buffer is about to move or be refilled: copy out what the summary keeps of it.
        s.end_block(block);
        let grow = n == space && buf.len() < BUF;
        if grow {
            buf.resize((buf.len() * 2).min(BUF), 0);
            if start == 0 {
                continue; // a line longer than the buffer so far: read on before cutting it
            }
        }
        if start == 0 && filled == buf.len() {
            // One line fills the whole buffer: summarise its head, skip the rest of it.
            if !skipping {
                line_no += 1;
                s.add(&buf[..filled], line_no);
            }
            skipping = true;
            filled = 0;
            continue;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
    }
}
