//! A bound value converted to the type PostgreSQL inferred for its parameter (Parse/Describe's
//! parameter types), in the binary format. litebench binds where pgbench pastes its variables'
//! text into the SQL, so every value the pasted text would have given must convert: an integer
//! into `numeric` or `float8`, a whole double into `int4`, the text `t` into `boolean`, a number
//! into a text parameter; what does not convert exactly (5.5 into `int4`) is refused in one line
//! naming the value and the type, before anything is sent.

use bytes::{BufMut, BytesMut};
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};

use crate::engines::Value;

/// A bound value, converted to whatever type PostgreSQL inferred for its parameter.
#[derive(Debug, Clone, Copy)]
pub struct PgParam<'a>(pub Value<'a>);

type BoxError = Box<dyn std::error::Error + Sync + Send>;

fn cannot(what: &str, ty: &Type) -> BoxError {
    format!("cannot bind {what} to a parameter of type {ty}; cast the parameter in the SQL, e.g. CAST(? AS text)")
        .into()
}

/// A double that is a whole number in `i64`'s range, as that integer.
fn whole(v: f64) -> Option<i64> {
    (v.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&v)).then_some(v as i64)
}

impl ToSql for PgParam<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        let range = |v: i64| -> BoxError { format!("integer {v} is out of range for a parameter of type {ty}").into() };
        let is_text = <&str as ToSql>::accepts(ty);
        match self.0 {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => match *ty {
                Type::INT8 => v.to_sql(ty, out),
                Type::INT4 => i32::try_from(v).map_err(|_| range(v))?.to_sql(ty, out),
                Type::INT2 => i16::try_from(v).map_err(|_| range(v))?.to_sql(ty, out),
                Type::OID => u32::try_from(v).map_err(|_| range(v))?.to_sql(ty, out),
                Type::FLOAT8 => (v as f64).to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                Type::BOOL => (v != 0).to_sql(ty, out),
                Type::NUMERIC => numeric(&v.to_string(), out).ok_or_else(|| cannot("an integer", ty)),
                _ if is_text => v.to_string().as_str().to_sql(ty, out),
                _ => Err(cannot("an integer", ty)),
            },
            Value::Real(v) => match *ty {
                Type::FLOAT8 => v.to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                Type::INT8 | Type::INT4 | Type::INT2 | Type::OID => match whole(v) {
                    Some(i) => PgParam(Value::Int(i)).to_sql(ty, out),
                    None => Err(format!("cannot bind {v} to a parameter of type {ty}: not a whole number in its range; cast the parameter in the SQL, e.g. CAST(? AS float8)").into()),
                },
                Type::NUMERIC => numeric_double(v, out),
                _ if is_text => v.to_string().as_str().to_sql(ty, out),
                _ => Err(cannot("a real number", ty)),
            },
            Value::Text(s) => {
                let parse_err = || -> BoxError { format!("text {s:?} is not a valid {ty}").into() };
                match *ty {
                    Type::INT8 => s.trim().parse::<i64>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::INT4 => s.trim().parse::<i32>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::INT2 => s.trim().parse::<i16>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::FLOAT8 => s.trim().parse::<f64>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::FLOAT4 => s.trim().parse::<f32>().map_err(|_| parse_err())?.to_sql(ty, out),
                    Type::BOOL => boolean(s).ok_or_else(parse_err)?.to_sql(ty, out),
                    Type::NUMERIC => numeric(s.trim(), out).ok_or_else(parse_err),
                    Type::BYTEA => s.as_bytes().to_sql(ty, out),
                    _ if is_text => s.to_sql(ty, out),
                    _ => Err(cannot("text", ty)),
                }
            }
            Value::Blob(v) => match *ty {
                Type::BYTEA => v.to_sql(ty, out),
                _ => Err(cannot("a blob", ty)),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// Text as PostgreSQL's `boolin` reads it: a prefix of `true`, `false`, `yes` or `no`, `on`,
/// `off`, `1` or `0`, in any case, blanks around it allowed (what `\gset` of a boolean stores,
/// `t` or `f`, among them).
fn boolean(s: &str) -> Option<bool> {
    let t = s.trim().to_ascii_lowercase();
    let prefix = |w: &str| !t.is_empty() && w.starts_with(t.as_str());
    if prefix("true") || prefix("yes") || t == "on" || t == "1" {
        Some(true)
    } else if prefix("false") || prefix("no") || t == "off" || t == "of" || t == "0" {
        Some(false)
    } else {
        None
    }
}

/// A double as a `numeric`: its shortest exact decimal (Rust writes no exponent), or NaN and
/// the infinities PostgreSQL 14 and later store.
fn numeric_double(v: f64, out: &mut BytesMut) -> Result<IsNull, BoxError> {
    let special = if v.is_nan() {
        0xC000
    } else if v == f64::INFINITY {
        0xD000
    } else if v == f64::NEG_INFINITY {
        0xF000
    } else {
        numeric(&v.to_string(), out).ok_or_else(|| -> BoxError { format!("cannot bind {v} as numeric").into() })?;
        return Ok(IsNull::No);
    };
    for half in [0u16, 0, special, 0] {
        out.put_u16(half);
    }
    Ok(IsNull::No)
}

/// A decimal `[-+]digits[.digits]` as PostgreSQL's binary `numeric` (base-10000 digits, the
/// weight of the first, the sign, the scale); `None` for any other text.
fn numeric(text: &str, out: &mut BytesMut) -> Option<IsNull> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    if int.len() + frac.len() == 0 || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let scale = u16::try_from(frac.len()).ok()?;
    // The digits padded to whole groups of four on both sides of the point.
    let lead = (4 - int.len() % 4) % 4;
    let trail = (4 - frac.len() % 4) % 4;
    let padded: Vec<u8> = std::iter::repeat_n(b'0', lead)
        .chain(int.bytes())
        .chain(frac.bytes())
        .chain(std::iter::repeat_n(b'0', trail))
        .collect();
    let mut groups: Vec<u16> = padded
        .chunks(4)
        .map(|c| c.iter().fold(0u16, |a, d| a * 10 + u16::from(d - b'0')))
        .collect();
    let mut weight = ((lead + int.len()) / 4) as i32 - 1;
    let leading_zeros = groups.iter().take_while(|g| **g == 0).count();
    groups.drain(..leading_zeros);
    weight -= leading_zeros as i32;
    while groups.last() == Some(&0) {
        groups.pop();
    }
    if groups.is_empty() {
        weight = 0;
    }
    out.put_u16(u16::try_from(groups.len()).ok()?);
    out.put_i16(i16::try_from(weight).ok()?);
    out.put_u16(if negative && !groups.is_empty() { 0x4000 } else { 0 });
    out.put_u16(scale);
    for g in groups {
        out.put_u16(g);
    }
    Some(IsNull::No)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(v: Value<'_>, ty: &Type) -> Result<Vec<u8>, String> {
        let mut out = BytesMut::new();
        PgParam(v).to_sql(ty, &mut out).map_err(|e| e.to_string())?;
        Ok(out.to_vec())
    }

    fn numeric_of(groups: &[u16], weight: i16, negative: bool, scale: u16) -> Vec<u8> {
        let mut v = Vec::new();
        for half in [
            groups.len() as u16,
            weight as u16,
            if negative { 0x4000 } else { 0 },
            scale,
        ] {
            v.extend_from_slice(&half.to_be_bytes());
        }
        for g in groups {
            v.extend_from_slice(&g.to_be_bytes());
        }
        v
    }

    /// Issue 47: what pgbench's pasted text gives, binding gives (`SELECT :x * 2` with x = 5.0
    /// infers int4; `:x * 2.5` with x = 5 infers numeric); what cannot convert is one line.
    #[test]
    fn values_convert_to_the_inferred_type_where_exact() {
        assert_eq!(bound(Value::Real(5.0), &Type::INT4), Ok(5i32.to_be_bytes().to_vec()));
        assert_eq!(
            bound(Value::Real(-3.0), &Type::INT8),
            Ok((-3i64).to_be_bytes().to_vec())
        );
        assert_eq!(
            bound(Value::Real(5.5), &Type::INT4),
            Err("cannot bind 5.5 to a parameter of type int4: not a whole number in its range; cast the parameter in the SQL, e.g. CAST(? AS float8)".into())
        );
        assert!(bound(Value::Real(1e10), &Type::INT4)
            .unwrap_err()
            .contains("out of range"));
        assert_eq!(bound(Value::Int(5), &Type::NUMERIC), Ok(numeric_of(&[5], 0, false, 0)));
        assert_eq!(
            bound(Value::Int(-123_456_789), &Type::NUMERIC),
            Ok(numeric_of(&[1, 2345, 6789], 2, true, 0))
        );
        assert_eq!(
            bound(Value::Int(20_000), &Type::NUMERIC),
            Ok(numeric_of(&[2], 1, false, 0))
        );
        assert_eq!(bound(Value::Int(0), &Type::NUMERIC), Ok(numeric_of(&[], 0, false, 0)));
        assert_eq!(
            bound(Value::Real(2.5), &Type::NUMERIC),
            Ok(numeric_of(&[2, 5000], 0, false, 1))
        );
        assert_eq!(
            bound(Value::Real(-0.0005), &Type::NUMERIC),
            Ok(numeric_of(&[5], -1, true, 4))
        );
        assert_eq!(
            bound(Value::Text("12345.6667"), &Type::NUMERIC),
            Ok(numeric_of(&[1, 2345, 6667], 1, false, 4))
        );
        assert_eq!(
            bound(Value::Real(f64::NAN), &Type::NUMERIC),
            Ok(vec![0, 0, 0, 0, 0xC0, 0, 0, 0])
        );
        assert!(bound(Value::Text("1e5x"), &Type::NUMERIC).is_err());
        // A \gset of a boolean stores pgbench's text, `t` or `f`.
        assert_eq!(bound(Value::Text("t"), &Type::BOOL), Ok(vec![1]));
        assert_eq!(bound(Value::Text("f"), &Type::BOOL), Ok(vec![0]));
        assert!(bound(Value::Text("maybe"), &Type::BOOL).is_err());
        assert_eq!(bound(Value::Int(5), &Type::TEXT), Ok(b"5".to_vec()));
    }
}
