//! BM25 catalog search over 10,000 items: building the index (done
//! per query, catalogs are live) and ranking one query.
#![expect(
    missing_docs,
    reason = "criterion_group! declares an undocumented pub fn"
)]

use coyote_mcp::search::CatalogIndex;
use coyote_mcp::{CatalogItem, CatalogKind};
use criterion::{Criterion, criterion_group, criterion_main};

const WORDS: &[&str] = &[
    "issue",
    "repository",
    "branch",
    "commit",
    "deploy",
    "server",
    "database",
    "backup",
    "user",
    "token",
    "log",
    "metric",
    "alert",
    "invoice",
    "customer",
    "ticket",
    "file",
    "folder",
    "image",
    "report",
    "schedule",
    "queue",
    "cache",
    "secret",
    "webhook",
    "project",
    "team",
    "build",
];
const VERBS: &[&str] = &[
    "list", "get", "create", "update", "delete", "search", "sync", "export",
];

fn catalog(n: usize) -> Vec<CatalogItem> {
    (0..n)
        .map(|i| {
            let noun = WORDS[i % WORDS.len()];
            let other = WORDS[(i / WORDS.len()) % WORDS.len()];
            let verb = VERBS[i % VERBS.len()];
            let kind = CatalogKind::ALL[i % 4];
            let id = match kind {
                CatalogKind::Resource => format!("file:///{noun}/{other}/{i}.json"),
                CatalogKind::ResourceTemplate => format!("{noun}://{other}/{{id}}/{i}"),
                _ => format!("{verb}_{noun}_{other}_{i}"),
            };
            CatalogItem {
                kind,
                id: id.clone(),
                name: format!("{verb}_{noun}_{i}"),
                title: Some(format!("{verb} {noun} of a {other}")),
                description: Some(format!(
                    "{verb} the {noun} records that belong to a {other}; supports paging, filters \
                     and sorting by date. Item number {i}."
                )),
                uri: matches!(kind, CatalogKind::Resource).then_some(id),
                mime_type: None,
                size: None,
                annotations: None,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let items = catalog(10_000);
    c.bench_function("catalog_search/10k/index+query", |b| {
        b.iter(|| {
            CatalogIndex::new(&items)
                .search("create a deploy backup for the database", 10)
                .len()
        })
    });
    let index = CatalogIndex::new(&items);
    c.bench_function("catalog_search/10k/query_only", |b| {
        b.iter(|| {
            index
                .search("create a deploy backup for the database", 10)
                .len()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
