//! The fake server's rmcp `ServerHandler`: capabilities, paged lists, resources, prompts,
//! completion, and the request log. Tool behaviours live in `crate::tools`.
//!
//! rmcp's typed results are built from wire JSON (`serde_json::from_value`) because most
//! rmcp model types are `#[non_exhaustive]`; the scenario already holds wire-shaped items.
//! Every request is logged before it is answered, so a hanging answer is still observable.

use std::borrow::Cow;
use std::sync::Arc;

#[expect(deprecated)]
// SetLevelRequestParams: logging is deprecated (SEP-2577) but still served.
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelledNotificationParam, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, Reference, ServerConfig,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::catalog::{self, Catalog};
use crate::events::{Event, EventSink, ListKind};
use crate::scenario::{CompletionMode, CompletionTarget, Scenario, StartupMode};
use crate::transport::RawOut;

/// What a `crash` tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrashMode {
    /// The binary: write stderr, `exit(code)`.
    ExitProcess,
    /// In-process: close the transport (the client sees end of stream).
    CloseTransport,
}

/// State shared by every session of one fake server.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) scenario: Scenario,
    pub(crate) catalog: Catalog,
    pub(crate) events: Arc<EventSink>,
    pub(crate) crash: CrashMode,
    /// Woken by `notifications/roots/list_changed`.
    pub(crate) roots_changed: tokio::sync::Notify,
}

impl Shared {
    pub(crate) fn new(scenario: Scenario, events: Arc<EventSink>, crash: CrashMode) -> Arc<Shared> {
        let catalog = Catalog::build(&scenario);
        Arc::new(Shared {
            scenario,
            catalog,
            events,
            crash,
            roots_changed: tokio::sync::Notify::new(),
        })
    }
}

/// Logs `Disconnect` when an HTTP session's handler is dropped (stdio logs end of input in
/// the transport instead).
#[derive(Debug)]
pub(crate) struct SessionGuard(pub(crate) Arc<EventSink>);

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.0.record(Event::Disconnect);
    }
}

/// One session's handler.
#[derive(Debug)]
pub struct FakeServer {
    pub(crate) shared: Arc<Shared>,
    /// Raw writes are possible on line transports only (stdio, in-process duplex).
    pub(crate) raw: Option<RawOut>,
    pub(crate) _session: Option<SessionGuard>,
}

pub(crate) fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| {
        ErrorData::internal_error(format!("fake server built an invalid result: {e}"), None)
    })
}

impl FakeServer {
    pub(crate) fn record(&self, event: Event) {
        self.shared.events.record(event);
    }

    fn list<T: DeserializeOwned>(
        &self,
        kind: ListKind,
        field: &str,
        request: Option<PaginatedRequestParams>,
    ) -> Result<T, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        self.record(Event::List {
            kind,
            cursor: cursor.clone(),
        });
        let caps = self.shared.scenario.capabilities;
        let advertised = match kind {
            ListKind::Tools => caps.tools,
            ListKind::Resources | ListKind::ResourceTemplates => caps.resources,
            ListKind::Prompts => caps.prompts,
            ListKind::Skills => !self.shared.scenario.skills.is_empty(),
        };
        if !advertised {
            return Err(not_advertised(field));
        }
        let items = match kind {
            ListKind::Tools => &self.shared.catalog.tools,
            ListKind::Resources => &self.shared.catalog.resources,
            ListKind::ResourceTemplates => &self.shared.catalog.templates,
            ListKind::Prompts => &self.shared.catalog.prompts,
            ListKind::Skills => &self.shared.catalog.skills,
        };
        let scenario = &self.shared.scenario;
        let (page, next) = catalog::page(
            items,
            cursor.as_deref(),
            scenario.page_size,
            scenario.pagination,
        )
        .map_err(|m| ErrorData::invalid_params(m, None))?;
        let mut result = json!({ field: page });
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        from_json(result)
    }
}

/// -32601 for a request whose capability the scenario does not advertise.
pub(crate) fn not_advertised(what: &str) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        format!("this fake server does not advertise {what}"),
        None,
    )
}

pub(crate) fn raw_unavailable() -> ErrorData {
    ErrorData::internal_error(
        "raw responses need a line transport (stdio or in-process); not over HTTP",
        None,
    )
}

pub(crate) fn io_error(e: std::io::Error) -> ErrorData {
    ErrorData::internal_error(format!("fake server write failed: {e}"), None)
}

impl ServerHandler for FakeServer {
    fn get_info(&self) -> ServerConfig {
        let scenario = &self.shared.scenario;
        let caps = scenario.capabilities;
        let mut capabilities = serde_json::Map::new();
        if caps.tools {
            capabilities.insert("tools".into(), json!({"listChanged": false}));
        }
        if caps.resources {
            capabilities.insert(
                "resources".into(),
                json!({"subscribe": scenario.resource_updates.is_some(), "listChanged": false}),
            );
        }
        if caps.prompts {
            capabilities.insert("prompts".into(), json!({"listChanged": false}));
        }
        if caps.completions {
            capabilities.insert("completions".into(), json!({}));
        }
        if caps.logging {
            capabilities.insert("logging".into(), json!({}));
        }
        if !scenario.skills.is_empty() {
            capabilities.insert(
                "extensions".into(),
                json!({ "io.modelcontextprotocol/skills": {} }),
            );
        }
        let version = scenario.protocol_version.as_deref().unwrap_or("2025-11-25");
        let mut info = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": scenario.server_name, "version": scenario.server_version},
        });
        if let Some(instructions) = &scenario.instructions {
            info["instructions"] = json!(instructions);
        }
        // The scenario only holds plain strings and booleans, so this cannot fail.
        serde_json::from_value(info).unwrap_or_else(|_| ServerConfig::new(Default::default()))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        let forced = self.shared.scenario.protocol_version.as_ref();
        match forced.and_then(|v| serde_json::from_value::<ProtocolVersion>(json!(v)).ok()) {
            // Only the forced version is "supported", so negotiation falls back to it.
            Some(version) => Cow::Owned(vec![version]),
            None if self.shared.scenario.speaks_2026 => {
                Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
            }
            None => Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25)),
        }
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
        self.record(Event::Discover);
        Ok(rmcp::model::DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.record(Event::Initialize {
            protocol_version: serde_json::to_value(&request.protocol_version)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            client_name: request.client_info.name.clone(),
            elicitation: request.capabilities.elicitation.is_some(),
            capabilities: serde_json::to_value(&request.capabilities).unwrap_or(Value::Null),
        });
        if self.shared.scenario.startup.mode == StartupMode::HangAtInitialize {
            std::future::pending::<()>().await;
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        self.record(Event::Initialized);
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.record(Event::RootsListChanged);
        self.shared.roots_changed.notify_waiters();
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        let request_id = notification
            .request_id
            .map(|id| serde_json::to_value(id).unwrap_or(Value::Null));
        self.shared.events.record_cancelled(
            request_id.unwrap_or(Value::Null),
            notification.reason,
            false,
        );
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.list(ListKind::Tools, "tools", request)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.list(ListKind::Resources, "resources", request)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.list(ListKind::ResourceTemplates, "resourceTemplates", request)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.list(ListKind::Prompts, "prompts", request)
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.list(ListKind::Skills, "skills", request)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        crate::tools::call(self, request, context)
            .await
            .map(Into::into)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.record(Event::ReadResource {
            uri: request.uri.clone(),
        });
        if !self.shared.scenario.capabilities.resources {
            return Err(not_advertised("resources"));
        }
        self.read(&request.uri, &context).await.map(Into::into)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if !self.shared.scenario.capabilities.prompts {
            self.record(Event::GetPrompt {
                name: request.name.clone(),
                arguments: Default::default(),
            });
            return Err(not_advertised("prompts"));
        }
        self.prompt(request).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let argument = request.argument.name.clone();
        let value = request.argument.value.clone();
        self.record(Event::Complete {
            argument: argument.clone(),
            value: value.clone(),
        });
        if !self.shared.scenario.capabilities.completions {
            return Err(not_advertised("completions"));
        }
        if self.shared.scenario.completion_mode == CompletionMode::NeverAnswer {
            context.ct.cancelled().await;
            return Err(ErrorData::internal_error("completion cancelled", None));
        }
        let target = match &request.r#ref {
            Reference::Prompt(p) => Some(CompletionTarget::Prompt {
                name: p.name.clone(),
            }),
            Reference::Resource(r) => {
                Some(CompletionTarget::ResourceTemplate { uri: r.uri.clone() })
            }
            _ => None,
        };
        let values: Vec<String> = self
            .shared
            .scenario
            .completions
            .iter()
            .filter(|c| Some(&c.target) == target.as_ref() && c.argument == argument)
            .flat_map(|c| c.values.iter())
            .filter(|v| v.starts_with(&value))
            .take(100)
            .cloned()
            .collect();
        let total = values.len();
        from_json(json!({"completion": {"values": values, "total": total, "hasMore": false}}))
    }

    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record(Event::Subscribe {
            uri: request.uri.clone(),
        });
        let Some(spec) = self.shared.scenario.resource_updates else {
            return Err(not_advertised("resources.subscribe"));
        };
        let peer = context.peer.clone();
        let crash = self.shared.crash;
        tokio::spawn(async move {
            for _ in 0..spec.count {
                tokio::time::sleep(std::time::Duration::from_millis(spec.every_ms)).await;
                let param = rmcp::model::ResourceUpdatedNotificationParam::new(request.uri.clone());
                if peer.notify_resource_updated(param).await.is_err() {
                    return;
                }
            }
            if spec.exit_after && crash == CrashMode::ExitProcess {
                std::process::exit(3);
            }
        });
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record(Event::Unsubscribe { uri: request.uri });
        Ok(())
    }

    #[expect(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = serde_json::to_value(request.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        self.record(Event::SetLevel { level });
        if self.shared.scenario.capabilities.logging {
            Ok(())
        } else {
            Err(not_advertised("logging"))
        }
    }
}
