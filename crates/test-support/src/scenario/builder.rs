//! [`ScenarioBuilder`]: fluent construction of a [`Scenario`] for tests, and writing it to a
//! directory for the binary (which also fixes the event-log path).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ScenarioFile;
use super::{
    Capabilities, CompletionMode, CompletionSpec, CompletionTarget, Generated, PaginationMode,
    PromptSpec, ResourceBody, ResourceSpec, Scenario, ScenarioError, Startup, StartupMode,
    TemplateSpec, ToolBehavior, ToolSpec,
};

/// Fluent construction of a [`Scenario`].
#[derive(Debug, Clone)]
pub struct ScenarioBuilder {
    scenario: Scenario,
}

impl ScenarioBuilder {
    /// Starts from `scenario` (usually `Scenario::default()`, via [`Scenario::builder`]).
    pub fn new(scenario: Scenario) -> Self {
        ScenarioBuilder { scenario }
    }

    /// Sets `serverInfo.name`.
    pub fn server_name(mut self, name: &str) -> Self {
        self.scenario.server_name = name.to_owned();
        self
    }
    /// Sets the `initialize` instructions.
    pub fn instructions(mut self, text: &str) -> Self {
        self.scenario.instructions = Some(text.to_owned());
        self
    }
    /// Forces the protocol version answered to `initialize`.
    pub fn protocol_version(mut self, version: &str) -> Self {
        self.scenario.protocol_version = Some(version.to_owned());
        self
    }

    /// Publishes a skill (and declares the skills extension).
    pub fn skill(mut self, skill: super::SkillSpec) -> Self {
        self.scenario.skills.push(skill);
        self
    }

    /// Also speaks protocol 2026-07-28 (a dual-era server).
    pub fn speaks_2026(mut self) -> Self {
        self.scenario.speaks_2026 = true;
        self
    }

    /// Sets the advertised capabilities.
    pub fn capabilities(mut self, caps: Capabilities) -> Self {
        self.scenario.capabilities = caps;
        self
    }
    /// Lists `size` items per page.
    pub fn page_size(mut self, size: usize) -> Self {
        self.scenario.page_size = Some(size);
        self
    }
    /// Sets how `nextCursor` behaves.
    pub fn pagination(mut self, mode: PaginationMode) -> Self {
        self.scenario.pagination = mode;
        self
    }
    /// Sets the counts of generated items.
    pub fn generated(mut self, generated: Generated) -> Self {
        self.scenario.generated = generated;
        self
    }
    /// `n` generated items of every kind.
    pub fn generated_each(self, n: usize) -> Self {
        self.generated(Generated {
            tools: n,
            resources: n,
            templates: n,
            prompts: n,
        })
    }
    /// Adds a tool with the default schema and no annotations.
    pub fn tool(self, name: &str, behavior: ToolBehavior) -> Self {
        self.tool_spec(ToolSpec {
            name: name.to_owned(),
            title: None,
            description: Some(format!("fake tool {name}")),
            input_schema: None,
            annotations: None,
            output_schema: None,
            behavior,
        })
    }
    /// Adds a tool annotated `destructiveHint: false` (not read-only, not destructive: no
    /// approval under the default policy; a tool without annotations counts as destructive).
    pub fn safe_tool(self, name: &str, behavior: ToolBehavior) -> Self {
        self.tool_spec(ToolSpec {
            name: name.to_owned(),
            title: None,
            description: Some(format!("fake tool {name}")),
            input_schema: None,
            annotations: Some(serde_json::json!({"destructiveHint": false})),
            output_schema: None,
            behavior,
        })
    }
    /// Adds a tool annotated `destructiveHint: true`.
    pub fn destructive_tool(self, name: &str, behavior: ToolBehavior) -> Self {
        self.tool_spec(ToolSpec {
            name: name.to_owned(),
            title: None,
            description: Some(format!("destructive fake tool {name}")),
            input_schema: None,
            annotations: Some(serde_json::json!({"destructiveHint": true, "readOnlyHint": false})),
            output_schema: None,
            behavior,
        })
    }
    /// Adds a tool as given.
    pub fn tool_spec(mut self, spec: ToolSpec) -> Self {
        self.scenario.tools.push(spec);
        self
    }
    /// Adds a resource with a MIME type that fits `body` and a default description.
    pub fn resource(self, uri: &str, name: &str, body: ResourceBody) -> Self {
        let mime_type = match &body {
            ResourceBody::Text { .. } | ResourceBody::BigText { .. } => Some("text/plain"),
            ResourceBody::Png => Some("image/png"),
            ResourceBody::Base64Text { .. } => Some("text/plain"),
            ResourceBody::Blob { .. } | ResourceBody::GeneratedBlob { .. } => {
                Some("application/octet-stream")
            }
            ResourceBody::RawContents { .. } => None,
        };
        self.resource_spec(ResourceSpec {
            uri: uri.to_owned(),
            name: name.to_owned(),
            title: None,
            description: Some(format!("fake resource {name}")),
            mime_type: mime_type.map(str::to_owned),
            annotations: None,
            body,
        })
    }
    /// Adds a resource as given.
    pub fn resource_spec(mut self, spec: ResourceSpec) -> Self {
        self.scenario.resources.push(spec);
        self
    }
    /// Adds a template answering `text` with `{var}` substituted.
    pub fn template(mut self, uri_template: &str, name: &str, text: &str) -> Self {
        self.scenario.templates.push(TemplateSpec {
            uri_template: uri_template.to_owned(),
            name: name.to_owned(),
            title: None,
            description: Some(format!("fake template {name}")),
            mime_type: Some("text/plain".to_owned()),
            text: text.to_owned(),
        });
        self
    }
    /// Adds a prompt.
    pub fn prompt(mut self, spec: PromptSpec) -> Self {
        self.scenario.prompts.push(spec);
        self
    }
    /// Offers `values` when `argument` of `target` is completed.
    pub fn completion(mut self, target: CompletionTarget, argument: &str, values: &[&str]) -> Self {
        self.scenario.completions.push(CompletionSpec {
            target,
            argument: argument.to_owned(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
        });
        self
    }
    /// Advertises `resources.subscribe` and sends updates after each subscribe.
    pub fn resource_updates(mut self, spec: crate::scenario::ResourceUpdatesSpec) -> Self {
        self.scenario.resource_updates = Some(spec);
        self
    }

    /// Sets whether `completion/complete` answers.
    pub fn completion_mode(mut self, mode: CompletionMode) -> Self {
        self.scenario.completion_mode = mode;
        self
    }
    /// Sets the start-up behaviour.
    pub fn startup(mut self, startup: Startup) -> Self {
        self.scenario.startup = startup;
        self
    }
    /// Sets only the start-up mode (normal, hang, crash).
    pub fn startup_mode(mut self, mode: StartupMode) -> Self {
        self.scenario.startup.mode = mode;
        self
    }
    /// Appends events to `path` instead of the default log.
    pub fn event_log(mut self, path: &Path) -> Self {
        self.scenario.event_log = Some(path.to_owned());
        self
    }
    /// The scenario as built.
    pub fn build(self) -> Scenario {
        self.scenario
    }

    /// Writes `<dir>/<server_name>-<n>.scenario.json`; unless an event log was set, events go
    /// to `<dir>/<server_name>-<n>.events.jsonl`.
    pub fn write_to(self, dir: &Path) -> Result<ScenarioFile, ScenarioError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let stem = format!("{}-{}-{n}", self.scenario.server_name, std::process::id());
        let mut scenario = self.scenario;
        let log = scenario
            .event_log
            .clone()
            .unwrap_or_else(|| dir.join(format!("{stem}.events.jsonl")));
        scenario.event_log = Some(log.clone());
        let path = dir.join(format!("{stem}.scenario.json"));
        let text = serde_json::to_string_pretty(&scenario).map_err(|e| ScenarioError::Write {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        std::fs::write(&path, text).map_err(|source| ScenarioError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(ScenarioFile {
            path,
            event_log: log,
            scenario,
        })
    }
}
