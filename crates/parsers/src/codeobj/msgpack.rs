//! A small, bounded MessagePack reader (enough for `NT_AMDGPU_METADATA`).
//!
//! Format: the MessagePack specification (github.com/msgpack/msgpack/blob/master/spec.md).
//! Why not a crate: the metadata needs maps, arrays, strings and integers only, and the
//! reader must be strict about limits (depth, item count, lengths checked against the input
//! before anything is allocated), which is less code written here than configured elsewhere.

use super::{invalid, slice, Result};

/// Nesting deeper than this is refused (real metadata nests 4 levels).
pub const MAX_DEPTH: usize = 32;
/// Total values in one document (a code object with 10 000 kernels has ~1M).
pub const MAX_ITEMS: usize = 4 << 20;
/// Elements reserved up front for one container; larger ones grow as elements are read.
/// A count is checked against the bytes left, but an element may be 1 byte while a `Value` is
/// 32 (a map pair 64), and every nested container may claim the rest of the input: up front,
/// a 64 KiB note could reserve 32 levels x 64 Ki x 64 B = 128 MiB before one element was read.
pub const PREALLOC: usize = 256;

#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Nil,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(&'a str),
    Bin(&'a [u8]),
    Array(Vec<Value<'a>>),
    Map(Vec<(Value<'a>, Value<'a>)>),
    Ext(i8, &'a [u8]),
}

impl<'a> Value<'a> {
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::UInt(u) => Some(*u),
            Value::Int(i) if *i >= 0 => Some(*i as u64),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    /// The value under a string key of a map.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Map(m) => m
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Decodes one value from the start of `b`. Returns it and the number of bytes used.
pub fn decode(b: &[u8]) -> Result<(Value<'_>, usize)> {
    let mut r = Reader {
        b,
        pos: 0,
        items: 0,
    };
    let v = r.value(0)?;
    Ok((v, r.pos as usize))
}

struct Reader<'a> {
    b: &'a [u8],
    pos: u64,
    items: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let s = slice(self.b, self.pos, n, "msgpack data")?;
        self.pos += n;
        Ok(s)
    }
    fn uint(&mut self, n: u64) -> Result<u64> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, b| (acc << 8) | *b as u64))
    }
    fn str(&mut self, n: u64) -> Result<Value<'a>> {
        let s = self.take(n)?;
        std::str::from_utf8(s)
            .map(Value::Str)
            .map_err(|e| invalid("msgpack string", e.to_string()))
    }
    fn count(&mut self, n: u64, per_item: u64) -> Result<usize> {
        // Each element needs at least one byte: a count above the remaining input is a lie.
        let left = (self.b.len() as u64).saturating_sub(self.pos);
        if n.saturating_mul(per_item) > left {
            return Err(invalid(
                "msgpack container",
                format!("claims {n} elements with {left} bytes left"),
            ));
        }
        Ok(n as usize)
    }
    fn array(&mut self, n: u64, depth: usize) -> Result<Value<'a>> {
        let n = self.count(n, 1)?;
        let mut v = Vec::with_capacity(n.min(PREALLOC));
        for _ in 0..n {
            v.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(v))
    }
    fn map(&mut self, n: u64, depth: usize) -> Result<Value<'a>> {
        let n = self.count(n, 2)?;
        let mut v = Vec::with_capacity(n.min(PREALLOC));
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let val = self.value(depth + 1)?;
            v.push((k, val));
        }
        Ok(Value::Map(v))
    }
    fn value(&mut self, depth: usize) -> Result<Value<'a>> {
        if depth > MAX_DEPTH {
            return Err(invalid(
                "msgpack data",
                format!("nested deeper than {MAX_DEPTH}"),
            ));
        }
        self.items += 1;
        if self.items > MAX_ITEMS {
            return Err(invalid(
                "msgpack data",
                format!("more than {MAX_ITEMS} values"),
            ));
        }
        let t = self.take(1)?[0];
        Ok(match t {
            0x00..=0x7f => Value::UInt(t as u64),
            0x80..=0x8f => return self.map((t & 0x0f) as u64, depth),
            0x90..=0x9f => return self.array((t & 0x0f) as u64, depth),
            0xa0..=0xbf => return self.str((t & 0x1f) as u64),
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.uint(1 << (t - 0xc4))?;
                Value::Bin(self.take(n)?)
            }
            0xc7..=0xc9 => {
                let n = self.uint(1 << (t - 0xc7))?;
                let ty = self.take(1)?[0] as i8;
                Value::Ext(ty, self.take(n)?)
            }
            0xca => Value::Float(f32::from_bits(self.uint(4)? as u32) as f64),
            0xcb => Value::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Value::UInt(self.uint(1 << (t - 0xcc))?),
            0xd0..=0xd3 => {
                let n = 1u64 << (t - 0xd0);
                let raw = self.uint(n)?;
                let shift = 64 - 8 * n as u32;
                Value::Int(((raw << shift) as i64) >> shift)
            }
            0xd4..=0xd8 => {
                let ty = self.take(1)?[0] as i8;
                Value::Ext(ty, self.take(1 << (t - 0xd4))?)
            }
            0xd9..=0xdb => {
                let n = self.uint(1 << (t - 0xd9))?;
                return self.str(n);
            }
            0xdc | 0xdd => {
                let n = self.uint(if t == 0xdc { 2 } else { 4 })?;
                return self.array(n, depth);
            }
            0xde | 0xdf => {
                let n = self.uint(if t == 0xde { 2 } else { 4 })?;
                return self.map(n, depth);
            }
            0xe0..=0xff => Value::Int((t as i8) as i64),
            0xc1 => return Err(invalid("msgpack data", "byte 0xc1 is never used")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_maps_arrays_strings_and_ints() {
        // {"a": [1, -1, 300], "b": "hi"}
        let b = [
            0x82, 0xa1, b'a', 0x93, 0x01, 0xff, 0xcd, 0x01, 0x2c, 0xa1, b'b', 0xa2, b'h', b'i',
        ];
        let (v, used) = decode(&b).unwrap();
        assert_eq!(used, b.len());
        let a = v.get("a").unwrap().as_array().unwrap();
        assert_eq!(a, &[Value::UInt(1), Value::Int(-1), Value::UInt(300)]);
        assert_eq!(v.get("b").unwrap().as_str(), Some("hi"));
    }

    #[test]
    fn lies_and_depth_are_errors() {
        assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'x']).is_err());
        assert!(decode(&[0x91; 100]).is_err());
        assert!(decode(&[]).is_err());
    }
}
