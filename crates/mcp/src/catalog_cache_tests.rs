use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;

use coyote_protocol::{McpTransport, StartPolicy, StdioSpec};

use super::*;

fn spec(env: &str) -> McpServerSpec {
    McpServerSpec {
        name: "srv".into(),
        transport: McpTransport::Stdio(StdioSpec {
            command: "srv-mcp".into(),
            args: vec!["--flag".into()],
            env: BTreeMap::from([("TOKEN".to_owned(), env.to_owned())]),
            cwd: None,
        }),
        timeouts: Default::default(),
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: vec![],
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: "mcp.json".into(),
    }
}

fn catalog(written_at_ms: u64, server_ttl_ms: Option<u64>) -> CachedCatalog {
    CachedCatalog {
        version: CATALOG_CACHE_VERSION,
        server: "srv".into(),
        written_at_ms,
        server_ttl_ms,
        info: ServerInfo::default(),
        tools: vec![],
        resources: vec![],
        templates: vec![],
        prompts: vec![],
        lifecycle: None,
    }
}

#[test]
fn a_catalog_is_stored_0600_and_keyed_by_the_resolved_entry() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CatalogCache::new(dir.path().join("mcp-catalogs"));
    let stored = catalog(now_ms(), None);
    cache.store(&spec("a"), &stored).unwrap();
    assert_eq!(cache.load_fresh(&spec("a")), Some(stored));
    // Another environment value is another entry.
    assert_eq!(cache.load_fresh(&spec("b")), None);
    let path = cache.path_of(&spec("a"));
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::metadata(cache.dir()).unwrap().permissions().mode() & 0o777,
        0o700
    );
    // The file holds no environment value.
    assert!(!std::fs::read_to_string(&path).unwrap().contains("TOKEN"));
    assert_eq!(cache.entries().len(), 1);
    assert_eq!(cache.clear().unwrap(), 1);
    assert_eq!(cache.load_fresh(&spec("a")), None);
}

#[test]
fn freshness_follows_the_entry_then_the_server_hint_then_seven_days() {
    let now = SystemTime::now();
    let ms = |d: Duration| {
        u64::try_from((now - d).duration_since(UNIX_EPOCH).unwrap().as_millis()).unwrap()
    };
    let day = Duration::from_secs(24 * 60 * 60);
    let plain = spec("a");
    assert!(catalog(ms(6 * day), None).is_fresh(&plain, now));
    assert!(!catalog(ms(8 * day), None).is_fresh(&plain, now));
    // The server's hint: one minute.
    assert!(!catalog(ms(Duration::from_secs(120)), Some(60_000)).is_fresh(&plain, now));
    // catalogTtlSec wins over both.
    let mut long = spec("a");
    long.start = StartPolicy {
        catalog_ttl: Some(30 * day),
        ..StartPolicy::default()
    };
    assert!(catalog(ms(20 * day), Some(60_000)).is_fresh(&long, now));
}
