//! Appending integers to a byte buffer without `fmt` machinery: lineorder alone prints about
//! 60 million numbers at scale 1, so this is on the hot path.

const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `%ld`.
#[inline]
pub fn push_int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    push_uint(out, v.unsigned_abs());
}

/// An unsigned integer in decimal.
#[inline]
pub fn push_uint(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        let pair = v as usize * 2;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        i -= 1;
        buf[i] = b'0' + v as u8;
    }
    out.extend_from_slice(&buf[i..]);
}

/// `%0Nld` for a non-negative value: at least `width` digits, zero-padded.
pub fn push_padded(out: &mut Vec<u8>, v: u64, width: usize) {
    let start = out.len();
    push_uint(out, v);
    let digits = out.len() - start;
    if digits < width {
        let pad = width - digits;
        out.splice(start..start, std::iter::repeat_n(b'0', pad));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn matches_printf() {
        for v in [0i64, 7, 10, 99, 100, 101, 12_345, -5, -100, i64::MAX, i64::MIN] {
            assert_eq!(s(|o| push_int(o, v)), format!("{v}"));
        }
        assert_eq!(s(|o| push_padded(o, 7, 9)), "000000007");
        assert_eq!(s(|o| push_padded(o, 1_234_567_890, 9)), "1234567890");
        assert_eq!(s(|o| push_padded(o, 0, 2)), "00");
    }
}
