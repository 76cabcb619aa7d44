use std::path::PathBuf;

use super::*;
use crate::env::MapEnv;

fn resolve(env: &MapEnv) -> ConfigPaths {
    ConfigPaths::resolve(env, &PathOverrides::default()).unwrap()
}

#[test]
fn home_fallbacks() {
    let env = MapEnv::new().with("HOME", "/h");
    assert_eq!(
        resolve(&env),
        ConfigPaths::new(
            "/h/.config/coyote",
            "/h/.local/state/coyote",
            "/h/.cache/coyote"
        )
    );
}

#[test]
fn xdg_variables() {
    let env = MapEnv::new()
        .with("HOME", "/h")
        .with("XDG_CONFIG_HOME", "/xc")
        .with("XDG_STATE_HOME", "/xs")
        .with("XDG_CACHE_HOME", "/xk");
    assert_eq!(
        resolve(&env),
        ConfigPaths::new("/xc/coyote", "/xs/coyote", "/xk/coyote")
    );
}

#[test]
fn relative_and_empty_xdg_values_are_ignored() {
    let env = MapEnv::new()
        .with("HOME", "/h")
        .with("XDG_CONFIG_HOME", "rel")
        .with("XDG_STATE_HOME", "");
    let paths = resolve(&env);
    assert_eq!(paths.config_dir(), Path::new("/h/.config/coyote"));
    assert_eq!(paths.state_dir(), Path::new("/h/.local/state/coyote"));
}

#[test]
fn coyote_variables_win_over_xdg() {
    let env = MapEnv::new()
        .with("HOME", "/h")
        .with("XDG_CONFIG_HOME", "/xc")
        .with("COYOTE_CONFIG_DIR", "/cc")
        .with("COYOTE_STATE_DIR", "/cs")
        .with("COYOTE_CACHE_DIR", "/ck");
    assert_eq!(resolve(&env), ConfigPaths::new("/cc", "/cs", "/ck"));
}

#[test]
fn cli_override_wins_over_env() {
    let env = MapEnv::new()
        .with("HOME", "/h")
        .with("COYOTE_CONFIG_DIR", "/cc");
    let overrides = PathOverrides {
        config_dir: Some(PathBuf::from("/flag")),
    };
    let paths = ConfigPaths::resolve(&env, &overrides).unwrap();
    assert_eq!(paths.config_dir(), Path::new("/flag"));
    assert_eq!(paths.mcp_json(), PathBuf::from("/flag/mcp.json"));
    assert_eq!(paths.state_dir(), Path::new("/h/.local/state/coyote"));
}

#[test]
fn derived_paths() {
    let paths = ConfigPaths::under(Path::new("/t"));
    assert_eq!(paths.mcp_json(), PathBuf::from("/t/config/mcp.json"));
    assert_eq!(paths.config_yaml(), PathBuf::from("/t/config/config.yaml"));
    assert_eq!(
        paths.trusted_projects(),
        PathBuf::from("/t/state/trusted-projects.json")
    );
    assert_eq!(
        paths.mcp_resources_dir(),
        PathBuf::from("/t/cache/mcp-resources")
    );
}
