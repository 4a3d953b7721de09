//! What a request goes to: an endpoint as one provider, one model, one key ([`Target`]), made
//! from the settings, and what it is known by (its cache key, its preset, a client for it).

use crate::config::endpoint::{
    AZURE_JSON_SCHEMA_API_VERSION, Endpoint, EndpointError, normalize_endpoint,
};
use crate::config::{Provider, Secret, Settings, Thinking};

use super::cache::CacheKey;
use super::presets::{Preset, preset};
use super::transport::Client;

/// What to probe: an endpoint as one provider, one model, one key.
#[derive(Clone, Debug)]
pub struct Target {
    /// The provider (decides the preset).
    pub provider: Provider,
    /// The normalised endpoint.
    pub endpoint: Endpoint,
    /// The model; `None` lets a single-model server choose.
    pub model: Option<String>,
    /// The key, if any (sent only in the auth header).
    pub api_key: Option<Secret>,
    /// The `thinking` setting: the probe asks with the switch the calls will send, so that a
    /// thinking model is probed as it will answer.
    pub thinking: Thinking,
}

impl Target {
    /// The target the settings describe: the configured endpoint (or the preset's default),
    /// normalised, and a note when normalisation changed what the user wrote.
    pub fn from_settings(settings: &Settings) -> Result<(Target, Option<String>), TargetError> {
        let preset = preset(settings.provider);
        let (text, configured) = match (&settings.endpoint, preset.default_endpoint) {
            (Some(endpoint), _) => (endpoint.as_str(), true),
            (None, Some(default)) => (default, false),
            (None, None) => return Err(TargetError::NoEndpoint(settings.provider)),
        };
        let normalized = normalize_endpoint(settings.provider, text)?;
        let target = Target {
            provider: settings.provider,
            endpoint: normalized.endpoint.with_default_api_version(),
            model: settings.model.clone().filter(|model| !model.is_empty()),
            api_key: settings.api_key.clone(),
            thinking: settings.thinking,
        };
        Ok((target, normalized.changed.filter(|_| configured)))
    }

    /// The provider's preset.
    pub fn preset(&self) -> &'static Preset {
        preset(self.provider)
    }

    /// The cache key of this target.
    pub fn key(&self) -> CacheKey {
        CacheKey {
            provider: self.provider,
            endpoint: self.endpoint.to_string(),
            model: self.model.clone().unwrap_or_default(),
        }
    }

    /// A client for this target.
    pub fn client(&self) -> Client {
        Client::new(
            self.endpoint.clone(),
            self.preset().auth,
            self.api_key.clone(),
        )
    }

    /// Why json_schema cannot be probed here, if it cannot: Azure's dated API before
    /// structured outputs.
    pub(super) fn json_schema_unavailable(&self) -> Option<String> {
        let version = self.endpoint.api_version()?;
        (self.provider == Provider::Azure && version < AZURE_JSON_SCHEMA_API_VERSION).then(|| {
            format!(
                "api-version {version} predates json_schema (needs {AZURE_JSON_SCHEMA_API_VERSION} or later)"
            )
        })
    }
}

/// The settings a target could not be made from.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// No endpoint configured, and the provider has no default.
    #[error("no endpoint is set, and provider {0} has no default endpoint")]
    NoEndpoint(Provider),
    /// The endpoint is not usable.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
}
