//! The `WWW-Authenticate` challenge of a 401 or 403 (RFC 6750 section 3,
//! RFC 9728 section 5.1): the `Bearer` scheme and its parameters
//! `resource_metadata`, `scope` and `error`. Pure.

/// What a Bearer challenge asks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// The URL of the protected resource metadata, when the server gave it.
    pub resource_metadata: Option<String>,
    /// The scopes the request needs (space-separated).
    pub scope: Option<String>,
    /// The OAuth error code, such as `invalid_token` or `insufficient_scope`.
    pub error: Option<String>,
}

impl Challenge {
    /// The Bearer challenge among the values of the header; an empty one
    /// when there is none (a 401 without a header still asks for a token).
    pub(crate) fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Challenge {
        values.into_iter().find_map(bearer).unwrap_or_default()
    }

    /// `insufficient_scope`: the token is valid but lacks a scope.
    pub(crate) fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The parameters of the `Bearer` challenge of one header value. A value
/// can hold several challenges; the parameters of Bearer end where the
/// next scheme starts (a token that is not followed by `=`).
fn bearer(value: &str) -> Option<Challenge> {
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        let (scheme, after) = token(rest);
        if scheme.is_empty() {
            return None;
        }
        rest = after;
        let params = params(&mut rest);
        if scheme.eq_ignore_ascii_case("bearer") {
            let mut challenge = Challenge::default();
            for (name, value) in params {
                match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => challenge.resource_metadata = Some(value),
                    "scope" => challenge.scope = Some(value),
                    "error" => challenge.error = Some(value),
                    _ => {}
                }
            }
            return Some(challenge);
        }
    }
}

/// `name=value` pairs until the next scheme or the end. A token68 in their
/// place (RFC 9110 section 11.3: `Negotiate YWJj==`) is passed over.
fn params(rest: &mut &str) -> Vec<(String, String)> {
    if let Some(after) = token68(rest) {
        *rest = after;
        return Vec::new();
    }
    let mut out = Vec::new();
    loop {
        let trimmed = rest.trim_start_matches([' ', '\t', ',']);
        let (name, after) = token(trimmed);
        let after_ws = after.trim_start_matches([' ', '\t']);
        if name.is_empty() || !after_ws.starts_with('=') {
            // The next scheme (or a token68, which Bearer does not use).
            *rest = trimmed;
            return out;
        }
        let value_start = after_ws[1..].trim_start_matches([' ', '\t']);
        let (value, after_value) = if let Some(quoted) = value_start.strip_prefix('"') {
            quoted_string(quoted)
        } else {
            let (value, after) = token(value_start);
            (value.to_owned(), after)
        };
        out.push((name.to_owned(), value));
        *rest = after_value;
    }
}

/// What follows a token68 that stands alone after a scheme (spaces, the
/// token68, then a comma or the end); `None` when the scheme's body is not
/// one. A name followed by `=` and a value is a parameter, not a token68.
fn token68(text: &str) -> Option<&str> {
    let body = text.strip_prefix([' ', '\t'])?.trim_start_matches([' ', '\t']);
    let end = body.find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/".contains(c))).unwrap_or(body.len());
    if end == 0 {
        return None;
    }
    let after = body[end..].trim_start_matches('=').trim_start_matches([' ', '\t']);
    (after.is_empty() || after.starts_with(',')).then_some(after)
}

/// A `token` of RFC 9110 at the start of `text`, and the rest.
fn token(text: &str) -> (&str, &str) {
    let end = text
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(*c)))
        .map_or(text.len(), |(i, _)| i);
    text.split_at(end)
}

/// The rest of a quoted string after its opening quote: its unescaped
/// text, and what follows the closing quote.
fn quoted_string(text: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &text[i + 1..]),
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    out.push(escaped);
                }
            }
            c => out.push(c),
        }
    }
    (out, "")
}

#[cfg(test)]
mod tests {
    use super::Challenge;

    #[test]
    fn the_bearer_parameters_come_out_of_each_form_of_the_header() {
        let c = Challenge::parse([
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#,
        ]);
        assert_eq!(
            c,
            Challenge {
                resource_metadata: Some("https://mcp.example.com/.well-known/oauth-protected-resource".into()),
                scope: Some("files:read".into()),
                error: None
            }
        );
        let c = Challenge::parse([
            r#"Bearer error="insufficient_scope", scope="files:write files:read", error_description="x \"y\"""#,
        ]);
        assert!(c.is_insufficient_scope());
        assert_eq!(c.scope.as_deref(), Some("files:write files:read"));
        // Another scheme first, unquoted values, any case of the names.
        let c = Challenge::parse([r#"Basic realm="r", BEARER Scope=read ,Error=invalid_token"#]);
        assert_eq!(c.scope.as_deref(), Some("read"));
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        // Bearer in the second header value.
        let c = Challenge::parse(["Basic realm=\"a\"", "Bearer scope=\"s\""]);
        assert_eq!(c.scope.as_deref(), Some("s"));
        assert_eq!(Challenge::parse(["Bearer"]), Challenge::default());
        assert_eq!(Challenge::parse(Vec::<&str>::new()), Challenge::default());
        assert_eq!(Challenge::parse(["Basic realm=\"a\""]), Challenge::default());
        assert_eq!(Challenge::parse(["Bearer scope=\"unterminated"]).scope.as_deref(), Some("unterminated"));
    }

    /// RFC 9110 section 11.3: a challenge's body is a token68 or
    /// parameters. A token68 with its `=` padding before the Bearer
    /// challenge once ended the walk, and the Bearer parameters were lost
    /// (fuzz/regressions/challenge/).
    #[test]
    fn a_token68_of_another_scheme_does_not_hide_the_bearer_challenge() {
        for value in ["Negotiate YWJj==, Bearer scope=\"s\"", "Basic aaa=,BEARER scope=s", "X a/b+c ,\tBearer scope=s"]
        {
            assert_eq!(Challenge::parse([value]).scope.as_deref(), Some("s"), "{value}");
        }
        // A parameter with a value is not a token68.
        assert_eq!(Challenge::parse(["Bearer scope=s"]).scope.as_deref(), Some("s"));
        assert_eq!(Challenge::parse(["Negotiate abc, Bearer error=x"]).error.as_deref(), Some("x"));
    }
}
