//! Endpoints: the OpenAI-style base URL a user writes, normalised once, and the URLs derived
//! from it (chat completions, the server root for fingerprint routes).
//!
//! Users write endpoints the way they write `OPENAI_BASE_URL`: `http://127.0.0.1:8080/v1`. A bare
//! `http://127.0.0.1:8080` (no path) gets `/v1`; a pasted `.../chat/completions` loses it; a
//! missing scheme becomes `http://`. A base with another path (`/api/v1`, `/v1beta/openai`) is
//! kept as written, because that is the base its server documents. Azure OpenAI has two forms:
//! the v1 API (`https://NAME.openai.azure.com/openai/v1`, which a bare Azure host normalises to)
//! and the dated deployment API (`.../openai/deployments/DEPLOYMENT?api-version=...`), kept as is.
//!
//! [`normalize_endpoint`] is the one function that does this; settings resolution and the
//! backends both call it, so `doctor` can say what was changed.

use std::fmt;

use super::Provider;

/// The `api-version` used with Azure's dated deployment API when the endpoint names none:
/// the GA version that supports structured outputs (`json_schema`). Source:
/// <https://learn.microsoft.com/azure/ai-foundry/openai/how-to/structured-outputs> (REST example
/// uses `api-version=2024-10-21`).
pub const AZURE_DEFAULT_API_VERSION: &str = "2024-10-21";

/// The first Azure `api-version` with `response_format: json_schema` (structured outputs).
pub const AZURE_JSON_SCHEMA_API_VERSION: &str = "2024-08-01-preview";

/// An endpoint after normalisation: a base URL without a trailing slash, and the query (Azure's
/// `api-version`) kept apart so paths can be appended.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    base: String,
    query: Option<String>,
}

/// The result of [`normalize_endpoint`]: the endpoint and, when it differs from what the user
/// wrote, a sentence saying what changed (for `doctor`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalizedEndpoint {
    /// The normalised endpoint.
    pub endpoint: Endpoint,
    /// What normalisation changed, e.g. "added /v1"; `None` when the text was already normal.
    pub changed: Option<String>,
}

/// An endpoint that cannot be used at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// Nothing was given.
    #[error("the endpoint is empty")]
    Empty,
    /// A scheme other than http or https.
    #[error("endpoint `{0}` is not an http:// or https:// URL")]
    Scheme(String),
    /// No host after the scheme.
    #[error("endpoint `{0}` has no host")]
    NoHost(String),
    /// Credentials in the URL would end up in the cache file and in messages.
    #[error(
        "endpoint `{0}` holds credentials (user:password@, or a key in its query); put the key in an environment variable instead"
    )]
    Credentials(String),
}

/// Whether `query` (without `?`) has a parameter that carries a credential (`key=sk-...`).
pub(crate) fn has_credential(query: &str) -> bool {
    query.split('&').any(|pair| {
        pair.split_once('=')
            .is_some_and(|(name, value)| is_credential(name) && !value.is_empty())
    })
}

fn is_credential(name: &str) -> bool {
    CREDENTIAL_PARAMETERS
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name))
}

/// Query parameters whose value is a credential, by name (compared without case).
const CREDENTIAL_PARAMETERS: &[&str] = &[
    "key",
    "apikey",
    "api_key",
    "api-key",
    "token",
    "access_token",
    "secret",
    "password",
];

/// Normalises what a user wrote as an endpoint for `provider` (see the module docs).
pub fn normalize_endpoint(
    provider: Provider,
    text: &str,
) -> Result<NormalizedEndpoint, EndpointError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(EndpointError::Empty);
    }
    let mut changes = Vec::new();
    let lowered = trimmed.to_ascii_lowercase();
    let with_scheme = if lowered.starts_with("http://") || lowered.starts_with("https://") {
        trimmed.to_owned()
    } else if lowered.contains("://") {
        return Err(EndpointError::Scheme(redact_endpoint(trimmed)));
    } else {
        changes.push("added http://");
        format!("http://{trimmed}")
    };
    let (without_query, query) = match with_scheme.split_once('?') {
        Some((base, query)) if !query.is_empty() => (base.to_owned(), Some(query.to_owned())),
        Some((base, _)) => (base.to_owned(), None),
        None => (with_scheme.clone(), None),
    };
    if query.as_deref().is_some_and(has_credential) {
        return Err(EndpointError::Credentials(redact_endpoint(trimmed)));
    }
    let scheme_end = without_query.find("://").map(|at| at + 3).unwrap_or(0);
    let (authority, path) = match without_query[scheme_end..].find('/') {
        Some(at) => without_query.split_at(scheme_end + at),
        None => (without_query.as_str(), ""),
    };
    if authority.len() == scheme_end {
        return Err(EndpointError::NoHost(redact_endpoint(trimmed)));
    }
    if authority[scheme_end..].contains('@') {
        return Err(EndpointError::Credentials(redact_endpoint(trimmed)));
    }
    // Trailing slashes go silently: `.../v1/` and `.../v1` are the same base to every client.
    let mut path = path.trim_end_matches('/').to_owned();
    if let Some(base) = path.strip_suffix("/chat/completions") {
        path = base.to_owned();
        changes.push("removed the /chat/completions route (the endpoint is the base URL)");
    }
    if provider == Provider::Azure {
        if path.is_empty() || path == "/openai" {
            path = "/openai/v1".to_owned();
            changes.push("added /openai/v1 (Azure's v1 API)");
        }
    } else if path.is_empty() {
        path = "/v1".to_owned();
        changes.push("added /v1");
    }
    let endpoint = Endpoint {
        base: format!("{authority}{path}"),
        query,
    };
    Ok(NormalizedEndpoint {
        endpoint,
        changed: (!changes.is_empty()).then(|| changes.join(", ")),
    })
}

/// `text`, an endpoint as someone wrote it, fit to quote: the userinfo (`user:password@`) and
/// the value of each query parameter that carries a key ([`CREDENTIAL_PARAMETERS`]) replaced
/// by `<redacted>`. Everything between the scheme (or the start, when there is none)
/// and the last `@` goes, because a password may hold `/`, `?`, `#` or `@`, which would end the
/// host early for a parser; an `@` in a path is masked along with it, which costs nothing in a
/// message. Text without `@` comes back as it is.
pub fn redact_endpoint(text: &str) -> String {
    let start = text.find("://").map_or(0, |scheme| scheme + 3);
    let text = match text[start..].rfind('@') {
        Some(at) => format!("{}<redacted>{}", &text[..start], &text[start + at..]),
        None => text.to_owned(),
    };
    let Some((base, query)) = text.split_once('?') else {
        return text;
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if is_credential(name) && !value.is_empty() => {
                format!("{name}=<redacted>")
            }
            _ => pair.to_owned(),
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}

impl Endpoint {
    /// The base URL without the query (`http://127.0.0.1:8080/v1`).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The query string kept from the endpoint (Azure's `api-version=...`), without `?`.
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }

    /// `base + path`, with the endpoint's query appended (Azure's `api-version`).
    pub fn url(&self, path: &str) -> String {
        match &self.query {
            Some(query) => format!("{}{path}?{query}", self.base),
            None => format!("{}{path}", self.base),
        }
    }

    /// The chat-completions URL.
    pub fn chat_url(&self) -> String {
        self.url("/chat/completions")
    }

    /// The server's root, where engine-specific routes live (`/props`, `/version`,
    /// `/api/version`): the base without a trailing `/v1`. `None` when the base has another
    /// shape (a hosted API behind a path), where those routes mean nothing.
    pub fn server_root(&self) -> Option<&str> {
        self.base.strip_suffix("/v1").filter(|root| {
            // Only a bare host: `http://h:p/v1` -> `http://h:p`.
            root.find("://")
                .is_some_and(|at| !root[at + 3..].contains('/'))
        })
    }

    /// Whether this is Azure's dated deployment API (`.../openai/deployments/NAME`).
    pub fn is_azure_deployment(&self) -> bool {
        self.base.contains("/openai/deployments/")
    }

    /// The `api-version` query value, if the endpoint has one.
    pub fn api_version(&self) -> Option<&str> {
        self.query.as_deref().and_then(|query| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix("api-version="))
        })
    }

    /// Adds `api-version` for Azure's deployment API when the user gave none.
    pub fn with_default_api_version(mut self) -> Endpoint {
        if self.is_azure_deployment() && self.api_version().is_none() {
            let pair = format!("api-version={AZURE_DEFAULT_API_VERSION}");
            self.query = Some(match self.query.take() {
                Some(query) => format!("{query}&{pair}"),
                None => pair,
            });
        }
        self
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.base)?;
        if let Some(query) = &self.query {
            write!(f, "?{query}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(provider: Provider, text: &str) -> (String, Option<String>) {
        let normalized = normalize_endpoint(provider, text).unwrap();
        (normalized.endpoint.to_string(), normalized.changed)
    }

    #[test]
    fn a_base_with_v1_is_kept() {
        assert_eq!(
            normal(Provider::LlamaCpp, "http://127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/v1".to_owned(), None)
        );
        assert_eq!(
            normal(Provider::LlamaCpp, " http://127.0.0.1:8080/v1/ ").0,
            "http://127.0.0.1:8080/v1"
        );
    }

    #[test]
    fn a_bare_host_gets_v1_and_a_note() {
        assert_eq!(
            normal(Provider::Ollama, "http://localhost:11434"),
            (
                "http://localhost:11434/v1".to_owned(),
                Some("added /v1".to_owned())
            )
        );
        assert_eq!(
            normal(Provider::Vllm, "127.0.0.1:8000/"),
            (
                "http://127.0.0.1:8000/v1".to_owned(),
                Some("added http://, added /v1".to_owned())
            )
        );
    }

    #[test]
    fn a_pasted_route_is_removed() {
        let (url, changed) = normal(
            Provider::OpenAiCompatible,
            "http://127.0.0.1:8080/v1/chat/completions",
        );
        assert_eq!(url, "http://127.0.0.1:8080/v1");
        assert!(changed.unwrap().contains("/chat/completions"));
    }

    #[test]
    fn other_paths_are_kept_as_their_servers_document_them() {
        assert_eq!(
            normal(Provider::OpenAiCompatible, "https://example.test/api/v1").0,
            "https://example.test/api/v1"
        );
        assert_eq!(
            normal(
                Provider::OpenAiCompatible,
                "https://example.test/v1beta/openai/"
            )
            .0,
            "https://example.test/v1beta/openai"
        );
    }

    #[test]
    fn azure_hosts_and_deployments() {
        assert_eq!(
            normal(Provider::Azure, "https://res.openai.azure.com/").0,
            "https://res.openai.azure.com/openai/v1"
        );
        let endpoint = normalize_endpoint(
            Provider::Azure,
            "https://res.openai.azure.com/openai/deployments/gpt4o?api-version=2024-06-01",
        )
        .unwrap()
        .endpoint;
        assert!(endpoint.is_azure_deployment());
        assert_eq!(endpoint.api_version(), Some("2024-06-01"));
        assert_eq!(
            endpoint.chat_url(),
            "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01"
        );
        let defaulted = normalize_endpoint(
            Provider::Azure,
            "https://res.openai.azure.com/openai/deployments/gpt4o",
        )
        .unwrap()
        .endpoint
        .with_default_api_version();
        assert_eq!(defaulted.api_version(), Some(AZURE_DEFAULT_API_VERSION));
    }

    #[test]
    fn server_root_only_for_bare_hosts() {
        let local = normalize_endpoint(Provider::LlamaCpp, "http://127.0.0.1:8080")
            .unwrap()
            .endpoint;
        assert_eq!(local.server_root(), Some("http://127.0.0.1:8080"));
        let hosted = normalize_endpoint(Provider::OpenAiCompatible, "https://x.test/api/v1")
            .unwrap()
            .endpoint;
        assert_eq!(hosted.server_root(), None);
    }

    #[test]
    fn unusable_endpoints_are_errors() {
        assert_eq!(
            normalize_endpoint(Provider::OpenAi, "  "),
            Err(EndpointError::Empty)
        );
        assert!(matches!(
            normalize_endpoint(Provider::OpenAi, "ftp://x"),
            Err(EndpointError::Scheme(_))
        ));
        let error = normalize_endpoint(Provider::OpenAi, "https://me:sk-123@x.test/v1")
            .unwrap_err()
            .to_string();
        assert!(!error.contains("sk-123"), "{error}");
        let error = normalize_endpoint(Provider::OpenAi, "ftp://me:sk-123@x.test/v1")
            .unwrap_err()
            .to_string();
        assert!(!error.contains("sk-123"), "{error}");
    }

    #[test]
    fn a_key_in_the_query_is_refused_and_never_quoted() {
        for (given, parameter) in [
            ("http://127.0.0.1:8080/v1?key=sk-123", "key"),
            ("https://x.test/v1?a=1&API_KEY=sk-123", "API_KEY"),
            ("https://x.test/v1?access_token=sk-123&b=2", "access_token"),
        ] {
            let error = normalize_endpoint(Provider::OpenAiCompatible, given).unwrap_err();
            let text = error.to_string();
            assert!(!text.contains("sk-123"), "{text}");
            assert!(text.contains(&format!("{parameter}=<redacted>")), "{text}");
        }
        // Azure's dated API keeps its api-version; a parameter named like a key but empty, or
        // a name that only contains one, is no credential.
        for fine in [
            "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
            "http://127.0.0.1:8080/v1?key=",
            "http://127.0.0.1:8080/v1?monkey=1",
        ] {
            assert!(normalize_endpoint(Provider::Azure, fine).is_ok(), "{fine}");
        }
    }

    #[test]
    fn userinfo_is_redacted_whatever_the_password_holds() {
        for (given, shown) in [
            ("http://u:pw@h:1/v1", "http://<redacted>@h:1/v1"),
            ("HTTPS://u:pw@h/v1?x=1", "HTTPS://<redacted>@h/v1?x=1"),
            ("http://u:p/w#x?y@z@h/v1", "http://<redacted>@h/v1"),
            ("u:pw@h:1/v1", "<redacted>@h:1/v1"),
            ("ftp://u:pw@h", "ftp://<redacted>@h"),
            ("http://h:1/v1", "http://h:1/v1"),
        ] {
            assert_eq!(redact_endpoint(given), shown, "{given}");
        }
    }
}
