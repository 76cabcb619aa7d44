//! One `clients:` entry of config.yaml: its Raw shape and its validation into a
//! [`ClientEntry`]. `type:` is a wire protocol (`openai-compatible`, `anthropic`) or a preset
//! from the table in `coyote_protocol::preset` (`openai`, `groq`, `ollama`, `gemini`,
//! `azure-openai`, `bedrock`, …) that fills in the base URL, the key variable and the quirks,
//! so `- type: groq` alone is a usable client. Keys that only one kind reads (`api_version`,
//! `auth`, `region`, `profile`, `api`) are refused on the others, naming the kinds that take
//! them.

use coyote_protocol::{
    ANTHROPIC_API_BASE, ApiKey, AwsAuth, AzureAuth, ModelConfig, OPENAI_API_BASE, PRESETS, Preset,
    ProviderConfig, ProviderKind, WireApi, bedrock_runtime_base, preset,
};
use serde::Deserialize;

use super::validator::{Validator, check_api_base};
use super::{AppConfigError, ClientEntry, ClientOrigin, KeyStatus, aws};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawClient {
    #[serde(rename = "type")]
    kind: String,
    name: Option<String>,
    api_base: Option<String>,
    api_key_env: Option<String>,
    api_key_cmd: Option<String>,
    api: Option<WireApi>,
    api_version: Option<String>,
    auth: Option<RawAzureAuth>,
    region: Option<String>,
    profile: Option<String>,
    #[serde(default)]
    models: Vec<RawModel>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RawAzureAuth {
    ApiKey,
    Entra,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    name: String,
    max_tokens: Option<u32>,
    context_window: Option<u32>,
    supports_images: Option<bool>,
}

/// Every `type:` spelling, for messages and docs.
pub fn client_types() -> Vec<&'static str> {
    let mut types = vec!["openai-compatible", "anthropic"];
    types.extend(PRESETS.iter().map(|p| p.name));
    types
}

/// The kind and preset `type:` names.
fn resolve_type(text: &str) -> Option<(ProviderKind, Option<&'static Preset>)> {
    if let Some(preset) = preset(text) {
        return Some((preset.kind, Some(preset)));
    }
    match ProviderKind::parse(text)? {
        kind @ (ProviderKind::OpenAiCompatible | ProviderKind::Anthropic) => Some((kind, None)),
        _ => None,
    }
}

impl Validator<'_> {
    pub(super) fn client(&self, i: usize, raw: RawClient) -> Result<ClientEntry, AppConfigError> {
        let key = |field: &str| format!("clients[{i}].{field}");
        let Some((kind, preset)) = resolve_type(raw.kind.trim()) else {
            return Err(self.invalid(
                key("type"),
                format!("\"{}\" is not a client type", raw.kind.escape_debug()),
                format!("use one of: {}", client_types().join(", ")),
            ));
        };
        let name = raw
            .name
            .clone()
            .unwrap_or_else(|| raw.kind.trim().to_string());
        if !is_client_name(&name) {
            return Err(self.invalid(
                key("name"),
                format!("\"{name}\" is not a usable client name"),
                "use letters, digits, `_`, `-` and `.` only (it is typed before the colon in -m name:model)",
            ));
        }
        self.check_fields(i, &raw, kind)?;
        let api_base = self.api_base(i, raw.api_base.as_deref(), kind, preset)?;
        let models = self.models(i, raw.models)?;
        let mut provider = ProviderConfig::new(kind, name, api_base).with_models(models);
        if let Some(preset) = preset {
            provider.preset = Some(preset.name);
            provider.quirks = preset.quirks;
        }
        provider.api = raw.api.unwrap_or_default();
        provider.api_version = raw.api_version;
        provider.azure_auth = match raw.auth {
            Some(RawAzureAuth::Entra) => AzureAuth::Entra,
            Some(RawAzureAuth::ApiKey) | None => AzureAuth::ApiKey,
        };
        let status = if kind == ProviderKind::Bedrock {
            self.aws(
                i,
                raw.region.as_deref(),
                raw.profile.as_deref(),
                &mut provider,
            )?
        } else {
            let key_env = raw
                .api_key_env
                .or_else(|| preset.and_then(|p| p.key_env).map(str::to_owned));
            self.key(i, raw.api_key_cmd, key_env, &mut provider)?
        };
        Ok(ClientEntry {
            provider,
            key: status,
            origin: ClientOrigin::ConfigFile,
        })
    }

    /// Keys only some kinds read, and the key sources that exclude each other.
    fn check_fields(
        &self,
        i: usize,
        raw: &RawClient,
        kind: ProviderKind,
    ) -> Result<(), AppConfigError> {
        use ProviderKind::{AzureOpenAi, Bedrock, OpenAiCompatible};
        self.only_for(
            i,
            "api",
            raw.api.is_some(),
            kind,
            &[OpenAiCompatible, AzureOpenAi],
        )?;
        self.only_for(
            i,
            "api_version",
            raw.api_version.is_some(),
            kind,
            &[AzureOpenAi],
        )?;
        self.only_for(i, "auth", raw.auth.is_some(), kind, &[AzureOpenAi])?;
        self.only_for(i, "region", raw.region.is_some(), kind, &[Bedrock])?;
        self.only_for(i, "profile", raw.profile.is_some(), kind, &[Bedrock])?;
        self.only_for(
            i,
            "api_key_env",
            raw.api_key_env.is_some(),
            kind,
            &NOT_BEDROCK,
        )?;
        self.only_for(
            i,
            "api_key_cmd",
            raw.api_key_cmd.is_some(),
            kind,
            &NOT_BEDROCK,
        )?;
        if raw.api_key_env.is_some() && raw.api_key_cmd.is_some() {
            return Err(self.invalid(
                format!("clients[{i}].api_key_cmd"),
                "is set together with `api_key_env`",
                "keep one: the variable holding the key, or the command printing it",
            ));
        }
        Ok(())
    }

    /// `api_base` as written, else the type's default (Bedrock's comes from its region).
    fn api_base(
        &self,
        i: usize,
        raw: Option<&str>,
        kind: ProviderKind,
        preset: Option<&'static Preset>,
    ) -> Result<String, AppConfigError> {
        Ok(match (raw, kind) {
            (Some(base), _) => {
                check_api_base(base).map_err(|problem| {
                    self.invalid(
                        format!("clients[{i}].api_base"),
                        problem,
                        "write the server's base URL, e.g. http://127.0.0.1:8080/v1",
                    )
                })?;
                base.trim_end_matches('/').to_owned()
            }
            (None, ProviderKind::AzureOpenAi) => {
                return Err(self.invalid(
                    format!("clients[{i}].api_base"),
                    "is required for azure-openai",
                    "set it to your resource's endpoint, e.g. https://NAME.openai.azure.com",
                ));
            }
            (None, ProviderKind::Bedrock) => String::new(),
            (None, _) => match preset {
                Some(p) if !p.api_base.is_empty() => p.api_base.to_owned(),
                _ if kind == ProviderKind::Anthropic => ANTHROPIC_API_BASE.to_owned(),
                _ => OPENAI_API_BASE.to_owned(),
            },
        })
    }

    /// Bedrock: the region (and the runtime URL from it) and the AWS credentials.
    fn aws(
        &self,
        i: usize,
        region: Option<&str>,
        profile: Option<&str>,
        provider: &mut ProviderConfig,
    ) -> Result<KeyStatus, AppConfigError> {
        let profile = aws::profile_name(self.env, profile);
        let Some(region) = aws::region(self.env, region, &profile) else {
            return Err(self.invalid(
                format!("clients[{i}].region"),
                "is not set, and neither AWS_REGION nor the AWS profile names a region",
                "set `region: us-east-1` (your Bedrock region) on the client",
            ));
        };
        if provider.api_base.is_empty() {
            provider.api_base = bedrock_runtime_base(&region);
        }
        Ok(match aws::credentials(self.env, &profile) {
            Some(found) => {
                provider.aws = Some(AwsAuth {
                    region,
                    credentials: found.credentials,
                });
                KeyStatus::Aws {
                    source: found.source,
                }
            }
            None => KeyStatus::MissingAws { profile },
        })
    }

    /// The key from `api_key_cmd` (run later, by the provider) or from a variable.
    fn key(
        &self,
        i: usize,
        command: Option<String>,
        key_env: Option<String>,
        provider: &mut ProviderConfig,
    ) -> Result<KeyStatus, AppConfigError> {
        let key = |field: &str| format!("clients[{i}].{field}");
        Ok(match (command, key_env) {
            (Some(command), _) => {
                if command.trim().is_empty() {
                    return Err(self.invalid(
                        key("api_key_cmd"),
                        "is empty",
                        "write the command that prints the key, e.g. `pass show openai`",
                    ));
                }
                provider.key_command = Some(command.clone());
                KeyStatus::Command { command }
            }
            (None, None) => KeyStatus::NotNeeded,
            (None, Some(variable)) => {
                if !is_env_name(&variable) {
                    return Err(self.invalid(
                        key("api_key_env"),
                        format!("\"{variable}\" is not an environment variable name"),
                        "write the variable's name (e.g. OPENAI_API_KEY), never the key itself",
                    ));
                }
                match self.env.var(&variable).filter(|v| !v.trim().is_empty()) {
                    Some(secret) => {
                        provider.api_key = Some(ApiKey::from_env(variable.clone(), secret.trim()));
                        KeyStatus::Resolved { variable }
                    }
                    None => KeyStatus::Missing { variable },
                }
            }
        })
    }

    fn only_for(
        &self,
        i: usize,
        field: &str,
        present: bool,
        kind: ProviderKind,
        kinds: &[ProviderKind],
    ) -> Result<(), AppConfigError> {
        if !present || kinds.contains(&kind) {
            return Ok(());
        }
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        Err(self.invalid(
            format!("clients[{i}].{field}"),
            format!("is not read by {} clients", kind.as_str()),
            format!("remove it (it applies to: {})", names.join(", ")),
        ))
    }

    fn models(&self, i: usize, raw: Vec<RawModel>) -> Result<Vec<ModelConfig>, AppConfigError> {
        let key = |field: &str| format!("clients[{i}].{field}");
        let mut models = Vec::new();
        for (j, m) in raw.into_iter().enumerate() {
            if m.name.trim().is_empty() {
                return Err(self.invalid(
                    key(&format!("models[{j}].name")),
                    "is empty",
                    "write the model id the server knows, e.g. gpt-4.1-mini",
                ));
            }
            if m.max_tokens == Some(0) {
                return Err(self.invalid(
                    key(&format!("models[{j}].max_tokens")),
                    "is 0",
                    "use a positive output limit, or remove the key",
                ));
            }
            models.push(ModelConfig {
                name: m.name,
                max_tokens: m.max_tokens,
                context_window: m.context_window,
                supports_images: m.supports_images,
            });
        }
        Ok(models)
    }
}

/// Every kind but Bedrock (which signs with AWS credentials instead of a key).
const NOT_BEDROCK: [ProviderKind; 5] = [
    ProviderKind::OpenAiCompatible,
    ProviderKind::Anthropic,
    ProviderKind::Ollama,
    ProviderKind::AzureOpenAi,
    ProviderKind::Gemini,
];

fn is_client_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
