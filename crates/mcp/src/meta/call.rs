//! A meta-function's JSON arguments parsed into one typed [`Call`] before any request reaches a
//! server, with errors that tell the model exactly which parameter to fix. Unknown parameters
//! are errors; `null` counts as absent; numbers and objects sent as strings are accepted where
//! models are known to send them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::actions::{CompleteArgs, DescribeRequest, PromptRequest, ReadRequest, SearchRequest};
use super::error::DispatchError;
use super::{MetaFunction, MetaKind};
use crate::catalog::CatalogKind;
use crate::render::ReadOptions;
use crate::search::clamp_top_k;

/// A fully parsed call.
#[derive(Debug)]
pub(super) enum Call {
    Search(SearchRequest),
    Describe(DescribeRequest),
    Invoke {
        tool: String,
        arguments: Map<String, Value>,
    },
    Read(ReadRequest),
    Prompt(PromptRequest),
    /// `mcp_describe_` with `kind: "task"`: a tool call still running as an MCP task.
    Task(String),
}

pub(super) fn parse_call(function: &MetaFunction, mut args: Args) -> Result<Call, DispatchError> {
    let call = match function.kind {
        MetaKind::Search => Call::Search(SearchRequest {
            query: args.string("query")?.unwrap_or_default(),
            top_k: clamp_top_k(args.unsigned("top_k")?),
            kind: args.kind()?,
            offset: args
                .unsigned("offset")?
                .map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX)),
        }),
        MetaKind::Describe => describe_call(&mut args)?,
        MetaKind::Invoke => Call::Invoke {
            tool: args.required_string("tool", "the tool name")?,
            arguments: args.object("arguments")?,
        },
        MetaKind::Read => {
            let uri = args.required_string("uri", "a resource URI or template")?;
            let arguments = args.string_map("arguments")?;
            let mut options = ReadOptions::default();
            if let Some(pattern) = args.string("pattern")? {
                options = options.with_pattern(&pattern)?;
            }
            if let Some(offset) = args.unsigned("offset")? {
                options = options.with_offset(offset);
            }
            if let Some(max_bytes) = args.unsigned("max_bytes")? {
                options = options.with_max_bytes(max_bytes);
            }
            Call::Read(ReadRequest {
                uri,
                arguments,
                options,
            })
        }
        MetaKind::Prompt => Call::Prompt(PromptRequest {
            name: args.required_string("prompt", "the prompt name")?,
            arguments: args.string_map("arguments")?,
        }),
    };
    args.reject_unknown()?;
    Ok(call)
}

/// `mcp_describe_`: `tool` (or `name`) and `kind`, and `complete` for argument values.
fn describe_call(args: &mut Args) -> Result<Call, DispatchError> {
    let what = "the item's id (tool name, resource URI, uriTemplate or prompt name)";
    let id = match (args.string("tool")?, args.string("name")?) {
        (Some(_), Some(_)) => {
            return Err(args.bad("give `tool` or `name`, not both".to_owned()));
        }
        (Some(id), None) | (None, Some(id)) if !id.is_empty() => id,
        _ => return Err(args.bad(format!("`tool` (or `name`) is required: {what}"))),
    };
    if args.map.get("kind").and_then(Value::as_str) == Some("task") {
        args.take("kind");
        return Ok(Call::Task(id));
    }
    let kind = args.kind()?.unwrap_or(CatalogKind::Tool);
    let complete = match args.take("complete") {
        None => None,
        Some(value) => Some(complete_args(args, kind, value)?),
    };
    Ok(Call::Describe(DescribeRequest { id, kind, complete }))
}

/// `complete`: `{"argument": …, "value": …, "context": {…}}`, for prompts and templates.
fn complete_args(
    args: &Args,
    kind: CatalogKind,
    value: Value,
) -> Result<CompleteArgs, DispatchError> {
    if !matches!(kind, CatalogKind::Prompt | CatalogKind::ResourceTemplate) {
        return Err(args.bad(format!(
            "`complete` needs `kind` prompt or resource_template, not {}",
            kind.as_str()
        )));
    }
    let Value::Object(map) = value else {
        return Err(args.bad(format!(
            "`complete` must be an object {{\"argument\", \"value\", \"context\"}}, got {}",
            json_type(&value)
        )));
    };
    let mut inner = Args {
        function: args.function.clone(),
        map,
    };
    let argument = inner.required_string(
        "argument",
        "`complete.argument`: the prompt argument or template variable to complete",
    )?;
    let value = inner.string("value")?.unwrap_or_default();
    let context = inner.string_map("context")?;
    if !inner.map.is_empty() {
        let names: Vec<String> = inner
            .map
            .keys()
            .map(|k| format!("`complete.{k}`"))
            .collect();
        return Err(args.bad(format!(
            "unknown parameter(s) {}; `complete` takes argument, value and context",
            names.join(", ")
        )));
    }
    Ok(CompleteArgs {
        argument,
        value,
        context,
    })
}

/// The argument object with typed accessors whose errors name the parameter.
pub(super) struct Args {
    function: String,
    map: Map<String, Value>,
}

impl Args {
    pub(super) fn new(function: &MetaFunction, args: Value) -> Result<Self, DispatchError> {
        let function = function.name();
        let map = match args {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(DispatchError::BadArguments {
                    function,
                    problem: format!("arguments must be a JSON object, got {}", json_type(&other)),
                });
            }
        };
        Ok(Args { function, map })
    }

    fn bad(&self, problem: String) -> DispatchError {
        DispatchError::BadArguments {
            function: self.function.clone(),
            problem,
        }
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, DispatchError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.bad(format!(
                "`{key}` must be a string, got {}",
                json_type(&other)
            ))),
        }
    }

    /// `kind`: one of the four catalog kinds.
    fn kind(&mut self) -> Result<Option<CatalogKind>, DispatchError> {
        match self.string("kind")? {
            None => Ok(None),
            Some(k) => CatalogKind::parse(&k).map(Some).ok_or_else(|| {
                self.bad(format!(
                    "`kind` is {k:?}; use one of tool, resource, resource_template, prompt"
                ))
            }),
        }
    }

    fn required_string(&mut self, key: &str, what: &str) -> Result<String, DispatchError> {
        match self.string(key)? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(self.bad(format!("`{key}` is required: {what}"))),
        }
    }

    fn unsigned(&mut self, key: &str) -> Result<Option<u64>, DispatchError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
            // Models sometimes send 100.0 or "100".
            Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0) => {
                Ok(n.as_f64().map(|f| f as u64))
            }
            Some(Value::String(s)) if s.trim().parse::<u64>().is_ok() => Ok(s.trim().parse().ok()),
            Some(other) => Err(self.bad(format!(
                "`{key}` must be a non-negative integer, got {other}"
            ))),
        }
    }

    fn object(&mut self, key: &str) -> Result<Map<String, Value>, DispatchError> {
        match self.take(key) {
            None => Ok(Map::new()),
            Some(Value::Object(map)) => Ok(map),
            // Some models send the arguments object as a JSON string.
            Some(Value::String(s)) if s.trim_start().starts_with('{') => {
                match serde_json::from_str(&s) {
                    Ok(Value::Object(map)) => Ok(map),
                    _ => Err(self.bad(format!(
                        "`{key}` must be a JSON object; the string given is not one"
                    ))),
                }
            }
            Some(other) => Err(self.bad(format!(
                "`{key}` must be an object, got {}",
                json_type(&other)
            ))),
        }
    }

    /// An object of string values; numbers and booleans are accepted as their text.
    fn string_map(&mut self, key: &str) -> Result<BTreeMap<String, String>, DispatchError> {
        let object = self.object(key)?;
        let mut out = BTreeMap::new();
        for (name, value) in object {
            let text = match value {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => continue,
                other => {
                    return Err(self.bad(format!(
                        "`{key}.{name}` must be a string (values are strings only), got {}",
                        json_type(&other)
                    )));
                }
            };
            out.insert(name, text);
        }
        Ok(out)
    }

    fn reject_unknown(&self) -> Result<(), DispatchError> {
        if self.map.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = self.map.keys().map(|k| format!("`{k}`")).collect();
        Err(self.bad(format!(
            "unknown parameter(s) {}; see the function's declared parameters",
            names.join(", ")
        )))
    }
}

pub(super) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
