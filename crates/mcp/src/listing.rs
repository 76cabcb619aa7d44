//! Paged listing of tools, resources, resource templates and prompts, and the unified catalog
//! built from them (seed D1, §4.2).
//!
//! Invariants:
//! - Our own cursor loop, never rmcp's `list_all_*` (no guard there): a cursor seen twice is
//!   [`McpError::RepeatedCursor`], more than [`MAX_LIST_PAGES`] pages is
//!   [`McpError::TooManyPages`]; every page request has the call timeout. Never a hang.
//! - One request per page: a page of N items costs exactly one `*/list` request.
//! - A page rmcp cannot type (one malformed item) is read item by item; bad items are skipped
//!   with a warning and the rest are kept (R1).
//! - `catalog()` lists a kind only when the server advertises it, lists kinds concurrently,
//!   and a failing kind becomes a warning while the others are still returned.

use std::collections::HashSet;

use rmcp::model::{
    ClientRequest, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
    ListToolsRequest, PaginatedRequestParams, Prompt, Resource, ResourceTemplate, ServerResult,
    Tool,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog_item::{CatalogItem, CatalogKind};
use crate::convert;
use crate::error::McpError;
use crate::handle::ServerHandle;

/// Most pages one listing may take before it is treated as a broken server.
pub const MAX_LIST_PAGES: usize = 1000;

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i32 = -32601;

/// A tool as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A resource as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceInfo {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A resource template as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateInfo {
    pub uri_template: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A prompt as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub arguments: Vec<PromptArgumentInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgumentInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
}

/// A server's unified catalog; `warnings` name the kinds (or items) that could not be listed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub items: Vec<CatalogItem>,
    pub warnings: Vec<String>,
}

/// One page of a listing.
struct Page<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
    skipped: Vec<String>,
}

/// A listable kind: how to ask for a page and read the answer.
trait ListKind {
    type Item;
    const KIND: CatalogKind;
    const METHOD: &'static str;
    /// Key of the items array in the raw result.
    const FIELD: &'static str;
    type Raw: DeserializeOwned;
    fn request(params: PaginatedRequestParams) -> ClientRequest;
    /// The typed page, or the result back when rmcp classified it as something else.
    fn typed(result: ServerResult) -> Result<Page<Self::Item>, Box<ServerResult>>;
    fn convert(raw: Self::Raw) -> Self::Item;
}

fn typed_page<R, T>(items: Vec<R>, next_cursor: Option<String>, f: fn(R) -> T) -> Page<T> {
    Page {
        items: items.into_iter().map(f).collect(),
        next_cursor,
        skipped: Vec::new(),
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
            ServerResult::ListToolsResult(r) => {
                Ok(typed_page(r.tools, r.next_cursor, convert::tool_info))
            }
            other => Err(Box::new(other)),
        }
    }
    fn convert(raw: Tool) -> ToolInfo {
        convert::tool_info(raw)
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
                r.next_cursor,
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
                r.next_cursor,
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
            ServerResult::ListPromptsResult(r) => {
                Ok(typed_page(r.prompts, r.next_cursor, convert::prompt_info))
            }
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
    let mut page = Page {
        items: Vec::with_capacity(values.len()),
        next_cursor,
        skipped: Vec::new(),
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
        items.extend(page.items);
        for warning in page.skipped {
            tracing::warn!(server, "{warning}");
            skipped.push(warning);
        }
        match page.next_cursor {
            // An empty cursor is how some servers say "no more pages".
            None => return Ok((items, skipped)),
            Some(next) if next.is_empty() => return Ok((items, skipped)),
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

pub(crate) async fn list_tools(handle: &ServerHandle) -> Result<Vec<ToolInfo>, McpError> {
    list_all::<Tools>(handle).await.map(|(items, _)| items)
}

pub(crate) async fn list_resources(handle: &ServerHandle) -> Result<Vec<ResourceInfo>, McpError> {
    list_all::<Resources>(handle).await.map(|(items, _)| items)
}

pub(crate) async fn list_resource_templates(
    handle: &ServerHandle,
) -> Result<Vec<ResourceTemplateInfo>, McpError> {
    list_all::<Templates>(handle).await.map(|(items, _)| items)
}

pub(crate) async fn list_prompts(handle: &ServerHandle) -> Result<Vec<PromptInfo>, McpError> {
    list_all::<Prompts>(handle).await.map(|(items, _)| items)
}

fn tool_item(t: ToolInfo) -> CatalogItem {
    let title = t.title.or_else(|| {
        t.annotations
            .as_ref()?
            .get("title")?
            .as_str()
            .map(str::to_owned)
    });
    CatalogItem {
        kind: CatalogKind::Tool,
        id: t.name.clone(),
        name: t.name,
        title,
        description: t.description,
        uri: None,
        mime_type: None,
        size: None,
        annotations: t.annotations,
    }
}

fn resource_item(r: ResourceInfo) -> CatalogItem {
    CatalogItem {
        kind: CatalogKind::Resource,
        id: r.uri.clone(),
        name: r.name,
        title: r.title,
        description: r.description,
        uri: Some(r.uri),
        mime_type: r.mime_type,
        size: r.size,
        annotations: r.annotations,
    }
}

fn template_item(t: ResourceTemplateInfo) -> CatalogItem {
    CatalogItem {
        kind: CatalogKind::ResourceTemplate,
        id: t.uri_template.clone(),
        name: t.name,
        title: t.title,
        description: t.description,
        uri: Some(t.uri_template),
        mime_type: t.mime_type,
        size: None,
        annotations: t.annotations,
    }
}

fn prompt_item(p: PromptInfo) -> CatalogItem {
    CatalogItem {
        kind: CatalogKind::Prompt,
        id: p.name.clone(),
        name: p.name,
        title: p.title,
        description: p.description,
        uri: None,
        mime_type: None,
        size: None,
        annotations: None,
    }
}

/// Lists one kind if `advertised`; failures become warnings.
async fn collect<K: ListKind>(
    handle: &ServerHandle,
    advertised: bool,
    to_item: fn(K::Item) -> CatalogItem,
) -> (Vec<CatalogItem>, Vec<String>) {
    if !advertised {
        return (Vec::new(), Vec::new());
    }
    match list_all::<K>(handle).await {
        Ok((items, skipped)) => (items.into_iter().map(to_item).collect(), skipped),
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

/// The unified catalog of one server (tools, resources, templates, prompts, in that order).
pub(crate) async fn catalog(handle: &ServerHandle) -> Catalog {
    let features = handle.features();
    // Fail-open for tools when the handshake result is unavailable (D7).
    let tools = features.tools || features.peer_info_missing;
    let (t, r, rt, p) = tokio::join!(
        collect::<Tools>(handle, tools, tool_item),
        collect::<Resources>(handle, features.resources, resource_item),
        collect::<Templates>(handle, features.resources, template_item),
        collect::<Prompts>(handle, features.prompts, prompt_item),
    );
    let mut catalog = Catalog::default();
    for (items, warnings) in [t, r, rt, p] {
        catalog.items.extend(items);
        catalog.warnings.extend(warnings);
    }
    catalog
}

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
