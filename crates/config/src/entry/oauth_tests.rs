use std::path::Path;

use coyote_protocol::{
    ClientCredentials, DpopMode, EnterpriseIdp, McpTransport, OAuthGrant, OAuthSpec, PrivateKey,
    TokenSource,
};

use crate::env::MapEnv;
use crate::error::{ConfigError, ProblemKind};
use crate::mcp_json::{McpFile, McpFileContext, parse_mcp_json};
use crate::warning::WarningKind;

fn parse(oauth: &str) -> Result<McpFile, ConfigError> {
    let env = MapEnv::new().with("SLACK_SECRET", "s3cr3t-VALUE").with(
        "KEY_PEM",
        "-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----",
    );
    let text = format!(
        r#"{{"mcpServers": {{"s": {{"url": "https://h.example/mcp", "oauth": {oauth}}}}}}}"#
    );
    parse_mcp_json(
        &text,
        Path::new("/cfg/mcp.json"),
        &McpFileContext::new(&env, "/cfg"),
    )
}

fn read(oauth: &str) -> (OAuthSpec, Vec<String>) {
    let file = parse(oauth).unwrap_or_else(|e| panic!("{e}"));
    let warnings = file.warnings.iter().map(|w| w.to_string()).collect();
    match &file.servers[0].transport {
        McpTransport::Http(http) => (http.oauth.clone(), warnings),
        other => panic!("{other:?}"),
    }
}

fn problems(oauth: &str) -> Vec<(String, ProblemKind)> {
    match parse(oauth) {
        Err(ConfigError::Invalid { problems, .. }) => problems
            .into_iter()
            .map(|p| (p.path.to_string(), p.kind))
            .collect(),
        other => panic!("expected problems, got {other:?}"),
    }
}

#[test]
fn coyote_keys() {
    let (spec, warnings) = read(
        r#"{"clientId": "app", "clientSecret": "${SLACK_SECRET}", "scopes": ["read", "write"],
            "redirectPort": 8765, "clientMetadataUrl": "https://coyote.example/client.json"}"#,
    );
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(
        spec,
        OAuthSpec {
            client_id: Some("app".into()),
            client_secret: Some("s3cr3t-VALUE".into()),
            scopes: vec!["read".into(), "write".into()],
            redirect_port: Some(8765),
            client_metadata_url: Some("https://coyote.example/client.json".into()),
            auth_server_metadata_url: None,
            grant: OAuthGrant::AuthorizationCode,
            dpop: DpopMode::Auto,
        }
    );
}

#[test]
fn dpop_is_auto_unless_set() {
    assert_eq!(read(r#"{}"#).0.dpop, DpopMode::Auto);
    assert_eq!(read(r#"{"dpop": true}"#).0.dpop, DpopMode::Required);
    assert_eq!(read(r#"{"dpop": false}"#).0.dpop, DpopMode::Off);
    let found = problems(r#"{"dpop": "yes"}"#);
    assert_eq!(found[0].0, "mcpServers.s.oauth.dpop");
}

#[test]
fn workload_identity() {
    let (spec, warnings) = read(
        r#"{"grant": "jwt_bearer", "clientId": "ci-bot",
            "assertionFile": "/var/run/secrets/tokens/mcp-token"}"#,
    );
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(
        spec.grant,
        OAuthGrant::JwtBearer(TokenSource::File(
            "/var/run/secrets/tokens/mcp-token".into()
        ))
    );
    let (spec, _) = read(r#"{"grant": "jwt_bearer", "assertionEnv": "CI_OIDC_TOKEN"}"#);
    assert_eq!(
        spec.grant,
        OAuthGrant::JwtBearer(TokenSource::Env("CI_OIDC_TOKEN".into()))
    );
    let text: Vec<String> = problems(r#"{"grant": "jwt_bearer"}"#)
        .iter()
        .map(|(p, k)| format!("{p}: {k}"))
        .collect();
    assert_eq!(text.len(), 1, "{text:?}");
    assert!(text[0].contains("\"assertionFile\" is missing"), "{text:?}");
    let found = problems(r#"{"grant": "jwt_bearer", "assertionFile": "a", "assertionEnv": "B"}"#);
    assert_eq!(found[0].0, "mcpServers.s.oauth.assertionEnv");
}

#[test]
fn enterprise_managed_authorization() {
    let (spec, warnings) = read(
        r#"{"grant": "enterprise", "clientId": "coyote", "clientSecret": "${SLACK_SECRET}",
            "idpIssuer": "https://login.acme.example", "idpClientId": "coyote-cli",
            "idTokenCommand": ["acme-login", "--print-id-token"]}"#,
    );
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(
        spec.grant,
        OAuthGrant::Enterprise(EnterpriseIdp {
            issuer: "https://login.acme.example".into(),
            client_id: Some("coyote-cli".into()),
            client_secret: None,
            id_token: TokenSource::Command(vec!["acme-login".into(), "--print-id-token".into()]),
        })
    );
    let (spec, _) = read(
        r#"{"grant": "enterprise", "clientId": "c", "idpIssuer": "http://127.0.0.1:9000",
            "idTokenFile": "id.jwt"}"#,
    );
    let OAuthGrant::Enterprise(idp) = &spec.grant else {
        panic!("{spec:?}")
    };
    assert_eq!(idp.id_token, TokenSource::File("/cfg/id.jwt".into()));
    let text: Vec<String> =
        problems(r#"{"grant": "enterprise", "idpIssuer": "http://idp.example"}"#)
            .iter()
            .map(|(p, k)| format!("{p}: {k}"))
            .collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(
        text[0].contains("idpIssuer") && text[0].contains("not https"),
        "{text:?}"
    );
    assert!(text[1].contains("\"clientId\" is missing"), "{text:?}");
    assert!(text[2].contains("\"idTokenFile\" is missing"), "{text:?}");
}

#[test]
fn a_grants_keys_are_refused_with_another_grant() {
    let text: Vec<String> = problems(
        r#"{"grant": "client_credentials", "clientId": "c", "clientSecret": "s",
            "assertionEnv": "T", "idTokenFile": "f"}"#,
    )
    .iter()
    .map(|(p, k)| format!("{p}: {k}"))
    .collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(
        text[0].contains("only used with \"grant\": \"jwt_bearer\""),
        "{text:?}"
    );
    assert!(
        text[1].contains("only used with \"grant\": \"enterprise\""),
        "{text:?}"
    );
}

#[test]
fn claude_code_keys_are_aliases() {
    let (spec, warnings) = read(
        r#"{"clientId": "app", "callbackPort": 8080, "scopes": "channels:read  chat:write",
            "authServerMetadataUrl": "https://auth.example/.well-known/openid-configuration"}"#,
    );
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(spec.redirect_port, Some(8080));
    assert_eq!(spec.scopes, ["channels:read", "chat:write"]);
    assert_eq!(
        spec.auth_server_metadata_url.as_deref(),
        Some("https://auth.example/.well-known/openid-configuration")
    );
    let (spec, warnings) = read(r#"{"redirectPort": 1, "callbackPort": 2}"#);
    assert_eq!(spec.redirect_port, Some(1));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("\"callbackPort\" is overridden by \"redirectPort\""));
}

#[test]
fn client_credentials() {
    let (spec, _) = read(
        r#"{"grant": "client_credentials", "clientId": "bot", "clientSecret": "${SLACK_SECRET}",
            "scopes": ["mcp"]}"#,
    );
    assert_eq!(
        spec.grant,
        OAuthGrant::ClientCredentials(ClientCredentials::default())
    );
    let (spec, _) = read(
        r#"{"grant": "client_credentials", "clientId": "bot", "privateKey": "${KEY_PEM}",
            "signingAlgorithm": "ES256"}"#,
    );
    let OAuthGrant::ClientCredentials(cc) = &spec.grant else {
        panic!("{spec:?}")
    };
    assert!(matches!(&cc.private_key, Some(PrivateKey::Pem(pem)) if pem.contains("BEGIN")));
    assert_eq!(cc.signing_algorithm.as_deref(), Some("ES256"));
    let (spec, _) = read(
        r#"{"grant": "client_credentials", "clientId": "bot", "privateKeyFile": "keys/bot.pem"}"#,
    );
    let OAuthGrant::ClientCredentials(cc) = &spec.grant else {
        panic!("{spec:?}")
    };
    assert_eq!(
        cc.private_key,
        Some(PrivateKey::File("/cfg/keys/bot.pem".into()))
    );
}

#[test]
fn problems_name_the_key_and_never_the_secret() {
    let found = problems(
        r#"{"redirectPort": 70000, "clientMetadataUrl": "http://coyote.example/c.json",
            "privateKey": "${KEY_PEM}", "grant": "device_code"}"#,
    );
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "mcpServers.s.oauth.redirectPort",
            "mcpServers.s.oauth.clientMetadataUrl",
            "mcpServers.s.oauth.grant",
        ]
    );
    let found = problems(r#"{"grant": "client_credentials", "scopes": 3}"#);
    let text: Vec<String> = found.iter().map(|(p, k)| format!("{p}: {k}")).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(text[0].starts_with("mcpServers.s.oauth.scopes: expected an array of strings"));
    assert!(text[1].contains("\"clientId\" is missing"), "{text:?}");
    assert!(
        text[2].contains("\"clientSecret\" or a \"privateKey\""),
        "{text:?}"
    );
    let found = problems(r#"{"privateKey": "${KEY_PEM}", "clientSecret": "${SLACK_SECRET}"}"#);
    let text = format!("{found:?}");
    assert!(text.contains("OAuthKeyNeedsGrant"), "{text}");
    assert!(!text.contains("s3cr3t") && !text.contains("MIGH"), "{text}");
}

#[test]
fn unknown_oauth_keys_warn_and_static_credentials_win() {
    let (_, warnings) = read(r#"{"clientID": "x", "scope": "a"}"#);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("did you mean \"clientId\"?"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("did you mean \"scopes\"?"),
        "{warnings:?}"
    );

    let env = MapEnv::new().with("T", "tok");
    let text = r#"{"mcpServers": {
        "a": {"url": "https://h/mcp", "bearerTokenEnv": "T", "oauth": {}},
        "b": {"command": "x", "oauth": {}}}}"#;
    let file = parse_mcp_json(
        text,
        Path::new("/cfg/mcp.json"),
        &McpFileContext::new(&env, "/cfg"),
    )
    .unwrap();
    let kinds: Vec<WarningKind> = file.warnings.into_iter().map(|w| w.kind).collect();
    assert_eq!(
        kinds,
        [
            WarningKind::Superseded {
                key: "oauth",
                winner: "bearerTokenEnv"
            },
            WarningKind::UnusedKey {
                key: "oauth",
                transport: "stdio"
            },
        ]
    );
}
