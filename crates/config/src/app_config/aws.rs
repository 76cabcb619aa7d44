//! AWS region and credentials for `type: bedrock` clients, found the way the AWS CLI finds them:
//! `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` first, else the profile
//! (`profile:` in config.yaml, else `AWS_PROFILE`, else `default`) in the shared credentials
//! file (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`); the region from `region:`,
//! else `AWS_REGION`, `AWS_DEFAULT_REGION`, else the profile's `region` in the config file
//! (`AWS_CONFIG_FILE`, else `~/.aws/config`). Single sign-on and credential processes are not
//! read: export their credentials (`aws configure export-credentials --format env`) instead.

use std::path::PathBuf;

use coyote_protocol::{ApiKey, AwsCredentials};

use crate::env::EnvLookup;

/// Where the credentials came from, for `coyote models`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub credentials: AwsCredentials,
    /// `environment` or `profile NAME (PATH)`.
    pub source: String,
}

fn get(env: &dyn EnvLookup, name: &str) -> Option<String> {
    env.var(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn aws_file(env: &dyn EnvLookup, variable: &str, name: &str) -> Option<PathBuf> {
    get(env, variable)
        .map(PathBuf::from)
        .or_else(|| get(env, "HOME").map(|home| PathBuf::from(home).join(".aws").join(name)))
}

/// The `key = value` pairs of section `section` of an INI file.
fn section(text: &str, section: &str) -> Vec<(String, String)> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == section;
            continue;
        }
        if inside && let Some((key, value)) = line.split_once('=') {
            out.push((key.trim().to_string(), value.trim().to_string()));
        }
    }
    out
}

fn lookup(pairs: &[(String, String)], key: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .filter(|v| !v.is_empty())
}

/// The profile to read.
pub(crate) fn profile_name(env: &dyn EnvLookup, configured: Option<&str>) -> String {
    configured
        .map(str::to_string)
        .or_else(|| get(env, "AWS_PROFILE"))
        .unwrap_or_else(|| "default".to_string())
}

/// The credentials, or `None` when neither the environment nor the profile has them.
pub(crate) fn credentials(env: &dyn EnvLookup, profile: &str) -> Option<Found> {
    if let (Some(id), Some(secret)) = (
        get(env, "AWS_ACCESS_KEY_ID"),
        get(env, "AWS_SECRET_ACCESS_KEY"),
    ) {
        return Some(Found {
            credentials: AwsCredentials {
                access_key_id: id,
                secret_access_key: ApiKey::from_env("AWS_SECRET_ACCESS_KEY", secret),
                session_token: get(env, "AWS_SESSION_TOKEN")
                    .map(|t| ApiKey::from_env("AWS_SESSION_TOKEN", t)),
            },
            source: "environment".to_string(),
        });
    }
    let path = aws_file(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials")?;
    let text = std::fs::read_to_string(&path).ok()?;
    let pairs = section(&text, profile);
    let id = lookup(&pairs, "aws_access_key_id")?;
    let secret = lookup(&pairs, "aws_secret_access_key")?;
    Some(Found {
        credentials: AwsCredentials {
            access_key_id: id,
            secret_access_key: ApiKey::new(secret),
            session_token: lookup(&pairs, "aws_session_token").map(ApiKey::new),
        },
        source: format!("profile {profile} ({})", path.display()),
    })
}

/// The region, or `None` when nothing names one.
pub(crate) fn region(
    env: &dyn EnvLookup,
    configured: Option<&str>,
    profile: &str,
) -> Option<String> {
    if let Some(region) = configured.map(str::trim).filter(|r| !r.is_empty()) {
        return Some(region.to_string());
    }
    if let Some(region) = get(env, "AWS_REGION").or_else(|| get(env, "AWS_DEFAULT_REGION")) {
        return Some(region);
    }
    let path = aws_file(env, "AWS_CONFIG_FILE", "config")?;
    let text = std::fs::read_to_string(path).ok()?;
    let name = if profile == "default" {
        "default".to_string()
    } else {
        format!("profile {profile}")
    };
    lookup(&section(&text, &name), "region")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MapEnv;

    #[test]
    fn the_environment_wins_over_the_profile_files() {
        let env = MapEnv::new()
            .with("AWS_ACCESS_KEY_ID", "AKIDENV")
            .with("AWS_SECRET_ACCESS_KEY", "secret")
            .with("AWS_SESSION_TOKEN", "tok")
            .with("AWS_REGION", "eu-west-1");
        let found = credentials(&env, "default").unwrap();
        assert_eq!(found.credentials.access_key_id, "AKIDENV");
        assert_eq!(found.source, "environment");
        assert!(found.credentials.session_token.is_some());
        assert_eq!(region(&env, None, "default").as_deref(), Some("eu-west-1"));
        assert_eq!(
            region(&env, Some("us-west-2"), "default").as_deref(),
            Some("us-west-2")
        );
    }

    #[test]
    fn a_named_profile_is_read_from_the_shared_files() {
        let dir = std::env::temp_dir().join(format!("coyote-aws-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".aws")).unwrap();
        std::fs::write(
            dir.join(".aws/credentials"),
            "[default]\naws_access_key_id = AKIDDEF\naws_secret_access_key = s1\n\n\
             [work]\n# team account\naws_access_key_id=AKIDWORK\naws_secret_access_key=s2\n",
        )
        .unwrap();
        std::fs::write(
            dir.join(".aws/config"),
            "[default]\nregion = us-east-1\n[profile work]\nregion = ap-south-1\n",
        )
        .unwrap();
        let env = MapEnv::new()
            .with("HOME", dir.display().to_string())
            .with("AWS_PROFILE", "work");
        let profile = profile_name(&env, None);
        let found = credentials(&env, &profile);
        let region = region(&env, None, &profile);
        std::fs::remove_dir_all(&dir).unwrap();
        let found = found.unwrap();
        assert_eq!(found.credentials.access_key_id, "AKIDWORK");
        assert_eq!(found.credentials.secret_access_key.expose_secret(), "s2");
        assert!(
            found.source.starts_with("profile work ("),
            "{}",
            found.source
        );
        assert_eq!(region.as_deref(), Some("ap-south-1"));
        assert_eq!(credentials(&MapEnv::new(), "default"), None);
    }
}
