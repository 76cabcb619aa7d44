use std::path::PathBuf;

use coyote_protocol::{AzureAuth, ProviderKind, Quirks, WireApi};

use super::super::{AppConfig, AppConfigError, KeyStatus, parse_app_config};
use crate::env::MapEnv;

fn path() -> PathBuf {
    PathBuf::from("/home/u/.config/coyote/config.yaml")
}

fn parse(text: &str, env: &MapEnv) -> Result<AppConfig, AppConfigError> {
    parse_app_config(text, &path(), Some(path()), env)
}

fn error(text: &str, env: &MapEnv) -> String {
    parse(text, env).unwrap_err().to_string()
}

#[test]
fn a_preset_is_a_one_line_client() {
    let env = MapEnv::new().with("GROQ_API_KEY", "gsk");
    let config = parse("clients:\n  - type: groq\n", &env).unwrap();
    let client = &config.clients[0];
    assert_eq!(client.provider.name, "groq");
    assert_eq!(client.provider.kind, ProviderKind::OpenAiCompatible);
    assert_eq!(client.provider.api_base, "https://api.groq.com/openai/v1");
    assert_eq!(client.provider.preset, Some("groq"));
    assert_eq!(client.provider.quirks, Quirks::HOSTED);
    assert_eq!(
        client.key,
        KeyStatus::Resolved {
            variable: "GROQ_API_KEY".into()
        }
    );
    let unset = parse("clients:\n  - type: groq\n    name: fast\n", &MapEnv::new()).unwrap();
    assert_eq!(
        unset.clients[0].key,
        KeyStatus::Missing {
            variable: "GROQ_API_KEY".into()
        }
    );
    assert_eq!(
        unset
            .resolve_model(Some("fast:llama"))
            .unwrap_err()
            .to_string(),
        "client \"fast\" reads its API key from $GROQ_API_KEY (`api_key_env` in \
         /home/u/.config/coyote/config.yaml), which is not set. Fix: export GROQ_API_KEY=<your \
         key>, or choose another model with -m"
    );
}

#[test]
fn responses_are_chosen_per_client_and_only_where_they_exist() {
    let env = MapEnv::new().with("OPENAI_API_KEY", "sk");
    let config = parse("clients:\n  - type: openai\n    api: responses\n", &env).unwrap();
    assert_eq!(config.clients[0].provider.api, WireApi::Responses);
    assert_eq!(
        error(
            "clients:\n  - type: anthropic\n    name: a\n    api: responses\n",
            &env
        ),
        "/home/u/.config/coyote/config.yaml: `clients[0].api`: is not read by anthropic \
         clients. Fix: remove it (it applies to: openai-compatible, azure-openai)"
    );
}

#[test]
fn azure_needs_its_endpoint_and_takes_entra_tokens_from_a_command() {
    let env = MapEnv::new();
    assert_eq!(
        error("clients:\n  - type: azure-openai\n", &env),
        "/home/u/.config/coyote/config.yaml: `clients[0].api_base`: is required for \
         azure-openai. Fix: set it to your resource's endpoint, e.g. \
         https://NAME.openai.azure.com"
    );
    let config = parse(
        "clients:\n  - type: azure-openai\n    name: az\n    api_base: https://c.openai.azure.com\n    \
         auth: entra\n    api_version: 2025-04-01-preview\n    api_key_cmd: az account get-access-token\n",
        &env,
    )
    .unwrap();
    let provider = &config.clients[0].provider;
    assert_eq!(provider.azure_auth, AzureAuth::Entra);
    assert_eq!(provider.api_version.as_deref(), Some("2025-04-01-preview"));
    assert_eq!(
        provider.key_command.as_deref(),
        Some("az account get-access-token")
    );
    assert_eq!(
        config.clients[0].key,
        KeyStatus::Command {
            command: "az account get-access-token".into()
        }
    );
    assert_eq!(
        error(
            "clients:\n  - type: groq\n    api_key_env: K\n    api_key_cmd: pass groq\n",
            &env
        ),
        "/home/u/.config/coyote/config.yaml: `clients[0].api_key_cmd`: is set together with \
         `api_key_env`. Fix: keep one: the variable holding the key, or the command printing it"
    );
}

#[test]
fn bedrock_signs_with_aws_credentials_from_the_environment() {
    let env = MapEnv::new()
        .with("AWS_ACCESS_KEY_ID", "AKID")
        .with("AWS_SECRET_ACCESS_KEY", "secret")
        .with("AWS_REGION", "eu-central-1");
    let config = parse("clients:\n  - type: bedrock\n", &env).unwrap();
    let client = &config.clients[0];
    assert_eq!(
        client.provider.api_base,
        "https://bedrock-runtime.eu-central-1.amazonaws.com"
    );
    let aws = client.provider.aws.as_ref().unwrap();
    assert_eq!(
        (aws.region.as_str(), aws.credentials.access_key_id.as_str()),
        ("eu-central-1", "AKID")
    );
    assert_eq!(
        client.key,
        KeyStatus::Aws {
            source: "environment".into()
        }
    );
    assert_eq!(
        error("clients:\n  - type: bedrock\n    api_key_env: X\n", &env),
        "/home/u/.config/coyote/config.yaml: `clients[0].api_key_env`: is not read by bedrock \
         clients. Fix: remove it (it applies to: openai-compatible, anthropic, ollama, \
         azure-openai, gemini)"
    );
}

#[test]
fn bedrock_without_credentials_or_region_says_what_to_set() {
    let home = MapEnv::new().with("HOME", "/nonexistent-home");
    let no_keys = parse(
        "clients:\n  - type: bedrock\n    region: us-east-1\n",
        &home,
    )
    .unwrap();
    assert_eq!(
        no_keys.clients[0].key,
        KeyStatus::MissingAws {
            profile: "default".into()
        }
    );
    assert_eq!(
        no_keys
            .resolve_model(Some("bedrock:m"))
            .unwrap_err()
            .to_string(),
        "client \"bedrock\" (bedrock) found no AWS credentials: AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY are not set and profile \"default\" of ~/.aws/credentials has \
         none. Fix: export them (for SSO: eval \"$(aws configure export-credentials --format \
         env)\"), or set `profile:` on the client to a profile that has keys"
    );
    assert_eq!(
        error("clients:\n  - type: bedrock\n", &home),
        "/home/u/.config/coyote/config.yaml: `clients[0].region`: is not set, and neither \
         AWS_REGION nor the AWS profile names a region. Fix: set `region: us-east-1` (your \
         Bedrock region) on the client"
    );
}

#[test]
fn gemini_and_ollama_have_their_vendor_defaults() {
    let env = MapEnv::new().with("GEMINI_API_KEY", "g");
    let config = parse("clients:\n  - type: gemini\n  - type: ollama\n", &env).unwrap();
    let gemini = &config.clients[0].provider;
    assert_eq!(
        (gemini.kind, gemini.api_base.as_str()),
        (
            ProviderKind::Gemini,
            "https://generativelanguage.googleapis.com/v1beta"
        )
    );
    let ollama = &config.clients[1];
    assert_eq!(
        (ollama.provider.kind, ollama.provider.api_base.as_str()),
        (ProviderKind::Ollama, "http://127.0.0.1:11434")
    );
    assert_eq!(ollama.key, KeyStatus::NotNeeded);
}
