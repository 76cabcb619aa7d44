//! Paged listing of tools, resources, resource templates and prompts, and the unified catalog
//! built from them: the listing methods of [`ServerHandle`], as an `impl`
//! block here so the handle never needs to know how a list is paged. The item types live in
//! [`crate::catalog`].
//!
//! Invariants:
//! - Our own cursor loop, never rmcp's `list_all_*` (no guard there): a cursor seen twice is
//!   [`McpError::RepeatedCursor`], more than [`MAX_LIST_PAGES`] pages is
//!   [`McpError::TooManyPages`]; every page request has the call timeout. Never a hang.
//! - One request per page: a page of N items costs exactly one `*/list` request.
//! - A page rmcp cannot type (one malformed item) is read item by item; bad items are skipped
//!   with a warning and the rest are kept.
//! - `catalog()` lists a kind only when the server advertises it, lists kinds concurrently,
//!   and a failing kind becomes a warning while the others are still returned.
//! - `holds()` asks for the first page of each advertised kind besides tools, nothing more:
//!   whether the server has anything to discover, not what.

use std::collections::HashSet;

use rmcp::model::{
    ClientRequest, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
    ListToolsRequest, PaginatedRequestParams, Prompt, Resource, ResourceTemplate, ServerResult,
    Tool,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::{
    Catalog, CatalogItem, CatalogKind, PromptInfo, ResourceInfo, ResourceTemplateInfo, ToolInfo,
};
use crate::convert;
use crate::error::McpError;
use crate::handle::ServerHandle;

/// Most pages one listing may take before it is treated as a broken server.
pub const MAX_LIST_PAGES: usize = 1000;

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i32 = -32601;

/// One page of a listing.
struct Page<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
    skipped: Vec<String>,
    /// The page's `ttlMs` freshness hint (protocol 2026-07-28), if it sent one.
    ttl_ms: Option<u64>,
}

/// A listable kind: how to ask for a page and read the answer.
trait ListKind {
    type Item: Into<CatalogItem>;
    const KIND: CatalogKind;
    const METHOD: &'static str;
    /// Key of the items array in the raw result.
    const FIELD: &'static str;
    type Raw: DeserializeOwned;
    fn request(params: PaginatedRequestParams) -> ClientRequest;
    /// The typed page, or the result back when rmcp classified it as something else.
    fn typed(result: ServerResult) -> Result<Page<Self::Item>, Box<ServerResult>>;
    fn convert(raw: Self::Raw) -> Self::Item;
    /// What the handle keeps of a full listing (tools: their output schemas).
    fn remember(_handle: &ServerHandle, _items: &[Self::Item]) {}
}

fn typed_page<R, T>(
    items: Vec<R>,
    (next_cursor, ttl_ms): (Option<String>, Option<u64>),
    f: fn(R) -> T,
) -> Page<T> {
    Page {
        items: items.into_iter().map(f).collect(),
        next_cursor,
        skipped: Vec::new(),
        ttl_ms,
    }
}

struct Tools;
impl ListKind for Tools {
    type Item = ToolInfo;
    type Raw = Tool;
    const KIND: CatalogKind = CatalogKind::Tool;
    const METHOD: &'static str = "tools/list";
    const FIELD: &'static str = "tools";
    fn request(params: PaginatedRequestParams) -> ClientRequest {
        ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params))
    }
    fn typed(result: ServerResult) -> Result<Page<ToolInfo>, Box<ServerResult>> {
        match result {
            ServerResult::ListToolsResult(r) => Ok(typed_page(
                r.tools,
                (r.next_cursor, r.ttl_ms),
                convert::tool_info,
            )),
            other => Err(Box::new(other)),
        }
    }
    fn convert(raw: Tool) -> ToolInfo {
        convert::tool_info(raw)
    }
    fn remember(handle: &ServerHandle, items: &[ToolInfo]) {
        handle.remember_output_schemas(items);
    }
}

struct Resources;
impl ListKind for Resources {
    type Item = ResourceInfo;
    type Raw = Resource;
    const KIND: CatalogKind = CatalogKind::Resource;
    const METHOD: &'static str = "resources/list";
    const FIELD: &'static str = "resources";
    fn request(params: PaginatedRequestParams) -> ClientRequest {
        ClientRequest::ListResourcesRequest(ListResourcesRequest::with_param(params))
    }
    fn typed(result: ServerResult) -> Result<Page<ResourceInfo>, Box<ServerResult>> {
        match result {
            ServerResult::ListResourcesResult(r) => Ok(typed_page(
                r.resources,
                (r.next_cursor, r.ttl_ms),
                convert::resource_info,
            )),
            other => Err(Box::new(other)),
        }
    }
    fn convert(raw: Resource) -> ResourceInfo {
        convert::resource_info(raw)
    }
}

struct Templates;
impl ListKind for Templates {
    type Item = ResourceTemplateInfo;
    type Raw = ResourceTemplate;
    const KIND: CatalogKind = CatalogKind::ResourceTemplate;
    const METHOD: &'static str = "resources/templates/list";
    const FIELD: &'static str = "resourceTemplates";
    fn request(params: PaginatedRequestParams) -> ClientRequest {
        ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest::with_param(
            params,
        ))
    }
    fn typed(result: ServerResult) -> Result<Page<ResourceTemplateInfo>, Box<ServerResult>> {
        match result {
            ServerResult::ListResourceTemplatesResult(r) => Ok(typed_page(
                r.resource_templates,
                (r.next_cursor, r.ttl_ms),
                convert::template_info,
            )),
            other => Err(Box::new(other)),
        }
    }
    fn convert(raw: ResourceTemplate) -> ResourceTemplateInfo {
        convert::template_info(raw)
    }
}

struct Prompts;
impl ListKind for Prompts {
    type Item = PromptInfo;
    type Raw = Prompt;
    const KIND: CatalogKind = CatalogKind::Prompt;
    const METHOD: &'static str = "prompts/list";
    const FIELD: &'static str = "prompts";
    fn request(params: PaginatedRequestParams) -> ClientRequest {
        ClientRequest::ListPromptsRequest(ListPromptsRequest::with_param(params))
    }
    fn typed(result: ServerResult) -> Result<Page<PromptInfo>, Box<ServerResult>> {
        match result {
            ServerResult::ListPromptsResult(r) => Ok(typed_page(
                r.prompts,
                (r.next_cursor, r.ttl_ms),
                convert::prompt_info,
            )),
            other => Err(Box::new(other)),
        }
    }
    fn convert(raw: Prompt) -> PromptInfo {
        convert::prompt_info(raw)
    }
}

/// Reads a page item by item (rmcp could not type it as a whole).
fn raw_page<K: ListKind>(server: &str, result: ServerResult) -> Result<Page<K::Item>, McpError> {
    let raw = match result {
        ServerResult::CustomResult(raw) => raw.0,
        other => serde_json::to_value(&other).unwrap_or(Value::Null),
    };
    let protocol = |message: String| McpError::Protocol {
        server: server.to_owned(),
        method: K::METHOD.to_owned(),
        message,
    };
    let Value::Object(mut obj) = raw else {
        return Err(protocol("the result is not an object".to_owned()));
    };
    let Some(Value::Array(values)) = obj.remove(K::FIELD) else {
        return Err(protocol(format!(
            "the result has no \"{}\" array",
            K::FIELD
        )));
    };
    let next_cursor = match obj.remove("nextCursor") {
        Some(Value::String(s)) => Some(s),
        None | Some(Value::Null) => None,
        Some(other) => return Err(protocol(format!("\"nextCursor\" is not a string: {other}"))),
    };
    let ttl_ms = obj.get("ttlMs").and_then(Value::as_u64);
    let mut page = Page {
        items: Vec::with_capacity(values.len()),
        next_cursor,
        skipped: Vec::new(),
        ttl_ms,
    };
    for (index, value) in values.into_iter().enumerate() {
        let label = value.get("name").and_then(Value::as_str).map(str::to_owned);
        match serde_json::from_value::<K::Raw>(value) {
            Ok(raw) => page.items.push(K::convert(raw)),
            Err(e) => page.skipped.push(format!(
                "skipped {} #{index}{} of server '{server}': {e}",
                K::KIND,
                label.map(|l| format!(" ({l})")).unwrap_or_default()
            )),
        }
    }
    Ok(page)
}

/// Follows cursors to the end; see the module invariants.
async fn list_all<K: ListKind>(
    handle: &ServerHandle,
) -> Result<(Vec<K::Item>, Vec<String>), McpError> {
    let server = handle.name();
    let mut seen: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for _ in 0..MAX_LIST_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let result = handle.request(K::METHOD, K::request(params)).await?;
        let page = match K::typed(result) {
            Ok(page) => page,
            Err(other) => raw_page::<K>(server, *other)?,
        };
        if let Some(ttl) = page.ttl_ms {
            handle.note_list_ttl(ttl);
        }
        items.extend(page.items);
        for warning in page.skipped {
            tracing::warn!(server, "{warning}");
            skipped.push(warning);
        }
        match page.next_cursor {
            // An empty cursor is how some servers say "no more pages".
            None => {
                K::remember(handle, &items);
                return Ok((items, skipped));
            }
            Some(next) if next.is_empty() => {
                K::remember(handle, &items);
                return Ok((items, skipped));
            }
            Some(next) => {
                if !seen.insert(next.clone()) {
                    return Err(McpError::RepeatedCursor {
                        server: server.to_owned(),
                        kind: K::KIND,
                        cursor: next,
                    });
                }
                cursor = Some(next);
            }
        }
    }
    Err(McpError::TooManyPages {
        server: server.to_owned(),
        kind: K::KIND,
        limit: MAX_LIST_PAGES,
    })
}

/// What a server's catalog holds besides tools (`ServerHandle::holds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogHolds {
    /// Some resource or resource template.
    pub resources: bool,
    /// Some prompt.
    pub prompts: bool,
}

/// Whether the first page of one kind holds anything (an item, a skipped item, or a cursor
/// to more). A listing that fails holds something as far as the caller knows (fail-open);
/// templates a server does not implement (method not found) hold nothing.
async fn first_page_holds<K: ListKind>(handle: &ServerHandle) -> bool {
    let params = PaginatedRequestParams::default();
    let page = match handle.request(K::METHOD, K::request(params)).await {
        Ok(result) => match K::typed(result) {
            Ok(page) => Ok(page),
            Err(other) => raw_page::<K>(handle.name(), *other),
        },
        Err(error) => Err(error),
    };
    match page {
        Ok(page) => {
            !page.items.is_empty()
                || !page.skipped.is_empty()
                || page.next_cursor.is_some_and(|c| !c.is_empty())
        }
        Err(McpError::Rpc {
            code: METHOD_NOT_FOUND,
            ..
        }) if K::KIND == CatalogKind::ResourceTemplate => false,
        Err(error) => {
            tracing::warn!(server = handle.name(), kind = %K::KIND, %error, "listing failed");
            true
        }
    }
}

impl ServerHandle {
    /// What the server holds besides tools, from the first page of each kind it advertises
    /// (resources and templates, prompts; concurrently). A kind it does not advertise holds
    /// nothing; one whose listing fails holds something (fail-open).
    pub async fn holds(&self) -> CatalogHolds {
        let features = self.features();
        let (resources, templates, prompts) = tokio::join!(
            async { features.resources && first_page_holds::<Resources>(self).await },
            async { features.resources && first_page_holds::<Templates>(self).await },
            async { features.prompts && first_page_holds::<Prompts>(self).await },
        );
        CatalogHolds {
            resources: resources || templates,
            prompts,
        }
    }

    /// Every tool, all pages (cursor-guarded, at most `MAX_LIST_PAGES` pages).
    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, McpError> {
        list_all::<Tools>(self).await.map(|(items, _)| items)
    }

    /// Every resource, all pages (cursor-guarded, at most `MAX_LIST_PAGES` pages).
    pub async fn list_resources(&self) -> Result<Vec<ResourceInfo>, McpError> {
        list_all::<Resources>(self).await.map(|(items, _)| items)
    }

    /// Every resource template, all pages (cursor-guarded, at most `MAX_LIST_PAGES` pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplateInfo>, McpError> {
        list_all::<Templates>(self).await.map(|(items, _)| items)
    }

    /// Every prompt, all pages (cursor-guarded, at most `MAX_LIST_PAGES` pages).
    pub async fn list_prompts(&self) -> Result<Vec<PromptInfo>, McpError> {
        list_all::<Prompts>(self).await.map(|(items, _)| items)
    }

    /// Every advertised kind, listed concurrently; failing kinds become warnings. The unified
    /// catalog of one server (tools, resources, templates, prompts, in that order).
    pub async fn catalog(&self) -> Catalog {
        let features = self.features();
        // Fail-open for tools when the handshake result is unavailable.
        let tools = features.tools || features.peer_info_missing;
        let (t, r, rt, p) = tokio::join!(
            collect::<Tools>(self, tools),
            collect::<Resources>(self, features.resources),
            collect::<Templates>(self, features.resources),
            collect::<Prompts>(self, features.prompts),
        );
        let mut catalog = Catalog::default();
        for (items, warnings) in [t, r, rt, p] {
            catalog.items.extend(items);
            catalog.warnings.extend(warnings);
        }
        catalog
    }
}

/// Lists one kind if `advertised`; failures become warnings.
async fn collect<K: ListKind>(
    handle: &ServerHandle,
    advertised: bool,
) -> (Vec<CatalogItem>, Vec<String>) {
    if !advertised {
        return (Vec::new(), Vec::new());
    }
    match list_all::<K>(handle).await {
        Ok((items, skipped)) => (items.into_iter().map(Into::into).collect(), skipped),
        // Many servers advertise resources without implementing templates.
        Err(McpError::Rpc {
            code: METHOD_NOT_FOUND,
            ..
        }) if K::KIND == CatalogKind::ResourceTemplate => (Vec::new(), Vec::new()),
        Err(error) => {
            tracing::warn!(server = handle.name(), kind = %K::KIND, %error, "listing failed");
            (
                Vec::new(),
                vec![format!("could not list {}s: {error}", K::KIND)],
            )
        }
    }
}

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
