//! Which model answers a server's sampling request: the first configured `client:model` that
//! contains one of the server's `modelPreferences` hints (hints in the server's order, models
//! in config order), else `--sampling-model CLIENT:MODEL`, else config.yaml's `model:`; with
//! none of these the request is declined with a message naming both ways to set one.

use coyote_config::AppConfig;
use coyote_session::{SamplingModel, SamplingModels};

/// The configuration a sampling model is chosen from.
#[derive(Debug)]
pub struct ConfigModels {
    /// config.yaml, or why it did not load.
    config: Result<AppConfig, String>,
    /// `--sampling-model`.
    sampling_model: Option<String>,
}

/// Where the chosen model came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A configured model matching the hint.
    Hint {
        /// `client:model`.
        id: String,
        /// The hint it contains.
        hint: String,
    },
    /// `--sampling-model`.
    Flag(String),
    /// config.yaml's `model:`.
    ConfigModel,
}

impl ConfigModels {
    /// Chooses from `config` (or reports its error) and `--sampling-model`.
    pub fn new(config: Result<AppConfig, String>, sampling_model: Option<String>) -> Self {
        ConfigModels {
            config,
            sampling_model,
        }
    }
}

/// The choice for `hints` (see the module docs).
pub fn choose(
    config: &AppConfig,
    hints: &[String],
    sampling_model: Option<&str>,
) -> Result<Choice, String> {
    for hint in hints.iter().filter(|h| !h.trim().is_empty()) {
        for client in &config.clients {
            for model in &client.provider.models {
                let id = format!("{}:{}", client.provider.name, model.name);
                if id.contains(hint.as_str()) {
                    return Ok(Choice::Hint {
                        id,
                        hint: hint.clone(),
                    });
                }
            }
        }
    }
    if let Some(flag) = sampling_model {
        return Ok(Choice::Flag(flag.to_owned()));
    }
    if config.model.is_some() {
        return Ok(Choice::ConfigModel);
    }
    Err(format!(
        "no model to answer with: no configured model matches the server's hints ({}); pass \
         --sampling-model CLIENT:MODEL or set `model:` in {}",
        if hints.is_empty() {
            "none given".to_owned()
        } else {
            hints.join(", ")
        },
        config.path.display()
    ))
}

impl SamplingModels for ConfigModels {
    fn choose(&self, hints: &[String]) -> Result<SamplingModel, String> {
        let config = self
            .config
            .as_ref()
            .map_err(|e| format!("no model to answer with: config.yaml did not load ({e})"))?;
        let choice = choose(config, hints, self.sampling_model.as_deref())?;
        let requested = match &choice {
            Choice::Hint { id, .. } | Choice::Flag(id) => Some(id.as_str()),
            Choice::ConfigModel => None,
        };
        let resolved = config
            .resolve_model(requested)
            .map_err(|e| format!("no model to answer with: {e}"))?;
        tracing::info!(model = %resolved.id(), ?choice, "sampling model chosen");
        let provider = coyote_llm::build_provider(resolved.provider.clone())
            .map_err(|e| format!("no model to answer with: {e}"))?;
        Ok(SamplingModel {
            provider,
            model: resolved.model.name.clone(),
            label: resolved.id(),
        })
    }
}

#[cfg(test)]
mod tests {
    use coyote_config::parse_app_config;

    use super::*;

    fn config(yaml: &str) -> AppConfig {
        let path = std::path::Path::new("/c/config.yaml");
        parse_app_config(yaml, path, Some(path.to_path_buf()), &NoEnv).unwrap()
    }

    struct NoEnv;
    impl coyote_config::EnvLookup for NoEnv {
        fn var(&self, _name: &str) -> Option<String> {
            None
        }
    }

    const TWO_CLIENTS: &str = "model: local:small\nclients:\n  - type: openai-compatible\n    \
        name: local\n    api_base: http://127.0.0.1:1/v1\n    models:\n      - name: small\n      \
        - name: big-coder\n  - type: openai-compatible\n    name: other\n    api_base: \
        http://127.0.0.1:2/v1\n    models:\n      - name: claude-ish\n";

    #[test]
    fn a_hint_wins_then_the_flag_then_model() {
        let c = config(TWO_CLIENTS);
        let hints = |h: &[&str]| h.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            choose(&c, &hints(&["claude", "coder"]), Some("x:y")),
            Ok(Choice::Hint {
                id: "other:claude-ish".into(),
                hint: "claude".into()
            })
        );
        assert_eq!(
            choose(&c, &hints(&["gpt", "coder"]), None),
            Ok(Choice::Hint {
                id: "local:big-coder".into(),
                hint: "coder".into()
            })
        );
        assert_eq!(
            choose(&c, &hints(&["gpt"]), Some("other:claude-ish")),
            Ok(Choice::Flag("other:claude-ish".into()))
        );
        assert_eq!(choose(&c, &[], None), Ok(Choice::ConfigModel));
    }

    #[test]
    fn without_model_or_flag_the_decline_names_both() {
        let c = config(&TWO_CLIENTS.replacen("model: local:small\n", "", 1));
        let error = choose(&c, &["gpt".into()], None).unwrap_err();
        assert!(error.contains("--sampling-model CLIENT:MODEL"), "{error}");
        assert!(error.contains("`model:`"), "{error}");
        assert!(error.contains("/c/config.yaml"), "{error}");
    }
}
