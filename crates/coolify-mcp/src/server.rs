//! The MCP server: the rmcp `ServerHandler` that wires tools, prompts, resources and
//! completion to the policies.
//!
//! Top floor of the crate: it delegates `tools/call` to `call` and imports the prompt and
//! resource modules; none of them imports it (only `http` and `main` do).
//!
//! Invariants:
//! - construction does no I/O (backends are lazy); the roster checks run here and fail
//!   closed;
//! - `initialize` negotiates up to 2025-11-25 (the last revision with a handshake); a request
//!   that names 2026-07-28 in its own `_meta` is served statelessly by rmcp, and its guarded
//!   operations confirm through `input_required` — never by auto-approval;
//! - every request under an OAuth grant is served inside `instances::signed_in`, so it reaches
//!   Coolify with the signed-in user's own token only;
//! - `listChanged` is claimed at `initialize` (2025 revisions, as the reference) and never in
//!   2026-07-28 discovery, where no `subscriptions/listen` stream exists to carry it;
//! - cacheable results carry rmcp's caching hints on 2026-07-28 and keep the legacy shape
//!   for older peers;
//! - the tasks extension is declared (rmcp serves `tasks/*` only then) but shown in
//!   `initialize` and `server/discover` only to clients that declared it, so every other
//!   client sees the capabilities it always did.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::audit::Audit;
use crate::request_state::ConfirmationSeal;
use crate::shared::Shared;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CompletionInfo, DiscoverResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetTaskParams, GetTaskResult, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference, Resource,
    ResourceContents, ResourceTemplate, Role, ServerConfig, SubscribeRequestParams, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value};

use crate::backend::BackendFactory;
use crate::call_ctx::Mode;
use crate::config::{
    AccessMode, Config, ElicitationSetting, HumanPolicy, InstanceSpec, StartupError,
};
use crate::instances::{Instance, Instances};
use crate::prompts::{self, PromptCtx, PromptName};
use crate::resources::{self, ReadError};
use crate::tools::ToolSet;

/// Re-exported at its old path (`coolify_mcp::server::Timing`).
pub use crate::call_ctx::Timing;

/// What the server is built from.
#[derive(Clone)]
pub struct ServerOptions {
    /// The configured instances; the first is the default.
    pub instances: Vec<InstanceSpec>,
    /// Which tools are registered.
    pub access: AccessMode,
    /// What happens to a guarded operation when the client cannot be asked.
    pub human: HumanPolicy,
    /// Whether the client may be asked.
    pub elicitation: ElicitationSetting,
    /// Deadlines and intervals of long-running operations.
    pub timing: Timing,
    /// Builds each instance's backend (the real client, or a test double).
    pub factory: BackendFactory,
    /// Audit lines of tool calls (off, stderr, or a test buffer).
    pub audit: Audit,
    /// Seals 2026-07-28 confirmation state; `None` generates a per-process key.
    pub seal: Option<ConfirmationSeal>,
}

impl ServerOptions {
    /// The options `config` asks for, with default timing.
    pub fn from_config(config: &Config, factory: BackendFactory) -> Self {
        Self {
            instances: config.instances.clone(),
            access: config.access,
            human: config.human,
            elicitation: config.elicitation,
            timing: Timing::default(),
            factory,
            audit: if config.audit {
                Audit::stderr()
            } else {
                Audit::off()
            },
            seal: config.request_state_key.as_ref().and_then(|k| {
                let (seal, _) = ConfirmationSeal::from_key(Some(k.as_bytes())).ok()?;
                // Used confirmations on the shared store: single-use across replicas.
                Some(match &config.state_url {
                    Some(url) => match crate::oauth::redis_store::RedisState::open(url) {
                        Ok(redis) => seal.with_nonce_store(std::sync::Arc::new(redis)),
                        Err(_) => seal,
                    },
                    None => seal,
                })
            }),
        }
    }
}

/// The Coolify MCP server (cheap to clone; one per HTTP session shares the state).
#[derive(Clone)]
pub struct CoolifyServer {
    shared: Arc<Shared>,
}

impl CoolifyServer {
    /// Build the server; fails closed when the prompt roster checks fail.
    pub fn new(options: ServerOptions) -> Result<Self, StartupError> {
        if options.instances.is_empty() {
            return Err(StartupError {
                problems: vec!["No Coolify instance configured".into()],
            });
        }
        let seal = match options.seal {
            Some(seal) => seal,
            None => {
                ConfirmationSeal::from_key(None)
                    .map_err(|e| StartupError {
                        problems: vec![e.to_string()],
                    })?
                    .0
            }
        };
        let instances = Instances::new(options.instances, options.factory);
        let mode = Mode::new(&instances, options.access);
        let tools = ToolSet::for_mode(mode);
        prompts::check_roster(&tools, mode, &instances.names())
            .map_err(|problems| StartupError { problems })?;
        let prompts = prompts::registered(&tools);
        let default = mode
            .fleet
            .then(|| instances.default_instance().name().to_string());
        let instructions =
            crate::instructions::build(&tools, options.access, options.human, default.as_deref());
        Ok(Self {
            shared: Arc::new(Shared {
                instances,
                mode,
                tools,
                prompts,
                access: options.access,
                human: options.human,
                elicitation: options.elicitation,
                timing: options.timing,
                instructions,
                audit: options.audit,
                seal,
                tasks: crate::tasks::TaskStore::default(),
                tool_defs: OnceLock::new(),
            }),
        })
    }

    /// The state every session shares.
    pub fn shared(&self) -> &Shared {
        &self.shared
    }

    /// `resources/list` with the per-instance outcomes (tests assert the deadline path).
    pub async fn list_resources_with_outcomes(
        &self,
    ) -> (Vec<Value>, Vec<(String, resources::ListingOutcome)>) {
        resources::list(&self.shared.instances, self.shared.timing.listing_deadline).await
    }
}

/// -32601 with the reference's text (`Method not found`), not rmcp's method name.
fn method_not_found() -> ErrorData {
    ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "Method not found", None)
}

fn invalid_params(message: String) -> ErrorData {
    ErrorData::new(ErrorCode::INVALID_PARAMS, message, None)
}

fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ErrorData> {
    serde_json::from_value(v).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl ServerHandler for CoolifyServer {
    fn get_info(&self) -> ServerConfig {
        let caps = crate::capabilities::declared(self.shared.mode.fleet);
        let mut info = ServerConfig::new(caps);
        info.server_info = rmcp::model::Implementation::new("coolify", crate::MCP_SERVER_VERSION);
        info.instructions = Some(self.shared.instructions.clone());
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    /// `initialize`: rmcp's negotiation; the tasks extension only for a client declaring it.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        if !request.capabilities.supports_tasks() {
            crate::capabilities::without_tasks(&mut result.capabilities);
        }
        Ok(result)
    }

    /// `server/discover` (2026-07-28): the capabilities without `listChanged`, which a
    /// 2026-07-28 client could only receive through `subscriptions/listen` — not served here.
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut info = self.get_info();
        if !context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks())
        {
            crate::capabilities::without_tasks(&mut info.capabilities);
        }
        crate::capabilities::for_discover(&mut info.capabilities);
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            info,
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.shared.tool_definitions().to_vec(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.shared
            .tool_definitions()
            .iter()
            .find(|t| t.name == name)
            .cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let user = crate::call::signed_in_token(&context);
        crate::instances::signed_in(user, crate::call::call_tool(&self.shared, request, context))
            .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let owner = crate::call::task_owner(&context);
        self.shared.tasks.get(&request.task_id, &owner)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = crate::call::task_owner(&context);
        self.shared
            .tasks
            .update(&request.task_id, &owner, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = crate::call::task_owner(&context);
        self.shared.tasks.cancel(&request.task_id, &owner)
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(method_not_found())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(method_not_found())
    }

    #[expect(
        deprecated,
        reason = "logging/setLevel still reaches 2025-era servers; it must answer like the reference"
    )]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(method_not_found())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mode = self.shared.mode;
        let prompts: Vec<Prompt> = self
            .shared
            .prompts
            .iter()
            .map(|p| from_json(p.listing(mode)))
            .collect::<Result<_, _>>()?;
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let shared = &*self.shared;
        let prompt = PromptName::parse(&request.name)
            .filter(|p| shared.prompts.contains(p))
            .ok_or_else(|| invalid_params(format!("Prompt {} not found", request.name)))?;
        let args: Map<String, Value> = request.arguments.unwrap_or_default();
        let argument = match prompt.argument() {
            Some((arg, _)) => match args.get(arg) {
                Some(Value::String(s)) => s.clone(),
                other => {
                    let received = if other.is_none() {
                        "undefined"
                    } else {
                        "non-string"
                    };
                    return Err(invalid_params(format!(
                        "Invalid arguments for prompt {}: {arg}: Invalid input: expected string, received {received}",
                        prompt.as_str()
                    )));
                }
            },
            None => String::new(),
        };
        let fleet = shared.mode.fleet;
        let ctx = if fleet {
            let requested = args.get("instance").and_then(Value::as_str);
            let instance = shared
                .instances
                .resolve(requested)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            PromptCtx {
                tools: &shared.tools,
                instance: Some(instance.name()),
                other_instances: shared
                    .instances
                    .all()
                    .iter()
                    .map(Instance::name)
                    .filter(|n| *n != instance.name())
                    .collect(),
            }
        } else {
            PromptCtx {
                tools: &shared.tools,
                instance: None,
                other_instances: Vec::new(),
            }
        };
        let text = prompts::render(prompt, &argument, &ctx);
        let result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let user = crate::call::signed_in_token(&context);
        let (entries, _) =
            crate::instances::signed_in(user, self.list_resources_with_outcomes()).await;
        let resources: Vec<Resource> = entries
            .into_iter()
            .map(from_json)
            .collect::<Result<_, _>>()?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates: Vec<ResourceTemplate> = resources::templates(self.shared.mode.fleet)
            .into_iter()
            .map(from_json)
            .collect::<Result<_, _>>()?;
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let user = crate::call::signed_in_token(&context);
        let read = resources::read(&self.shared.instances, &uri);
        match crate::instances::signed_in(user, read).await {
            Ok((href, text)) => {
                let contents =
                    ResourceContents::text(text, href).with_mime_type("application/json");
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
            Err(ReadError::NotFound(u)) => Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Resource not found: {u}"),
                Some(serde_json::json!({"uri": u})),
            )),
            Err(ReadError::InvalidUri(u)) => Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Resource URI {u} is invalid"),
                Some(serde_json::json!({"uri": u, "reason": "invalid_uri"})),
            )),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let user = crate::call::signed_in_token(&context);
        crate::instances::signed_in(user, self.complete_for(request)).await
    }
}

impl CoolifyServer {
    /// `completion/complete` (inside the caller's sign-in scope).
    async fn complete_for(
        &self,
        request: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let shared = &*self.shared;
        if !shared.mode.fleet {
            return Err(method_not_found());
        }
        let values = match &request.r#ref {
            Reference::Resource(_) => {
                let instance_arg = request
                    .context
                    .as_ref()
                    .and_then(|c| c.arguments.as_ref())
                    .and_then(|a| a.get("instance"))
                    .map(String::as_str);
                resources::complete(
                    &shared.instances,
                    &request.argument.name,
                    &request.argument.value,
                    instance_arg,
                    shared.timing.listing_deadline,
                )
                .await
            }
            _ => Vec::new(),
        };
        let info = CompletionInfo::with_all_values(values)
            .map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(CompleteResult::new(info))
    }
}
