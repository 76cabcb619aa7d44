//! Zero-config clients: the providers available without a config file, detected from
//! `OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`) and
//! `OLLAMA_HOST`. A pure function of the lookup it is given, so tests never touch the real
//! environment.

use coyote_protocol::{
    ANTHROPIC_API_BASE, ApiKey, DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, ModelConfig,
    OPENAI_API_BASE, ProviderConfig, ProviderKind,
};

/// Clients available without a config file, from `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
/// `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`) and `OLLAMA_HOST`, in that order. `env` looks a
/// variable up; empty values count as unset.
pub fn detect_providers(env: &dyn Fn(&str) -> Option<String>) -> Vec<ProviderConfig> {
    let get = |name: &str| {
        env(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let mut found = Vec::new();

    let openai_key = get("OPENAI_API_KEY");
    let openai_base = get("OPENAI_BASE_URL");
    if openai_key.is_some() || openai_base.is_some() {
        let custom_base = openai_base.is_some();
        let base = openai_base.unwrap_or_else(|| OPENAI_API_BASE.to_string());
        let mut config = ProviderConfig::new(ProviderKind::OpenAiCompatible, "openai", base);
        config.api_key = openai_key.map(|k| ApiKey::from_env("OPENAI_API_KEY", k));
        // A custom base serves models we cannot guess; the user names one with `-m`.
        if !custom_base {
            config.models = vec![ModelConfig::named(DEFAULT_OPENAI_MODEL)];
        }
        found.push(config);
    }

    if let Some(key) = get("ANTHROPIC_API_KEY") {
        let base = get("ANTHROPIC_BASE_URL").unwrap_or_else(|| ANTHROPIC_API_BASE.to_string());
        found.push(
            ProviderConfig::new(ProviderKind::Anthropic, "anthropic", base)
                .with_api_key(ApiKey::from_env("ANTHROPIC_API_KEY", key))
                .with_models(vec![ModelConfig::named(DEFAULT_ANTHROPIC_MODEL)]),
        );
    }

    if let Some(host) = get("OLLAMA_HOST") {
        found.push(ProviderConfig::new(
            ProviderKind::OpenAiCompatible,
            "ollama",
            ollama_api_base(&host),
        ));
    }
    found
}

/// `OLLAMA_HOST` as Ollama itself reads it (`host`, `host:port`, or a URL; `0.0.0.0` is a bind
/// address, so clients use loopback) turned into its OpenAI-compatible base.
fn ollama_api_base(host: &str) -> String {
    // Like Ollama: a bare host gets port 11434; an explicit scheme keeps its default port.
    let (scheme, rest, default_port) = match host.split_once("://") {
        Some((scheme, rest)) => (scheme, rest, None),
        None => ("http", host, Some(11434)),
    };
    let rest = rest.trim_end_matches('/');
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let authority = match authority.strip_prefix("0.0.0.0") {
        Some(port) => format!("127.0.0.1{port}"),
        None => authority.to_string(),
    };
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
        && !authority.ends_with(']');
    let authority = match default_port {
        Some(port) if !has_port => format!("{authority}:{port}"),
        _ => authority,
    };
    format!("{scheme}://{authority}{path}/v1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn detect(pairs: &[(&str, &str)]) -> Vec<ProviderConfig> {
        let env: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        detect_providers(&|name| env.get(name).cloned())
    }

    #[test]
    fn nothing_set_detects_nothing() {
        assert_eq!(detect(&[("OPENAI_API_KEY", " ")]), vec![]);
    }

    #[test]
    fn all_three_in_order() {
        let found = detect(&[
            ("OPENAI_API_KEY", "sk-o"),
            ("ANTHROPIC_API_KEY", "sk-a"),
            ("OLLAMA_HOST", "0.0.0.0:11434"),
        ]);
        let expected = vec![
            ProviderConfig::new(ProviderKind::OpenAiCompatible, "openai", OPENAI_API_BASE)
                .with_api_key(ApiKey::from_env("OPENAI_API_KEY", "sk-o"))
                .with_models(vec![ModelConfig::named(DEFAULT_OPENAI_MODEL)]),
            ProviderConfig::new(ProviderKind::Anthropic, "anthropic", ANTHROPIC_API_BASE)
                .with_api_key(ApiKey::from_env("ANTHROPIC_API_KEY", "sk-a"))
                .with_models(vec![ModelConfig::named(DEFAULT_ANTHROPIC_MODEL)]),
            ProviderConfig::new(
                ProviderKind::OpenAiCompatible,
                "ollama",
                "http://127.0.0.1:11434/v1",
            ),
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn openai_base_url_alone_is_a_keyless_local_server() {
        let found = detect(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]);
        assert_eq!(
            found,
            vec![ProviderConfig::new(
                ProviderKind::OpenAiCompatible,
                "openai",
                "http://127.0.0.1:8080/v1"
            )]
        );
    }

    #[test]
    fn ollama_host_forms() {
        let cases = [
            ("localhost", "http://localhost:11434/v1"),
            ("example.test:9000", "http://example.test:9000/v1"),
            (
                "https://ollama.example.test/",
                "https://ollama.example.test/v1",
            ),
            ("http://[::1]:11434", "http://[::1]:11434/v1"),
            ("0.0.0.0", "http://127.0.0.1:11434/v1"),
            (
                "http://0.0.0.0:8000/prefix",
                "http://127.0.0.1:8000/prefix/v1",
            ),
        ];
        for (host, base) in cases {
            assert_eq!(ollama_api_base(host), base, "{host}");
        }
    }
}
