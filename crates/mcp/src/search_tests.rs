use super::*;
use serde_json::json;

fn item(kind: CatalogKind, id: &str, description: &str) -> CatalogItem {
    CatalogItem {
        kind,
        id: id.into(),
        name: id.into(),
        title: None,
        description: Some(description.into()),
        uri: None,
        mime_type: None,
        size: None,
        annotations: None,
    }
}

fn catalog() -> Vec<CatalogItem> {
    let mut log = item(
        CatalogKind::Resource,
        "file:///var/log/app.log",
        "Application log",
    );
    log.name = "app.log".into();
    log.uri = Some(log.id.clone());
    log.mime_type = Some("text/plain".into());
    log.annotations = Some(json!({"audience": ["user"]}));
    vec![
        item(
            CatalogKind::Tool,
            "create_issue",
            "Create a new issue in a repository",
        ),
        item(
            CatalogKind::Tool,
            "list_issues",
            "List issues of a repository, newest first",
        ),
        item(
            CatalogKind::Tool,
            "get_weather",
            "Current weather for a city",
        ),
        log,
        item(
            CatalogKind::ResourceTemplate,
            "repo://{owner}/{name}/readme",
            "README of a repository",
        ),
        item(
            CatalogKind::Prompt,
            "summarize_issue",
            "Summarise an issue thread",
        ),
    ]
}

fn ids(hits: &[SearchHit<'_>]) -> Vec<String> {
    hits.iter().map(|h| h.item.id.clone()).collect()
}

#[test]
fn ranks_name_matches_first_and_spans_kinds() {
    let items = catalog();
    let hits = search_catalog(&items, "list issues", 3);
    assert_eq!(
        ids(&hits),
        ["list_issues", "summarize_issue", "create_issue"]
    );
    let kinds: Vec<CatalogKind> = hits.iter().map(|h| h.item.kind).collect();
    assert_eq!(
        kinds,
        [CatalogKind::Tool, CatalogKind::Prompt, CatalogKind::Tool]
    );
}

#[test]
fn finds_resources_by_uri_and_surfaces_annotations() {
    let items = catalog();
    let hits = search_catalog(&items, "log", 5);
    assert_eq!(ids(&hits), ["file:///var/log/app.log"]);
    assert_eq!(
        serde_json::to_value(hits[0].view()).unwrap(),
        json!({
            "kind": "resource",
            "id": "file:///var/log/app.log",
            "name": "app.log",
            "description": "Application log",
            "mime_type": "text/plain",
            "annotations": {"audience": ["user"]}
        })
    );
}

#[test]
fn camel_case_and_plural_words_match() {
    let mut items = catalog();
    items.push(item(CatalogKind::Tool, "getUserProfiles", "Fetch profiles"));
    assert_eq!(
        ids(&search_catalog(&items, "user profile", 1)),
        ["getUserProfiles"]
    );
}

#[test]
fn top_k_is_clamped() {
    let items: Vec<CatalogItem> = (0..50)
        .map(|i| item(CatalogKind::Tool, &format!("tool_{i}"), "does a thing"))
        .collect();
    assert_eq!(search_catalog(&items, "thing", 0).len(), MIN_TOP_K);
    assert_eq!(search_catalog(&items, "thing", 1000).len(), MAX_TOP_K);
    assert_eq!(clamp_top_k(None), DEFAULT_TOP_K);
    assert_eq!(clamp_top_k(Some(0)), 1);
    assert_eq!(clamp_top_k(Some(7)), 7);
    assert_eq!(clamp_top_k(Some(u64::MAX)), MAX_TOP_K);
}

#[test]
fn ties_keep_catalog_order() {
    let items: Vec<CatalogItem> = (0..5)
        .map(|i| item(CatalogKind::Tool, &format!("t{i}"), "same words"))
        .collect();
    assert_eq!(
        ids(&search_catalog(&items, "same", 5)),
        ["t0", "t1", "t2", "t3", "t4"]
    );
}

#[test]
fn empty_query_lists_first_items_and_no_match_is_empty() {
    let items = catalog();
    assert_eq!(
        ids(&search_catalog(&items, "  ", 2)),
        ["create_issue", "list_issues"]
    );
    assert!(search_catalog(&items, "zebra", 5).is_empty());
    assert!(search_catalog(&[], "zebra", 5).is_empty());
}

#[test]
fn long_descriptions_are_cut_on_a_char_boundary() {
    let long = "é".repeat(HIT_DESCRIPTION_MAX_BYTES);
    let items = vec![item(CatalogKind::Tool, "t", &long)];
    let view = search_catalog(&items, "t", 1)[0].view();
    let d = view.description.unwrap();
    assert_eq!(d, format!("{}…", "é".repeat(HIT_DESCRIPTION_MAX_BYTES / 2)));
}

#[test]
fn for_retrieval_a_bare_number_ranks_nothing_alone() {
    let items = vec![
        item(CatalogKind::Tool, "fruit_a", "Fruit number 2"),
        item(CatalogKind::Tool, "fruit_b", "Fruit number 3"),
        item(CatalogKind::Tool, "tool_002", "Tool number 2"),
    ];
    let index = CatalogIndex::new(&items);
    // mcp_search_ still finds what the model searched for, number or not.
    assert_eq!(ids(&index.rank("apple-2")), ["fruit_a", "tool_002"]);
    // The retrieval scorer: the number alone pulls nothing, digits-only queries rank nothing.
    assert!(index.rank_by_words("apple-2").is_empty());
    assert!(index.rank_by_words("002 2").is_empty());
    assert!(index.rank_by_words("  ").is_empty());
    // Beside a word that matched, the number still decides: fruit 2 before fruit 3, and the
    // tool that only the number matched stays out.
    assert_eq!(ids(&index.rank_by_words("fruit 2")), ["fruit_a", "fruit_b"]);
}
