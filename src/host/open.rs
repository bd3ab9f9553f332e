//! Opening a file the doctor is about to read, safely: once, without blocking, and judged by
//! the descriptor it got rather than by the path (issue 25).
//!
//! `open(2)` on a FIFO blocks until a writer appears, and one on a stalled NFS file or a
//! character device can block for ever, so a version file, an `ld.so.conf` or a `--baseline`
//! argument that is not a regular file would hang the run. A check of the path before the open
//! (`stat`, then `open`) races with whoever can change the path between the two. The rule
//! here: open with `O_NONBLOCK | O_CLOEXEC | O_NOCTTY` (and `O_NOFOLLOW` when the caller vetted
//! the path's last component itself), `fstat(2)` the descriptor, refuse what is not a regular
//! file, then read through that descriptor with a cap. `O_NONBLOCK` makes opening a FIFO
//! return at once (fifo(7): "opening for read-only succeeds even if no-one has opened on the
//! write side yet") and is cleared again once the descriptor is known to be a regular file,
//! for which it has no effect (open(2), O_NONBLOCK).

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Whether the last component of the path may be a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FinalLink {
    /// Follow it (ordinary reads of the machine's files).
    Follow,
    /// Refuse it with `ELOOP` (a file whose owner and mode are about to be trusted: the
    /// link could be swapped between the caller's look and the open).
    Refuse,
}

/// A regular file, opened, with the metadata of the descriptor (not of the path).
#[derive(Debug)]
pub(crate) struct OpenedFile {
    pub file: File,
    pub meta: Metadata,
}

impl OpenedFile {
    /// Reads the whole file through the descriptor, refusing one of more than `limit` bytes
    /// (`InvalidData`, "larger than N bytes"): the size from `fstat` can lie (a file growing
    /// while read, procfs), so the cap is on what is read, not on what was announced.
    /// Reads at most the first `n` bytes through the descriptor (fewer when the file is
    /// shorter): enough to tell a script's `#!` or a magic number without reading a large
    /// binary whole.
    pub(crate) fn read_head(mut self, n: u64) -> io::Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(self.meta.len().min(n) as usize);
        (&mut self.file).take(n).read_to_end(&mut buf)?;
        Ok(buf)
    }

    pub(crate) fn read_capped(mut self, limit: u64) -> io::Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(self.meta.len().min(limit) as usize);
        (&mut self.file).take(limit + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("larger than {limit} bytes"),
            ));
        }
        Ok(buf)
    }
}

/// What kind of file a non-regular file is, in words (for the message that refuses it).
pub(crate) fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

/// The error for a file that is not a regular file (`InvalidInput`, "not a regular file: a FIFO").
pub(crate) fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file: {}", kind_of(meta)),
    )
}

/// Opens the host path `path` for reading without blocking, and returns it only when the
/// descriptor is a regular file.
pub(crate) fn open_regular(path: &Path, final_link: FinalLink) -> io::Result<OpenedFile> {
    // An open on a stalled mount can block: the deadline's watchdog names it.
    let _w = super::watchdog::Waiting::on_path("opening", path);
    let mut flags = nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY | nix::libc::O_CLOEXEC;
    if final_link == FinalLink::Refuse {
        flags |= nix::libc::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(not_regular(&meta));
    }
    clear_nonblocking(&file)?;
    Ok(OpenedFile { file, meta })
}

/// Reads a regular file of at most `limit` bytes: [`open_regular`] then
/// [`OpenedFile::read_capped`].
pub(crate) fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path, FinalLink::Follow)?;
    let _w = super::watchdog::Waiting::on_path("reading", path);
    f.read_capped(limit)
}

/// The first `n` bytes of a regular file, opened as [`open_regular`] opens it.
pub(crate) fn read_regular_head(path: &Path, n: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path, FinalLink::Follow)?;
    let _w = super::watchdog::Waiting::on_path("reading", path);
    f.read_head(n)
}

/// A file named on the command line (`--baseline`, `merge`, `inspect`, `log` arguments): a
/// regular file opened as [`open_regular`] opens it; anything else is refused with what it is
/// (a FIFO, a device: they can block or never end) and a hint to pipe it into `-` instead where
/// the command reads standard input. The error text starts with the path.
pub(crate) fn open_argument(path: &Path) -> Result<OpenedFile, String> {
    open_regular(path, FinalLink::Follow).map_err(|e| {
        let hint = if e.kind() == io::ErrorKind::InvalidInput {
            " (only regular files are read; pipe a stream into `-` where the command takes one)"
        } else {
            ""
        };
        format!("{}: {}{hint}", path.display(), super::io_error_text(&e))
    })
}

/// Reads one line (through its `\n`) into `out`, keeping at most `max` bytes: the bytes read
/// and whether the line was longer than `max` (then `out` is left empty and the rest of the
/// line is read and dropped). A stream without a newline is thus consumed in `BufRead`'s
/// buffer-sized steps, never held.
pub(crate) fn read_line_bounded<R: std::io::BufRead>(
    r: &mut R,
    out: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let mut n = 0usize;
    let mut over = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let (take, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !over {
            if out.len() + take > max {
                over = true;
                out.clear();
                out.shrink_to(0);
            } else {
                out.extend_from_slice(&buf[..take]);
            }
        }
        r.consume(take);
        n = n.saturating_add(take);
        if end {
            break;
        }
    }
    Ok((n, over))
}

pub(crate) fn clear_nonblocking(file: &File) -> io::Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let fd = file.as_raw_fd();
    let flags = fcntl(fd, FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) & !OFlag::O_NONBLOCK;
    fcntl(fd, FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_fifo_is_refused_at_once_not_waited_for() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("version");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let start = Instant::now();
        let e = read_regular(&fifo, 1024).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("a FIFO"), "{e}");
    }

    #[test]
    fn a_directory_and_a_device_are_named() {
        let t = tempfile::tempdir().unwrap();
        let e = read_regular(t.path(), 1024).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let e = read_regular(Path::new("/dev/null"), 1024).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
    }

    #[test]
    fn reads_are_capped_by_what_is_read() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f");
        std::fs::write(&f, vec![b'x'; 100]).unwrap();
        assert_eq!(read_regular(&f, 100).unwrap().len(), 100);
        let e = read_regular(&f, 99).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn a_head_read_stops_at_n_and_refuses_what_read_regular_refuses() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("clang");
        std::fs::write(
            &f,
            [b"#!/bin/sh\n".as_slice(), &vec![b'x'; 1 << 20]].concat(),
        )
        .unwrap();
        assert_eq!(read_regular_head(&f, 2).unwrap(), b"#!");
        let short = t.path().join("short");
        std::fs::write(&short, b"a").unwrap();
        assert_eq!(read_regular_head(&short, 24).unwrap(), b"a");
        let e = read_regular_head(t.path(), 2).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let fifo = t.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        assert_eq!(
            read_regular_head(&fifo, 2).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
    }

    #[test]
    fn a_final_link_is_refused_when_asked() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let l = t.path().join("l");
        std::os::unix::fs::symlink(&f, &l).unwrap();
        assert!(open_regular(&l, FinalLink::Follow).is_ok());
        let e = open_regular(&l, FinalLink::Refuse).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(nix::libc::ELOOP));
    }
}
