//! docs/chat.md "Providers": every ```yaml provider block is a config.yaml that loads as written,
//! its default model resolves (keys set in the environment), and together the blocks show every
//! client type config.yaml accepts.

use std::collections::BTreeSet;
use std::path::Path;

use coyote_config::{KeyStatus, MapEnv, client_types, parse_app_config};

fn provider_blocks() -> Vec<(usize, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/chat.md");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) if info.trim() == "yaml provider" => {
                current = Some((i + 1, String::new()));
            }
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}

fn env() -> MapEnv {
    let mut env = MapEnv::new()
        .with("HOME", "/nonexistent-home")
        .with("ANTHROPIC_API_KEY", "k")
        .with("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        .with("AWS_SECRET_ACCESS_KEY", "secret");
    for var in [
        "OPENAI_API_KEY",
        "GROQ_API_KEY",
        "OPENROUTER_API_KEY",
        "DEEPSEEK_API_KEY",
        "MISTRAL_API_KEY",
        "TOGETHER_API_KEY",
        "FIREWORKS_API_KEY",
        "XAI_API_KEY",
        "PERPLEXITY_API_KEY",
        "CEREBRAS_API_KEY",
        "GEMINI_API_KEY",
    ] {
        env.set(var, "k");
    }
    env
}

#[test]
fn every_provider_example_loads_and_resolves_its_model() {
    let blocks = provider_blocks();
    assert_eq!(blocks.len(), 8, "provider examples in docs/chat.md");
    let env = env();
    let mut types = BTreeSet::new();
    for (line, body) in &blocks {
        let config = parse_app_config(body, Path::new("config.yaml"), None, &env)
            .unwrap_or_else(|e| panic!("docs/chat.md line {line}: {e}"));
        let model = config
            .resolve_model(None)
            .unwrap_or_else(|e| panic!("docs/chat.md line {line}: {e}"));
        assert_eq!(
            Some(model.id()),
            config.model.clone(),
            "docs/chat.md line {line}"
        );
        for client in &config.clients {
            assert!(
                !matches!(
                    client.key,
                    KeyStatus::Missing { .. } | KeyStatus::MissingAws { .. }
                ),
                "docs/chat.md line {line}: {:?}",
                client.key
            );
        }
        for raw in body
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- type: "))
        {
            types.insert(raw.trim().to_owned());
        }
    }
    let all: BTreeSet<String> = client_types().into_iter().map(str::to_owned).collect();
    assert_eq!(types, all, "the examples show every client type");
}
