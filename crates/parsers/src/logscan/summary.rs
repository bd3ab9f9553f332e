//! Folds parsed lines into a bounded summary. Chunks of one file are summarised in parallel and
//! merged in file order ([`Summary::merge`]); every map is capped so memory does not grow with
//! the log.

use super::keyed::Keyed;
use super::line::{self, Kind};
use super::msg::{self, Event};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// Distinct API names, kernel names, command kinds, error messages kept; the rest count as "other".
const MAX_KEYS: usize = 10_000;
pub const MAX_THREADS: usize = 4096;
/// Threads past [`MAX_THREADS`] counted one by one (their ids kept in a set); past this many the
/// count is a lower bound (`untracked_threads_capped`).
const MAX_UNTRACKED: usize = 1 << 16;
const LAST_LINES: usize = 5;
/// Bytes of a line kept as evidence.
const TEXT_CAP: usize = 400;
/// Lines longer than this are counted as over-long (runtime lines are at most ~4 KiB + prefix).
pub const LONG_LINE: usize = 64 * 1024;

fn text(b: &[u8]) -> String {
    let b = &b[..b.len().min(TEXT_CAP)];
    String::from_utf8_lossy(msg::strip(b)).into_owned()
}

/// Where something happened.
#[derive(Debug, Clone, Serialize)]
pub struct Occurrence {
    /// 1-based line number in the (decompressed) log.
    pub line: u64,
    pub ts_us: Option<u64>,
    pub pid: Option<u32>,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Counted {
    pub count: u64,
    pub first: Occurrence,
    pub last: Occurrence,
}

impl Counted {
    fn new(o: Occurrence) -> Self {
        Counted {
            count: 1,
            first: o.clone(),
            last: o,
        }
    }
    fn merge(&mut self, o: Counted) {
        self.count += o.count;
        self.last = o.last;
    }
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct ApiStat {
    pub calls: u64,
    pub returns: u64,
    /// Error results (not hipSuccess / hipErrorNotReady) by name.
    pub errors: BTreeMap<String, Counted>,
    pub not_ready: u64,
    /// Durations: exact ones (`duration:`) and call->return pairs on one thread.
    pub timed: u64,
    pub total_us: u64,
    pub max_us: u64,
}

/// A line kept as raw bytes (converted to text only when rendered).
#[derive(Debug, Clone, Default)]
pub struct RawLine {
    pub line: u64,
    pub ts_us: Option<u64>,
    pub bytes: Vec<u8>,
    /// While a block is being added: where the line's text sits in the block (start, length),
    /// copied into `bytes` by [`Summary::end_block`] only if the line is still among the last.
    in_block: Option<(usize, usize)>,
}

impl RawLine {
    pub fn text(&self) -> String {
        text(&self.bytes)
    }
}

#[derive(Debug, Clone)]
pub struct Thread {
    pub pid: u32,
    pub tid: u64,
    pub lines: u64,
    /// The thread's last lines, oldest first: where it stopped.
    pub last: VecDeque<RawLine>,
    /// While scanning `last` is a ring: the slot written next once it is full (0 = in order).
    ring_next: usize,
    /// The API call this thread entered last and has not returned from (at the end of the input
    /// read so far).
    pending: Pending,
    /// Whether this input showed an API call or return on this thread.
    api_seen: bool,
    /// A return seen before any call on this thread in this input: the call may be at the end of
    /// the input before (a region boundary), paired by [`Summary::merge`].
    head_return: Option<HeadReturn>,
    /// Whether `last` holds lines of the current block (listed in `Summary::block_threads`).
    in_block: bool,
}

impl Thread {
    fn new(pid: u32, tid: u64) -> Self {
        Thread {
            pid,
            tid,
            lines: 0,
            last: VecDeque::with_capacity(LAST_LINES),
            ring_next: 0,
            pending: Pending::default(),
            api_seen: false,
            head_return: None,
            in_block: false,
        }
    }
}

#[derive(Debug, Clone)]
struct HeadReturn {
    api: Vec<u8>,
    ts: Option<u64>,
    line: u64,
    /// The return printed its own duration (nothing to pair for timing).
    timed: bool,
    /// The error result, when the return was one: its occurrence text lacks the call's arguments.
    error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Device {
    pub pid: Option<u32>,
    pub gfx: String,
    pub xnack: Option<bool>,
}

#[derive(Debug, Default, Clone)]
struct Pending {
    api: Vec<u8>,
    args: Vec<u8>,
    ts: Option<u64>,
    open: bool,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub lines: u64,
    pub bytes: u64,
    pub runtime_lines: u64,
    pub rocr_lines: u64,
    pub foreign_lines: u64,
    /// Lines longer than 64 KiB (kept, counted).
    pub long_lines: u64,
    /// Lines with NUL or other control bytes outside the runtime format (binary garbage).
    pub binary_lines: u64,
    /// Lines ending in `\r\n`.
    pub crlf_lines: u64,
    /// The last line had no newline (a truncated or still-written log).
    pub truncated_last_line: bool,
    /// Runtime lines per level 0..=6.
    pub levels: [u64; 7],
    pub lines_without_pid: u64,
    pub lines_without_location: u64,
    pub first_ts_us: Option<u64>,
    pub last_ts_us: Option<u64>,
    pub hip_version: Option<String>,
    pub hip_library: Option<String>,
    pub comgr_version: Option<String>,
    pub agents_enumerated: Option<u64>,
    pub devices: Vec<Device>,
    pub device_failures: Vec<Occurrence>,
    /// `Initializing HSA stack.` lines (5.x runtimes print one per API call until one succeeds),
    /// and the first of them.
    pub init_starts: u64,
    pub init_start: Option<Occurrence>,
    /// `hsa_init failed...` / `Runtime initialization failed` by message.
    pub init_failures: BTreeMap<String, Counted>,
    pub queues_created: u64,
    pub queue_sizes: BTreeMap<u64, u64>,
    /// Filled by [`Summary::finish`] (the scanning functions call it).
    pub apis: BTreeMap<String, ApiStat>,
    /// APIs while scanning, by raw name (bytes compare and hash cheaper than ordered string keys).
    #[serde(skip)]
    api_raw: Keyed<ApiStat>,
    pub api_calls: u64,
    #[serde(skip)]
    pub kernels: Keyed<u64>,
    pub kernel_launches: u64,
    #[serde(skip)]
    pub commands: Keyed<u64>,
    pub dispatch_packets: u64,
    pub barrier_packets: u64,
    /// `Cannot find CO` / `No compatible code objects` by ISA.
    pub missing_code_objects: BTreeMap<String, Counted>,
    /// Libraries (bundles) named as lacking code, by ISA (capped).
    pub missing_in: BTreeMap<String, Vec<String>>,
    pub code_object_targets: BTreeMap<String, u64>,
    pub code_object_versions: BTreeMap<String, u64>,
    /// Level-1 messages by text (with hex addresses masked), capped.
    pub errors: BTreeMap<String, Counted>,
    pub warnings: BTreeMap<String, Counted>,
    /// Level-0 lines and ROCr fatal messages.
    pub fatal: Vec<Occurrence>,
    pub other_keys: u64,
    /// Threads seen past the [`MAX_THREADS`] cap (not tracked: no last lines, no pairing), and
    /// their lines. Filled by [`Summary::finish`] from `untracked_ids`.
    pub untracked_threads: u64,
    /// More than [`MAX_UNTRACKED`] such threads: `untracked_threads` is a lower bound.
    pub untracked_threads_capped: bool,
    pub untracked_thread_lines: u64,
    #[serde(skip)]
    untracked_ids: rustc_hash::FxHashSet<(u32, u64)>,
    /// Why reading stopped before the end of the input (a truncated or corrupt compressed
    /// stream, a read error): the summary covers what was read.
    pub read_error: Option<String>,
    /// Filled by [`Summary::finish`].
    #[serde(skip)]
    pub threads: BTreeMap<(u32, u64), Thread>,
    /// Threads while scanning: index by key, with the last key looked up cached (runs of lines
    /// from one thread are the norm).
    #[serde(skip)]
    thread_ix: FxHashMap<(u32, u64), u32>,
    #[serde(skip)]
    thread_vec: Vec<Thread>,
    #[serde(skip)]
    last_thread: Option<((u32, u64), u32)>,
    /// The `[pid tid]` bytes of `last_thread`.
    #[serde(skip)]
    last_field: Vec<u8>,
    /// The pending call of lines without pid/tid (paired per API name).
    #[serde(skip)]
    pending_anon: Pending,
    /// Threads whose last lines point into the current block.
    #[serde(skip)]
    block_threads: Vec<u32>,
}

fn gfx_name(major: u32, minor: u32, stepping: u32) -> String {
    format!("gfx{major}{minor}{stepping:x}")
}

/// Masks hex addresses so that messages differing only by a pointer group together.
fn mask(b: &[u8]) -> String {
    let s = text(b);
    let mut out = String::with_capacity(s.len());
    let mut it = s.char_indices().peekable();
    let bytes = s.as_bytes();
    while let Some((i, c)) = it.next() {
        if c == '0' && bytes.get(i + 1) == Some(&b'x') {
            out.push_str("0x…");
            it.next();
            while it.peek().is_some_and(|(_, c)| c.is_ascii_hexdigit()) {
                it.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn bump(map: &mut BTreeMap<String, Counted>, key: String, o: Occurrence, other: &mut u64) {
    if let Some(c) = map.get_mut(&key) {
        c.count += 1;
        c.last = o;
    } else if map.len() < MAX_KEYS {
        map.insert(key, Counted::new(o));
    } else {
        *other += 1;
    }
}

/// Where a line is: what every [`Occurrence`] of it records.
struct At {
    line: u64,
    ts_us: Option<u64>,
    pid: Option<u32>,
}

impl At {
    fn occ(&self, m: &[u8]) -> Occurrence {
        Occurrence {
            line: self.line,
            ts_us: self.ts_us,
            pid: self.pid,
            text: text(m),
        }
    }
}

/// A line's thread: its index among the tracked threads (`None` without pid/tid, or over the
/// cap), and whether the line had no pid/tid at all.
#[derive(Clone, Copy)]
struct ThreadRef {
    anonymous: bool,
    index: Option<usize>,
}

impl Summary {
    /// Adds one line (without its `\n`); `line_no` is 1-based within this summary's input.
    pub fn add(&mut self, raw: &[u8], line_no: u64) {
        self.add_in(raw, 0, raw.len(), line_no);
        self.end_block(raw);
    }

    /// Adds the line `block[start..end]` (without its `\n`). The text of a thread's last lines
    /// is copied out of `block` only by [`Summary::end_block`], which must be called with the
    /// same block before it changes: most lines are pushed out of the last few before then, so
    /// most are never copied.
    pub fn add_in(&mut self, block: &[u8], start: usize, end: usize, line_no: u64) {
        let raw = &block[start..end];
        let l = line::parse_hinted(raw, &self.last_field);
        self.count_line(raw, &l);
        let foreign = l.kind == Kind::Foreign;
        let (key, ti) = self.thread_of(l.thread, l.thread_is_hint);
        if key.is_none() && !foreign {
            self.lines_without_pid += 1;
        }
        let at = At {
            line: line_no,
            ts_us: l.ts_us,
            pid: key.map(|k| k.0),
        };
        if let Some(i) = ti {
            self.keep_last_line(i, block, &l, line_no);
        }
        if l.kind == Kind::Runtime(0) {
            if self.fatal.len() < 64 {
                self.fatal.push(at.occ(l.msg));
            }
            return;
        }
        let thread = ThreadRef {
            anonymous: key.is_none(),
            index: ti,
        };
        match msg::classify(l.msg, foreign) {
            Event::ApiCall { api, args } => {
                if !self.api_call(api, args, thread, l.ts_us) {
                    return;
                }
            }
            Event::ApiReturn {
                api,
                result,
                rest,
                duration_us,
            } => {
                // A return is counted under its API, never as a level-1/2 message.
                self.api_return(api, result, rest, duration_us, thread, &at);
                return;
            }
            ev => self.event(ev, &at, l.msg),
        }
        self.count_level(l.kind, l.msg, &at);
    }

    /// Counts one line: bytes, line endings, kinds and levels, timestamps.
    fn count_line(&mut self, raw: &[u8], l: &line::Line) {
        self.lines += 1;
        self.bytes += raw.len() as u64 + 1;
        if raw.last() == Some(&b'\r') {
            self.crlf_lines += 1;
        }
        if raw.len() > LONG_LINE {
            self.long_lines += 1;
        }
        match l.kind {
            Kind::Runtime(lv) => {
                self.runtime_lines += 1;
                self.levels[usize::from(lv.min(6))] += 1;
                if l.file_is_empty() {
                    self.lines_without_location += 1;
                }
            }
            Kind::Rocr => self.rocr_lines += 1,
            Kind::Foreign => {
                self.foreign_lines += 1;
                if raw.iter().take(4096).any(|&c| c < 9) {
                    self.binary_lines += 1;
                }
            }
        }
        if let Some(ts) = l.ts_us {
            self.first_ts_us = Some(self.first_ts_us.map_or(ts, |f| f.min(ts)));
            self.last_ts_us = Some(self.last_ts_us.map_or(ts, |f| f.max(ts)));
        }
    }

    /// Remembers the line among thread `i`'s last lines, as a span of `block`.
    fn keep_last_line(&mut self, i: usize, block: &[u8], l: &line::Line, line_no: u64) {
        let t = &mut self.thread_vec[i];
        t.lines += 1;
        // Overwrite the oldest entry in place: no allocation and no moves once the ring is
        // full (put in order by `Thread::in_order`).
        let slot = if t.last.len() < LAST_LINES {
            t.last.push_back(RawLine::default());
            t.last.len() - 1
        } else {
            let s = t.ring_next;
            t.ring_next = if s + 1 == LAST_LINES { 0 } else { s + 1 };
            s
        };
        if let Some(o) = t.last.get_mut(slot) {
            o.line = line_no;
            o.ts_us = l.ts_us;
            let at = l.msg.as_ptr() as usize - block.as_ptr() as usize;
            o.in_block = Some((at, l.msg.len().min(TEXT_CAP)));
        }
        if !t.in_block {
            t.in_block = true;
            self.block_threads.push(i as u32);
        }
    }

    /// The pending call of a thread (or of the lines without pid/tid); `None` for a thread
    /// over the cap. `head`: whether this is the thread's first API line.
    fn pending_of(&mut self, thread: ThreadRef) -> Option<(&mut Pending, bool)> {
        match thread.index {
            Some(i) => {
                let t = &mut self.thread_vec[i];
                let head = !t.api_seen;
                t.api_seen = true;
                Some((&mut t.pending, head))
            }
            None if thread.anonymous => Some((&mut self.pending_anon, false)),
            None => None,
        }
    }

    /// An API call line: counted, and kept as its thread's pending call. `false` when the
    /// thread is over the cap (the line then counts no further).
    fn api_call(&mut self, api: &[u8], args: &[u8], thread: ThreadRef, ts: Option<u64>) -> bool {
        self.api_calls += 1;
        if let Some(a) = self.api_mut(api) {
            a.calls += 1;
        }
        let Some((p, _)) = self.pending_of(thread) else {
            return false;
        };
        p.api.clear();
        p.api.extend_from_slice(api);
        p.args.clear();
        p.args.extend_from_slice(&args[..args.len().min(TEXT_CAP)]);
        p.ts = ts;
        p.open = true;
        true
    }

    /// An API return line: paired with its thread's pending call (arguments of a failed
    /// call, the duration when the log has none), counted under its API, errors by result.
    fn api_return(
        &mut self,
        api: &[u8],
        result: &[u8],
        rest: &[u8],
        duration_us: Option<u64>,
        thread: ThreadRef,
        at: &At,
    ) {
        let is_error = result != b"hipSuccess" && result != b"hipErrorNotReady";
        let mut call_args = None;
        let mut pair_us = None;
        let mut head = false;
        if let Some((p, h)) = self.pending_of(thread) {
            head = h;
            if p.open && p.api == api {
                p.open = false;
                if is_error {
                    call_args = Some(String::from_utf8_lossy(&p.args).into_owned());
                }
                if !thread.anonymous {
                    pair_us = match (p.ts, at.ts_us) {
                        (Some(a), Some(b)) if b >= a => Some(b - a),
                        _ => None,
                    };
                }
            }
        }
        let o = is_error.then(|| Occurrence {
            line: at.line,
            ts_us: at.ts_us,
            pid: at.pid,
            text: error_text(api, &call_args.unwrap_or_default(), result, rest),
        });
        if head {
            if let Some(i) = thread.index {
                self.thread_vec[i].head_return = Some(HeadReturn {
                    api: api.to_vec(),
                    ts: at.ts_us,
                    line: at.line,
                    timed: duration_us.is_some(),
                    error: is_error.then(|| String::from_utf8_lossy(result).into_owned()),
                });
            }
        }
        let Some(a) = self.api_mut(api) else { return };
        a.returns += 1;
        if let Some(d) = duration_us.or(pair_us) {
            a.timed += 1;
            // Durations come from the log: a hostile one must not overflow the sum.
            a.total_us = a.total_us.saturating_add(d);
            a.max_us = a.max_us.max(d);
        }
        if result == b"hipErrorNotReady" {
            a.not_ready += 1;
        }
        if let Some(o) = o {
            let name = String::from_utf8_lossy(result).into_owned();
            let mut other = 0;
            bump(&mut a.errors, name, o, &mut other);
            self.other_keys += other;
        }
    }

    /// Every other recognised message: kernels, commands, packets, queues, devices, versions,
    /// missing code objects, fatal and initialisation messages.
    fn event(&mut self, ev: Event, at: &At, msg: &[u8]) {
        match ev {
            Event::ApiCall { .. } | Event::ApiReturn { .. } | Event::Other => {}
            Event::Kernel(k) => {
                self.kernel_launches += 1;
                match self.kernels.get_or_insert(k, MAX_KEYS, || 0) {
                    Some(c) => *c += 1,
                    None => self.other_keys += 1,
                }
            }
            Event::Command(c) => {
                if let Some(n) = self.commands.get_or_insert(c, 256, || 0) {
                    *n += 1;
                }
            }
            Event::Packet(true) => self.dispatch_packets += 1,
            Event::Packet(false) => self.barrier_packets += 1,
            Event::QueueCreated { size, .. } => {
                self.queues_created += 1;
                *self.queue_sizes.entry(size.unwrap_or(0)).or_default() += 1;
            }
            Event::AgentsEnumerated(n) => {
                self.agents_enumerated = Some(self.agents_enumerated.unwrap_or(0).max(n))
            }
            Event::Gfx {
                major,
                minor,
                stepping,
            } => {
                if self.devices.len() < 256 {
                    self.devices.push(Device {
                        pid: at.pid,
                        gfx: gfx_name(major, minor, stepping),
                        xnack: None,
                    })
                }
            }
            Event::Xnack(x) => {
                if let Some(d) = self.devices.last_mut() {
                    d.xnack.get_or_insert(x);
                }
            }
            Event::DeviceFailed(_) => {
                if self.device_failures.len() < 64 {
                    self.device_failures.push(at.occ(msg));
                }
            }
            Event::HipVersion(v) => self.hip_version = Some(text(v)),
            Event::HipLibrary(v) => self.hip_library = Some(text(v)),
            Event::Comgr(v) => self.comgr_version = Some(text(v)),
            Event::NoCodeObject { bundle, isa } => {
                let isa = text(isa);
                let mut other = 0;
                bump(
                    &mut self.missing_code_objects,
                    isa.clone(),
                    at.occ(msg),
                    &mut other,
                );
                if !bundle.is_empty() {
                    let libs = self.missing_in.entry(isa).or_default();
                    let b = text(bundle);
                    if libs.len() < 64 && !libs.contains(&b) {
                        libs.push(b);
                    }
                }
            }
            Event::CodeObjectTarget(t) => {
                *self.code_object_targets.entry(text(t)).or_default() += 1
            }
            Event::CodeObjectVersion(v) => {
                *self.code_object_versions.entry(text(v)).or_default() += 1
            }
            Event::Fatal => {
                if self.fatal.len() < 64 {
                    self.fatal.push(at.occ(msg));
                }
            }
            Event::InitStart => {
                self.init_starts += 1;
                if self.init_start.is_none() {
                    self.init_start = Some(at.occ(msg));
                }
            }
            Event::InitFailed => {
                let mut other = 0;
                bump(&mut self.init_failures, text(msg), at.occ(msg), &mut other);
                self.other_keys += other;
            }
        }
    }

    /// Level-1 and level-2 runtime messages, grouped by text with addresses masked.
    fn count_level(&mut self, kind: Kind, msg: &[u8], at: &At) {
        let map = match kind {
            Kind::Runtime(1) => &mut self.errors,
            Kind::Runtime(2) => &mut self.warnings,
            _ => return,
        };
        let mut other = 0;
        bump(map, mask(msg), at.occ(msg), &mut other);
        self.other_keys += other;
    }

    /// Copies the text of the last lines that still point into `block` (see [`Summary::add_in`]).
    pub fn end_block(&mut self, block: &[u8]) {
        for i in self.block_threads.drain(..) {
            let Some(t) = self.thread_vec.get_mut(i as usize) else {
                continue;
            };
            t.in_block = false;
            for o in t.last.iter_mut() {
                if let Some((at, n)) = o.in_block.take() {
                    o.bytes.clear();
                    o.bytes
                        .extend_from_slice(block.get(at..at + n).unwrap_or_default());
                }
            }
        }
    }

    fn api_mut(&mut self, api: &[u8]) -> Option<&mut ApiStat> {
        let room = MAX_KEYS.saturating_sub(self.apis.len());
        let a = self.api_raw.get_or_insert(api, room, ApiStat::default);
        if a.is_none() {
            self.other_keys += 1;
        }
        a
    }

    /// The thread of a `[pid tid]` field: its ids, and its index (None past [`MAX_THREADS`]).
    /// The field of the previous line is compared as bytes first: runs of lines from one thread
    /// are the norm, and this spares parsing the ids on every line.
    fn thread_of(&mut self, field: &[u8], is_last: bool) -> (Option<(u32, u64)>, Option<usize>) {
        if field.is_empty() {
            return (None, None);
        }
        if let Some((k, i)) = self.last_thread {
            if is_last || line::same_bytes(&self.last_field, field) {
                return (Some(k), Some(i as usize));
            }
        }
        let Some(k) = line::thread_ids(field) else {
            return (None, None);
        };
        let i = self.thread_index(k);
        if let Some(i) = i {
            self.last_field.clear();
            self.last_field.extend_from_slice(field);
            self.last_thread = Some((k, i as u32));
        }
        (Some(k), i)
    }

    /// The index of thread `k`, made on first sight (None past [`MAX_THREADS`]).
    fn thread_index(&mut self, k: (u32, u64)) -> Option<usize> {
        let i = match self.thread_ix.get(&k) {
            Some(&i) => i,
            None => {
                if self.thread_vec.len() >= MAX_THREADS {
                    self.untrack(k, 1);
                    return None;
                }
                let i = self.thread_vec.len() as u32;
                self.thread_vec.push(Thread::new(k.0, k.1));
                self.thread_ix.insert(k, i);
                i
            }
        };
        Some(i as usize)
    }

    /// Counts `lines` of thread `k`, which is over the cap.
    fn untrack(&mut self, k: (u32, u64), lines: u64) {
        self.untracked_thread_lines = self.untracked_thread_lines.saturating_add(lines);
        if self.untracked_ids.len() < MAX_UNTRACKED {
            self.untracked_ids.insert(k);
        } else if !self.untracked_ids.contains(&k) {
            self.untracked_threads_capped = true;
        }
    }

    /// Moves the scanning structures into the public maps (`apis`, `threads`). Idempotent; the
    /// scanning functions of [`super::feed`] and of the main crate's `logscan::read` call it
    /// before returning.
    pub fn finish(&mut self) {
        for (k, v) in self.api_raw.take() {
            let name = String::from_utf8_lossy(&k).into_owned();
            match self.apis.get_mut(&name) {
                Some(a) => a.absorb(v, &mut self.other_keys),
                None => {
                    self.apis.insert(name, v);
                }
            }
        }
        self.thread_ix.clear();
        self.last_thread = None;
        for mut t in std::mem::take(&mut self.thread_vec) {
            t.in_order();
            match self.threads.get_mut(&(t.pid, t.tid)) {
                Some(s) => s.absorb(t),
                None => {
                    self.threads.insert((t.pid, t.tid), t);
                }
            }
        }
        // A thread tracked in one region of the file may be over the cap in another.
        let threads = &self.threads;
        self.untracked_ids.retain(|k| !threads.contains_key(k));
        self.untracked_threads = self.untracked_ids.len() as u64;
    }

    /// Appends `o`, the summary of the input that follows this one.
    pub fn merge(&mut self, mut o: Summary) {
        let off = self.lines;
        o.shift(off);
        self.lines += o.lines;
        self.bytes += o.bytes;
        self.runtime_lines += o.runtime_lines;
        self.rocr_lines += o.rocr_lines;
        self.foreign_lines += o.foreign_lines;
        self.long_lines += o.long_lines;
        self.binary_lines += o.binary_lines;
        self.crlf_lines += o.crlf_lines;
        self.truncated_last_line = o.truncated_last_line;
        for (a, b) in self.levels.iter_mut().zip(o.levels) {
            *a += b;
        }
        self.lines_without_pid += o.lines_without_pid;
        self.lines_without_location += o.lines_without_location;
        self.first_ts_us = min_opt(self.first_ts_us, o.first_ts_us);
        self.last_ts_us = self.last_ts_us.max(o.last_ts_us);
        self.hip_version = self.hip_version.take().or(o.hip_version);
        self.hip_library = self.hip_library.take().or(o.hip_library);
        self.comgr_version = self.comgr_version.take().or(o.comgr_version);
        self.agents_enumerated = self.agents_enumerated.max(o.agents_enumerated);
        extend_capped(&mut self.devices, o.devices, 256);
        extend_capped(&mut self.device_failures, o.device_failures, 64);
        self.init_starts += o.init_starts;
        self.init_start = self.init_start.take().or(o.init_start);
        merge_counted(
            &mut self.init_failures,
            o.init_failures,
            &mut self.other_keys,
        );
        self.queues_created += o.queues_created;
        for (k, v) in o.queue_sizes {
            *self.queue_sizes.entry(k).or_default() += v;
        }
        self.api_calls += o.api_calls;
        for (k, v) in o.apis {
            let room = self.apis.len() < MAX_KEYS;
            match self.apis.get_mut(&k) {
                Some(a) => a.absorb(v, &mut self.other_keys),
                None if room => {
                    self.apis.insert(k, v);
                }
                None => self.other_keys += v.calls,
            }
        }
        // Returns at the head of `o` whose call is open at the end of `self` (same thread and
        // API): pair them as one pass would have.
        for t in &mut o.thread_vec {
            let Some(h) = t.head_return.take() else {
                continue;
            };
            let Some(&si) = self.thread_ix.get(&(t.pid, t.tid)) else {
                continue;
            };
            let p = &mut self.thread_vec[si as usize].pending;
            if !(p.open && p.api == h.api) {
                continue;
            }
            p.open = false;
            let Some(a) = o.api_raw.get_mut(&h.api[..]) else {
                continue;
            };
            if !h.timed {
                if let (Some(x), Some(y)) = (p.ts, h.ts) {
                    if y >= x {
                        a.timed += 1;
                        a.total_us = a.total_us.saturating_add(y - x);
                        a.max_us = a.max_us.max(y - x);
                    }
                }
            }
            if let Some(c) = h.error.and_then(|e| a.errors.get_mut(&e)) {
                let args = String::from_utf8_lossy(&p.args);
                for occ in [&mut c.first, &mut c.last] {
                    if occ.line == h.line {
                        if let Some(fixed) = with_args(&occ.text, &h.api, &args) {
                            occ.text = fixed;
                        }
                    }
                }
            }
        }
        for (k, v) in o.api_raw {
            let room = MAX_KEYS.saturating_sub(self.apis.len());
            let full = self.api_raw.len() >= room;
            match self.api_raw.get_mut(&k) {
                Some(a) => a.absorb(v, &mut self.other_keys),
                None if !full => {
                    self.api_raw.get_or_insert(&k, room, || v);
                }
                None => self.other_keys += v.calls,
            }
        }
        if o.pending_anon.open || !o.pending_anon.api.is_empty() {
            self.pending_anon = o.pending_anon;
        }
        self.kernel_launches += o.kernel_launches;
        for (k, v) in o.kernels {
            match self.kernels.get_or_insert(&k, MAX_KEYS, || 0) {
                Some(c) => *c += v,
                None => self.other_keys += v,
            }
        }
        for (k, v) in o.commands {
            if let Some(c) = self.commands.get_or_insert(&k, usize::MAX, || 0) {
                *c += v;
            }
        }
        self.dispatch_packets += o.dispatch_packets;
        self.barrier_packets += o.barrier_packets;
        merge_counted(
            &mut self.missing_code_objects,
            o.missing_code_objects,
            &mut self.other_keys,
        );
        for (k, v) in o.missing_in {
            let libs = self.missing_in.entry(k).or_default();
            for b in v {
                if libs.len() < 64 && !libs.contains(&b) {
                    libs.push(b);
                }
            }
        }
        for (k, v) in o.code_object_targets {
            *self.code_object_targets.entry(k).or_default() += v;
        }
        for (k, v) in o.code_object_versions {
            *self.code_object_versions.entry(k).or_default() += v;
        }
        merge_counted(&mut self.errors, o.errors, &mut self.other_keys);
        merge_counted(&mut self.warnings, o.warnings, &mut self.other_keys);
        extend_capped(&mut self.fatal, o.fatal, 64);
        self.other_keys += o.other_keys;
        for (k, t) in o.threads {
            let room = self.threads.len() < MAX_THREADS;
            match self.threads.get_mut(&k) {
                Some(s) => s.absorb(t),
                None if room => {
                    self.threads.insert(k, t);
                }
                None => self.untrack(k, t.lines),
            }
        }
        for t in o.thread_vec {
            match self.thread_ix.get(&(t.pid, t.tid)) {
                Some(&i) => self.thread_vec[i as usize].absorb(t),
                None if self.thread_vec.len() < MAX_THREADS => {
                    self.thread_ix
                        .insert((t.pid, t.tid), self.thread_vec.len() as u32);
                    self.thread_vec.push(t);
                }
                None => self.untrack((t.pid, t.tid), t.lines),
            }
        }
        self.untracked_thread_lines = self
            .untracked_thread_lines
            .saturating_add(o.untracked_thread_lines);
        self.untracked_threads_capped |= o.untracked_threads_capped;
        for k in o.untracked_ids {
            self.untrack(k, 0);
        }
        self.read_error = self.read_error.take().or(o.read_error);
        self.last_thread = None;
    }

    /// Adds `off` to every line number (this summary follows `off` lines of input).
    fn shift(&mut self, off: u64) {
        let f = |o: &mut Occurrence| o.line += off;
        let fc = |c: &mut Counted| {
            c.first.line += off;
            c.last.line += off;
        };
        self.device_failures.iter_mut().for_each(f);
        self.init_start.iter_mut().for_each(f);
        self.init_failures.values_mut().for_each(fc);
        self.fatal.iter_mut().for_each(f);
        self.apis
            .values_mut()
            .chain(self.api_raw.values_mut())
            .flat_map(|a| a.errors.values_mut())
            .for_each(fc);
        self.missing_code_objects.values_mut().for_each(fc);
        self.errors.values_mut().for_each(fc);
        self.warnings.values_mut().for_each(fc);
        self.threads
            .values_mut()
            .chain(self.thread_vec.iter_mut())
            .flat_map(|t| t.last.iter_mut())
            .for_each(|r| r.line += off);
        for h in self
            .thread_vec
            .iter_mut()
            .filter_map(|t| t.head_return.as_mut())
        {
            h.line += off;
        }
    }
}

fn min_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn extend_capped<T>(v: &mut Vec<T>, o: Vec<T>, cap: usize) {
    let room = cap.saturating_sub(v.len());
    v.extend(o.into_iter().take(room));
}

fn merge_counted(a: &mut BTreeMap<String, Counted>, b: BTreeMap<String, Counted>, other: &mut u64) {
    for (k, v) in b {
        let room = a.len() < MAX_KEYS;
        match a.get_mut(&k) {
            Some(c) => c.merge(v),
            None if room => {
                a.insert(k, v);
            }
            None => *other += v.count,
        }
    }
}

impl ApiStat {
    fn absorb(&mut self, v: ApiStat, other: &mut u64) {
        self.calls += v.calls;
        self.returns += v.returns;
        self.not_ready += v.not_ready;
        self.timed += v.timed;
        self.total_us = self.total_us.saturating_add(v.total_us);
        self.max_us = self.max_us.max(v.max_us);
        merge_counted(&mut self.errors, v.errors, other);
    }
}

impl Thread {
    /// Puts the ring of last lines in order, oldest first.
    fn in_order(&mut self) {
        self.last.rotate_left(self.ring_next);
        self.ring_next = 0;
    }

    /// Appends `t`, the same thread's lines in the input that follows.
    fn absorb(&mut self, mut t: Thread) {
        self.in_order();
        t.in_order();
        self.lines += t.lines;
        self.last.extend(t.last);
        while self.last.len() > LAST_LINES {
            self.last.pop_front();
        }
        if t.api_seen {
            self.pending = t.pending;
            self.api_seen = true;
        }
    }
}

/// The text of an error return: `api ( args ) -> result rest`.
fn error_text(api: &[u8], args: &str, result: &[u8], rest: &[u8]) -> String {
    format!(
        "{} ( {} ) -> {} {}",
        String::from_utf8_lossy(api),
        args,
        String::from_utf8_lossy(result),
        text(rest)
    )
    .trim_end()
    .to_string()
}

/// `text` made by [`error_text`] without arguments, with `args` put in.
fn with_args(text: &str, api: &[u8], args: &str) -> Option<String> {
    let head = format!("{} (  ) -> ", String::from_utf8_lossy(api));
    let tail = text.strip_prefix(&head)?;
    Some(format!(
        "{} ( {} ) -> {}",
        String::from_utf8_lossy(api),
        args,
        tail
    ))
}
