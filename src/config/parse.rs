//! Parsers for the text of one setting: numbers in a range, switches, names, model ids and the
//! endpoint URL. Each returns the normalised value or a short reason a person can act on; the
//! key registry (`keys.rs`) turns the reason into an [`InvalidValue`](super::InvalidValue).
//!
//! The same parsers read flags, environment variables and the file, so `--max-tokens 0`,
//! `SLMCODE_MAX_TOKENS=0` and `max_tokens = 0` fail with the same words.

/// A whole number in `min..=max`; a negative one is out of range. A leading `+`, underscores and
/// fractions are refused: a setting is typed by people, and `1_000` or `2.0` probably means
/// something else.
pub(crate) fn integer(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let text = text.trim();
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
    // A negative number is a whole number below every minimum; `-0` is only a stray sign.
    if let Some(magnitude) = text.strip_prefix('-')
        && digits(magnitude)
        && magnitude.bytes().any(|byte| byte != b'0')
    {
        return Err("out of range".to_owned());
    }
    if !digits(text) {
        return Err("not a whole number".to_owned());
    }
    match text.parse::<u64>() {
        Ok(number) if (min..=max).contains(&number) => Ok(number),
        _ => Err("out of range".to_owned()),
    }
}

/// A finite number in `min..=max`.
pub(crate) fn float(text: &str, min: f64, max: f64) -> Result<f64, String> {
    let text = text.trim();
    let number: f64 = text.parse().map_err(|_| "not a number".to_owned())?;
    if !number.is_finite() {
        return Err("not a number".to_owned());
    }
    if !(min..=max).contains(&number) {
        return Err("out of range".to_owned());
    }
    // -0 reads as 0 in every output.
    Ok(if number == 0.0 { 0.0 } else { number })
}

/// A switch: `true false yes no on off 1 0`, case-insensitive.
pub(crate) fn boolean(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" => Ok(false),
        _ => Err("not a switch".to_owned()),
    }
}

/// The name of an environment variable: a letter or `_`, then letters, digits and `_`.
/// The reason never quotes the text: someone who pastes the key itself here must not see it
/// echoed into a terminal, a log or CI output.
pub(crate) fn variable_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    let mut bytes = name.bytes();
    let valid = matches!(bytes.next(), Some(first) if first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
        && name.len() <= 128;
    if valid {
        Ok(name.to_owned())
    } else {
        Err("not a variable name (is it the key itself? give the variable's NAME)".to_owned())
    }
}

/// A model id: any non-empty text without control characters (`qwen2.5-coder:7b`,
/// `hf.co/org/model:Q4_K_M`, an Azure deployment name).
pub(crate) fn model(text: &str) -> Result<String, String> {
    let model = text.trim();
    if model.is_empty() {
        return Err("empty".to_owned());
    }
    if model.chars().any(char::is_control) {
        return Err("contains a control character".to_owned());
    }
    Ok(model.to_owned())
}

/// An API key: non-empty, no whitespace or control characters (a key pasted with its newline
/// would make a header the server rejects), and only ASCII: the key travels in an HTTP header,
/// which cannot carry anything else, so every request with such a key would fail. Never quoted
/// in the reason.
pub(crate) fn api_key(text: &str) -> Result<String, String> {
    let key = text.trim();
    if key.is_empty() {
        return Err("empty".to_owned());
    }
    if key
        .chars()
        .any(|character| character.is_whitespace() || character.is_control())
    {
        return Err("contains whitespace or a control character".to_owned());
    }
    if !key.is_ascii() {
        return Err(
            "contains a character that is not ASCII (an HTTP header carries only ASCII; \
             was a dash or a quote pasted from a web page?)"
                .to_owned(),
        );
    }
    Ok(key.to_owned())
}

/// An endpoint, checked and tidied but not yet completed: the scheme and host lower-cased,
/// trailing slashes and a pasted `/chat/completions` removed. Whether `/v1` is appended depends
/// on the provider, so that is [`normalize_endpoint`](super::endpoint::normalize_endpoint)'s
/// job, done during resolution.
///
/// Refused: anything but `http://` and `https://`, a missing or malformed host or port,
/// credentials in the URL (they would be printed wherever the endpoint is), a fragment. A
/// query is kept (Azure's deployment API takes `?api-version=` on the base).
pub(crate) fn endpoint(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text
        .chars()
        .any(|character| character.is_whitespace() || character.is_control())
    {
        return Err("contains whitespace".to_owned());
    }
    let (scheme, rest) = text
        .split_once("://")
        .ok_or_else(|| "not a URL (it must start with http:// or https://)".to_owned())?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err("the scheme must be http or https".to_owned());
    }
    if rest.contains('#') {
        return Err("a base URL has no fragment".to_owned());
    }
    // A query is kept as it is: Azure's deployment API takes `?api-version=...` on the base.
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, format!("?{query}")),
        None => (rest, String::new()),
    };
    let (authority, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, ""),
    };
    if authority.contains('@') || super::endpoint::has_credential(query.trim_start_matches('?')) {
        return Err("credentials do not belong in the URL (use api_key_env)".to_owned());
    }
    let authority = host_and_port(authority)?;
    let mut path = path.trim_end_matches('/');
    if let Some(base) = path.strip_suffix("/chat/completions") {
        path = base.trim_end_matches('/');
    }
    if path.contains("//") {
        return Err("the path has an empty segment".to_owned());
    }
    Ok(format!("{scheme}://{authority}{path}{query}"))
}

/// Where a server listens: an IP address and a port (`127.0.0.1:8090`, `[::1]:8090`);
/// `localhost:PORT` is 127.0.0.1, never a name looked up.
pub(crate) fn listen_address(text: &str) -> Result<std::net::SocketAddr, String> {
    let text = text.trim();
    let text = match text.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => text.to_owned(),
    };
    text.parse::<std::net::SocketAddr>()
        .map_err(|_| "not an IP address with a port".to_owned())
}

/// `host[:port]`, with the host lower-cased; IPv6 hosts in brackets.
fn host_and_port(authority: &str) -> Result<String, String> {
    let (host, port) = if let Some(inside) = authority.strip_prefix('[') {
        let (address, after) = inside
            .split_once(']')
            .ok_or_else(|| "an IPv6 host needs its closing `]`".to_owned())?;
        if address.is_empty()
            || !address
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return Err("malformed IPv6 host".to_owned());
        }
        let port = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or_else(|| "malformed port".to_owned())?,
            ),
        };
        (format!("[{}]", address.to_ascii_lowercase()), port)
    } else {
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        let valid = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_');
        if !valid {
            return Err("missing or malformed host".to_owned());
        }
        (host.to_ascii_lowercase(), port)
    };
    match port {
        None => Ok(host),
        Some(port) => match integer(port, 1, 65535) {
            Ok(number) => Ok(format!("{host}:{number}")),
            Err(_) => Err("the port must be a number from 1 to 65535".to_owned()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_are_ip_and_port() {
        assert_eq!(
            listen_address(" localhost:8090 "),
            Ok(std::net::SocketAddr::from(([127, 0, 0, 1], 8090)))
        );
        assert_eq!(
            listen_address("[::1]:0"),
            Ok(std::net::SocketAddr::from((
                std::net::Ipv6Addr::LOCALHOST,
                0
            )))
        );
        assert!(listen_address("127.0.0.1").is_err());
        assert!(listen_address("example.com:80").is_err());
        assert!(listen_address("127.0.0.1:70000").is_err());
    }

    #[test]
    fn integers_are_plain_digits_within_range() {
        assert_eq!(integer(" 42 ", 1, 100), Ok(42));
        assert_eq!(integer("1", 1, 100), Ok(1));
        assert_eq!(integer("100", 1, 100), Ok(100));
        for bad in [
            "0",
            "101",
            "-1",
            "+5",
            "1_000",
            "2.0",
            "",
            "ten",
            "99999999999999999999999",
        ] {
            assert!(integer(bad, 1, 100).is_err(), "{bad}");
        }
        assert_eq!(integer("0", 1, 100).unwrap_err(), "out of range");
        assert_eq!(integer("x", 1, 100).unwrap_err(), "not a whole number");
        assert_eq!(integer("-5", 1, 100).unwrap_err(), "out of range");
        assert_eq!(integer("-5", 0, 100).unwrap_err(), "out of range");
        assert_eq!(integer("-0", 0, 100).unwrap_err(), "not a whole number");
        assert_eq!(integer("--5", 0, 100).unwrap_err(), "not a whole number");
        assert_eq!(integer("-", 0, 100).unwrap_err(), "not a whole number");
    }

    #[test]
    fn floats_are_finite_and_within_range() {
        assert_eq!(float("0.2", 0.0, 2.0), Ok(0.2));
        assert_eq!(float("2", 0.0, 2.0), Ok(2.0));
        assert_eq!(float("-0", 0.0, 2.0), Ok(0.0));
        assert!(float("-0", 0.0, 2.0).unwrap().is_sign_positive());
        for bad in ["2.01", "-0.1", "NaN", "inf", "warm", ""] {
            assert!(float(bad, 0.0, 2.0).is_err(), "{bad}");
        }
    }

    #[test]
    fn switches_accept_the_usual_words() {
        for yes in ["true", "YES", "on", "1"] {
            assert_eq!(boolean(yes), Ok(true), "{yes}");
        }
        for no in ["false", "No", "OFF", "0"] {
            assert_eq!(boolean(no), Ok(false), "{no}");
        }
        assert!(boolean("maybe").is_err());
    }

    #[test]
    fn variable_names_are_names_and_never_quoted() {
        assert_eq!(variable_name(" MY_KEY "), Ok("MY_KEY".to_owned()));
        assert_eq!(variable_name("_x1"), Ok("_x1".to_owned()));
        for bad in ["", "1KEY", "sk-abc123", "MY KEY", "a=b"] {
            let reason = variable_name(bad).unwrap_err();
            assert!(bad.is_empty() || !reason.contains(bad), "{reason}");
        }
    }

    #[test]
    fn models_and_keys_refuse_empty_and_control_text() {
        assert_eq!(model(" qwen2.5:7b "), Ok("qwen2.5:7b".to_owned()));
        assert!(model("  ").is_err());
        assert!(model("a\u{7}b").is_err());
        assert_eq!(api_key(" sk-1 "), Ok("sk-1".to_owned()));
        assert!(api_key("sk 1").is_err());
        assert!(api_key("").is_err());
        assert!(!api_key("sk 1").unwrap_err().contains("sk"));
    }

    #[test]
    fn keys_are_ascii_because_headers_are() {
        for pasted in [
            "sk-proj\u{2013}abc",
            "sk-\u{201c}abc\u{201d}",
            "sk-clé",
            "sk-\u{a0}x",
        ] {
            let reason = api_key(pasted).unwrap_err();
            assert!(!reason.contains("sk-"), "{reason}");
        }
        assert_eq!(
            api_key("sk-proj\u{2013}abc").unwrap_err(),
            "contains a character that is not ASCII (an HTTP header carries only ASCII; was a \
             dash or a quote pasted from a web page?)"
        );
        assert_eq!(
            api_key("sk-proj-ABC_123.x~"),
            Ok("sk-proj-ABC_123.x~".to_owned())
        );
    }

    #[test]
    fn endpoints_are_tidied() {
        for (given, expected) in [
            ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
            ("HTTP://LocalHost:11434//", "http://localhost:11434"),
            ("https://api.openai.com/v1", "https://api.openai.com/v1"),
            (
                "http://127.0.0.1:8080/v1/chat/completions",
                "http://127.0.0.1:8080/v1",
            ),
            ("http://[::1]:8000/v1", "http://[::1]:8000/v1"),
            (
                "http://proxy.internal/llm/openai",
                "http://proxy.internal/llm/openai",
            ),
            (" http://h:1 ", "http://h:1"),
        ] {
            assert_eq!(endpoint(given).as_deref(), Ok(expected), "{given}");
        }
    }

    #[test]
    fn bad_endpoints_say_why() {
        for (given, reason) in [
            (
                "127.0.0.1:8080",
                "not a URL (it must start with http:// or https://)",
            ),
            ("ftp://host/v1", "the scheme must be http or https"),
            ("http://", "missing or malformed host"),
            (
                "http://host:0/v1",
                "the port must be a number from 1 to 65535",
            ),
            (
                "http://host:99999",
                "the port must be a number from 1 to 65535",
            ),
            ("http://host:x", "the port must be a number from 1 to 65535"),
            (
                "http://user:pw@host/v1",
                "credentials do not belong in the URL (use api_key_env)",
            ),
            (
                "http://host/v1?api_key=sk-1",
                "credentials do not belong in the URL (use api_key_env)",
            ),
            ("http://host/v1#x", "a base URL has no fragment"),
            ("http://ho st/v1", "contains whitespace"),
            ("http://[::1/v1", "an IPv6 host needs its closing `]`"),
            ("http://host//v1", "the path has an empty segment"),
        ] {
            assert_eq!(endpoint(given).unwrap_err(), reason, "{given}");
        }
    }

    #[test]
    fn a_query_is_kept_for_azure_deployments() {
        assert_eq!(
            endpoint(
                "https://Name.openai.azure.com/openai/deployments/gpt/?api-version=2024-10-21"
            ),
            Ok(
                "https://name.openai.azure.com/openai/deployments/gpt?api-version=2024-10-21"
                    .to_owned()
            )
        );
    }
}
