//! The envelope of a line of the upstream server, checked without
//! building its members: is it a result response to one of our requests?

use super::RawResult;
use crate::jsonrpc::result_envelope;
use crate::pipe::KeptBuffer;

/// The upstream id and the result of a line that is a valid result
/// response with an id of the upstream client; the line itself when it is
/// anything else, or when only the full parse can tell (then the full path
/// decodes it and gives its exact error).
///
/// The full path's parser refuses more than 127 levels and lone surrogate
/// escapes, which `RawValue` lets through unparsed; a line with either (or
/// with any surrogate escape, a rare thing that is not worth a second
/// look) goes to the full path.
///
/// The result's pieces keep the line; when the last is dropped its buffer
/// goes back to `kept`, for the next big line.
pub(crate) fn response(line: Vec<u8>, kept: &KeptBuffer) -> Result<(u64, RawResult), Vec<u8>> {
    // A line that is not UTF-8 is no JSON: the full path gives its error.
    let line = String::from_utf8(line).map_err(|err| err.into_bytes())?;
    let Some((id, start, end)) = result_envelope(&line) else {
        return Err(line.into_bytes());
    };
    Ok((id, RawResult::new(line, (start, end), kept.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(line: &str) -> Option<(u64, String)> {
        response(line.as_bytes().to_vec(), &KeptBuffer::default()).ok().map(|(id, raw)| (id, raw.text().to_owned()))
    }

    #[test]
    fn a_result_response_with_our_id_is_taken_with_its_result_as_it_came() {
        let got = accepted(r#"{"jsonrpc":"2.0","id":7,"result":{"a" : [1, 2.50]}}"#);
        assert_eq!(got, Some((7, r#"{"a" : [1, 2.50]}"#.to_owned())));
        // Escapes in a name or in "2.0" are read as the full parse reads
        // them; other members are skipped.
        let got = accepted(r#"{"jsonr\u0070c":"2\u002e0","x":[{}],"\u0069d":3,"result":1}"#);
        assert_eq!(got, Some((3, "1".to_owned())));
    }

    #[test]
    fn everything_else_goes_to_the_full_path() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            // A member that is null is there: the full path refuses both.
            r#"{"jsonrpc":"2.0","id":1,"method":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":null}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"1","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":-1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":-0,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1e2,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            // A member twice: the full path takes its last value.
            r#"{"jsonrpc":"2.0","result":1,"id":3,"result":{"b":2}}"#,
            r#"{"jsonrpc":"2.0","id":3,"id":4,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"\ud83d\ude00"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":"\uDC00"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#,
            // By position, as serde's derive would read a struct.
            r#"["2.0",1]"#,
        ] {
            assert_eq!(accepted(line), None, "{line}");
        }
        // Not UTF-8: no JSON, and the full path gets the line as it came.
        let not_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}".to_vec();
        assert_eq!(response(not_utf8.clone(), &KeptBuffer::default()).err(), Some(not_utf8));
        let deep = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#, "[".repeat(127), "]".repeat(127));
        assert_eq!(accepted(&deep), None);
        let within = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#, "[".repeat(126), "]".repeat(126));
        assert_eq!(accepted(&within).map(|(id, _)| id), Some(1));
    }
}
