//! A serde serializer that writes canonical JSON directly: the same bytes as
//! serializing to a `serde_json::Value` and writing that with sorted keys,
//! without building the value tree first. Object members are written in
//! the order they come; an object whose keys did not come in byte order is
//! rewritten once, sorted, from a copy of its own bytes.

use serde::ser::{self, Error as _, Serialize};
use serde_json::{Error, Value};
use std::borrow::Cow;
use std::ops::Range;

type Result<T = ()> = std::result::Result<T, Error>;

/// Writes the canonical JSON of `value` to `out`.
pub(crate) fn write<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result {
    value.serialize(Canonical { out })
}

/// Scalars go through `Value`, so numbers print exactly as `serde_json`
/// prints a value's number (and non-finite floats become `null`, as
/// `to_value` makes them).
fn scalar(out: &mut Vec<u8>, value: &Value) -> Result {
    serde_json::to_writer(out, value)
}

struct Canonical<'o> {
    out: &'o mut Vec<u8>,
}

/// One object being written: where it starts and each member's key and
/// the range of its `"key":value` bytes.
struct Object<'o> {
    out: &'o mut Vec<u8>,
    start: usize,
    members: Vec<(Cow<'static, str>, Range<usize>)>,
    /// The key of a map entry whose value comes next.
    pending: Option<String>,
    /// For an externally tagged variant: the tag object around this one.
    wrap: bool,
}

impl<'o> Object<'o> {
    fn open(out: &'o mut Vec<u8>, wrap: bool) -> Object<'o> {
        out.push(b'{');
        Object {
            start: out.len(),
            out,
            members: Vec::new(),
            pending: None,
            wrap,
        }
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: Cow<'static, str>, value: &T) -> Result {
        if !self.members.is_empty() {
            self.out.push(b',');
        }
        let start = self.out.len();
        serde_json::to_writer(&mut *self.out, key.as_ref())?;
        self.out.push(b':');
        value.serialize(Canonical { out: self.out })?;
        self.members.push((key, start..self.out.len()));
        Ok(())
    }

    fn close(mut self) -> Result {
        let sorted = self
            .members
            .windows(2)
            .all(|w| w[0].0.as_bytes() < w[1].0.as_bytes());
        if !sorted {
            // Sort by key; of equal keys the last one written wins, as in
            // a map that is assigned each member in turn.
            let body = self.out[self.start..].to_vec();
            self.out.truncate(self.start);
            let mut members = std::mem::take(&mut self.members);
            members.reverse();
            members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            members.dedup_by(|later, earlier| later.0 == earlier.0);
            for (i, (_, range)) in members.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.out
                    .extend_from_slice(&body[range.start - self.start..range.end - self.start]);
            }
        }
        self.out.push(b'}');
        if self.wrap {
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// An array being written.
struct Array<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
    wrap: bool,
}

impl<'o> Array<'o> {
    fn open(out: &'o mut Vec<u8>, wrap: bool) -> Array<'o> {
        out.push(b'[');
        Array {
            out,
            first: true,
            wrap,
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Canonical { out: self.out })
    }

    fn close(self) -> Result {
        self.out.push(b']');
        if self.wrap {
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// Opens `{"variant":` for an externally tagged variant.
fn tag(out: &mut Vec<u8>, variant: &str) -> Result {
    out.push(b'{');
    serde_json::to_writer(&mut *out, variant)?;
    out.push(b':');
    Ok(())
}

impl<'o> ser::Serializer for Canonical<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Array<'o>;
    type SerializeTuple = Array<'o>;
    type SerializeTupleStruct = Array<'o>;
    type SerializeTupleVariant = Array<'o>;
    type SerializeMap = Object<'o>;
    type SerializeStruct = Object<'o>;
    type SerializeStructVariant = Object<'o>;

    fn serialize_bool(self, v: bool) -> Result {
        scalar(self.out, &Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_i128(self, v: i128) -> Result {
        match (u64::try_from(v), i64::try_from(v)) {
            (Ok(u), _) => scalar(self.out, &Value::from(u)),
            (_, Ok(i)) => scalar(self.out, &Value::from(i)),
            _ => Err(Error::custom("number out of range")),
        }
    }
    fn serialize_u8(self, v: u8) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_u128(self, v: u128) -> Result {
        match u64::try_from(v) {
            Ok(u) => scalar(self.out, &Value::from(u)),
            Err(_) => Err(Error::custom("number out of range")),
        }
    }
    fn serialize_f32(self, v: f32) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result {
        scalar(self.out, &Value::from(v))
    }
    fn serialize_char(self, v: char) -> Result {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result {
        serde_json::to_writer(self.out, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        let mut array = Array::open(self.out, false);
        for b in v {
            array.element(b)?;
        }
        array.close()
    }
    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        tag(self.out, variant)?;
        value.serialize(Canonical { out: self.out })?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Array<'o>> {
        Ok(Array::open(self.out, false))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Array<'o>> {
        Ok(Array::open(self.out, false))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Array<'o>> {
        Ok(Array::open(self.out, false))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Array<'o>> {
        tag(self.out, variant)?;
        Ok(Array::open(self.out, true))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Object<'o>> {
        Ok(Object::open(self.out, false))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Object<'o>> {
        Ok(Object::open(self.out, false))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Object<'o>> {
        tag(self.out, variant)?;
        Ok(Object::open(self.out, true))
    }
}

impl ser::SerializeSeq for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeTuple for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeTupleStruct for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeTupleVariant for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        // A key is whatever `serde_json` turns it into: a string, or a
        // number or boolean as text.
        self.pending = Some(match serde_json::to_value(key)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(Error::custom("key must be a string")),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let key = self
            .pending
            .take()
            .ok_or_else(|| Error::custom("a map value without its key"))?;
        self.member(Cow::Owned(key), value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.member(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeStructVariant for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.member(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result {
        self.close()
    }
}
