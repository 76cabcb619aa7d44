//! The fake server's item lists in wire form (JSON objects exactly as listed), built once
//! from a scenario: generated items first, then explicit ones. Also the cursor arithmetic
//! and the Level-1 template matcher used by `resources/read`.
//!
//! Invariant: list order is stable, so page N of a list is the same on every request.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::scenario::{PaginationMode, PromptSpec, Scenario, TemplateSpec, ToolBehavior, ToolSpec};

/// The cursor answered by every page in `PaginationMode::RepeatedCursor`.
pub const REPEATED_CURSOR: &str = "repeat";

#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) tools: Vec<Value>,
    pub(crate) resources: Vec<Value>,
    pub(crate) templates: Vec<Value>,
    pub(crate) prompts: Vec<Value>,
    /// `skills/list` entries.
    pub(crate) skills: Vec<Value>,
    /// Tool name → spec (generated tools are echo tools).
    pub(crate) tool_specs: BTreeMap<String, ToolSpec>,
    pub(crate) prompt_specs: BTreeMap<String, PromptSpec>,
    pub(crate) template_specs: Vec<TemplateSpec>,
}

fn default_input_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string", "description": "text to echo"}}})
}

fn insert_opt(obj: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        obj.insert(key.to_owned(), value);
    }
}

impl Catalog {
    pub(crate) fn build(scenario: &Scenario) -> Catalog {
        let gen_count = scenario.generated;
        let mut tool_specs: Vec<ToolSpec> = (0..gen_count.tools)
            .map(|i| ToolSpec {
                name: format!("gen_tool_{i:04}"),
                title: Some(format!("Generated tool {i}")),
                description: Some(format!("generated echo tool number {i}")),
                input_schema: None,
                annotations: None,
                output_schema: None,
                behavior: ToolBehavior::Echo,
            })
            .collect();
        tool_specs.extend(scenario.tools.iter().cloned());

        let mut template_specs: Vec<TemplateSpec> = (0..gen_count.templates)
            .map(|i| TemplateSpec {
                uri_template: format!("fake://gen/{i}/{{id}}"),
                name: format!("gen_template_{i:04}"),
                title: None,
                description: Some(format!("generated template number {i}")),
                mime_type: Some("text/plain".into()),
                text: format!("generated template {i} item {{id}}"),
            })
            .collect();
        template_specs.extend(scenario.templates.iter().cloned());

        let mut prompt_list: Vec<PromptSpec> = (0..gen_count.prompts)
            .map(|i| PromptSpec {
                name: format!("gen_prompt_{i:04}"),
                title: None,
                description: Some(format!("generated prompt number {i}")),
                arguments: Vec::new(),
                messages: Vec::new(),
            })
            .collect();
        prompt_list.extend(scenario.prompts.iter().cloned());

        Catalog {
            tools: tool_specs.iter().map(tool_wire).collect(),
            resources: resources_wire(scenario),
            templates: template_specs.iter().map(template_wire).collect(),
            prompts: prompt_list.iter().map(prompt_wire).collect(),
            skills: scenario.skills.iter().map(|s| s.entry()).collect(),
            tool_specs: tool_specs
                .into_iter()
                .map(|t| (t.name.clone(), t))
                .collect(),
            prompt_specs: prompt_list
                .into_iter()
                .map(|p| (p.name.clone(), p))
                .collect(),
            template_specs,
        }
    }
}

/// A tool as `tools/list` shows it.
fn tool_wire(t: &ToolSpec) -> Value {
    let mut obj = Map::new();
    obj.insert("name".into(), json!(t.name));
    insert_opt(&mut obj, "title", t.title.clone().map(Value::String));
    insert_opt(
        &mut obj,
        "description",
        t.description.clone().map(Value::String),
    );
    obj.insert(
        "inputSchema".into(),
        t.input_schema.clone().unwrap_or_else(default_input_schema),
    );
    insert_opt(&mut obj, "annotations", t.annotations.clone());
    insert_opt(&mut obj, "outputSchema", t.output_schema.clone());
    Value::Object(obj)
}

/// Every resource as `resources/list` shows it: the generated ones, then the scenario's.
fn resources_wire(scenario: &Scenario) -> Vec<Value> {
    let mut resources: Vec<Value> = (0..scenario.generated.resources)
        .map(|i| {
            json!({
                "uri": format!("fake://gen/{i:04}"),
                "name": format!("gen_resource_{i:04}"),
                "description": format!("generated resource number {i}"),
                "mimeType": "text/plain"
            })
        })
        .collect();
    for r in &scenario.resources {
        let mut obj = Map::new();
        obj.insert("uri".into(), json!(r.uri));
        obj.insert("name".into(), json!(r.name));
        insert_opt(&mut obj, "title", r.title.clone().map(Value::String));
        insert_opt(
            &mut obj,
            "description",
            r.description.clone().map(Value::String),
        );
        insert_opt(&mut obj, "mimeType", r.mime_type.clone().map(Value::String));
        insert_opt(&mut obj, "annotations", r.annotations.clone());
        if let crate::scenario::ResourceBody::GeneratedBlob { bytes } = r.body {
            obj.insert("size".into(), json!(bytes));
        }
        resources.push(Value::Object(obj));
    }
    resources
}

/// A resource template as `resources/templates/list` shows it.
fn template_wire(t: &TemplateSpec) -> Value {
    let mut obj = Map::new();
    obj.insert("uriTemplate".into(), json!(t.uri_template));
    obj.insert("name".into(), json!(t.name));
    insert_opt(&mut obj, "title", t.title.clone().map(Value::String));
    insert_opt(
        &mut obj,
        "description",
        t.description.clone().map(Value::String),
    );
    insert_opt(&mut obj, "mimeType", t.mime_type.clone().map(Value::String));
    Value::Object(obj)
}

/// A prompt as `prompts/list` shows it, with its arguments.
fn prompt_wire(p: &PromptSpec) -> Value {
    let mut obj = Map::new();
    obj.insert("name".into(), json!(p.name));
    insert_opt(&mut obj, "title", p.title.clone().map(Value::String));
    insert_opt(
        &mut obj,
        "description",
        p.description.clone().map(Value::String),
    );
    let args: Vec<Value> = p
        .arguments
        .iter()
        .map(|a| {
            let mut arg = Map::new();
            arg.insert("name".into(), json!(a.name));
            insert_opt(
                &mut arg,
                "description",
                a.description.clone().map(Value::String),
            );
            arg.insert("required".into(), json!(a.required));
            Value::Object(arg)
        })
        .collect();
    obj.insert("arguments".into(), Value::Array(args));
    Value::Object(obj)
}

/// One page of `items` for `cursor`: (items, nextCursor). `Err` carries a message for an
/// invalid cursor.
pub(crate) fn page(
    items: &[Value],
    cursor: Option<&str>,
    page_size: Option<usize>,
    mode: PaginationMode,
) -> Result<(Vec<Value>, Option<String>), String> {
    let size = page_size.filter(|s| *s > 0).unwrap_or(usize::MAX);
    if mode == PaginationMode::RepeatedCursor {
        let first: Vec<Value> = items.iter().take(size).cloned().collect();
        return Ok((first, Some(REPEATED_CURSOR.to_owned())));
    }
    let start = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| format!("invalid cursor {c:?}: use a nextCursor this server returned"))?,
    };
    if start > items.len() {
        return Err(format!(
            "cursor {start} is past the end ({} items)",
            items.len()
        ));
    }
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), next))
}

/// Matches `uri` against a Level-1 template (`fake://item/{id}`); returns the variables.
/// A variable matches up to the next literal (or the end); literals must match exactly.
pub(crate) fn match_template(template: &str, uri: &str) -> Option<BTreeMap<String, String>> {
    let mut vars = BTreeMap::new();
    let mut rest_t = template;
    let mut rest_u = uri;
    while !rest_t.is_empty() {
        if let Some(after_brace) = rest_t.strip_prefix('{') {
            let close = after_brace.find('}')?;
            let name = &after_brace[..close];
            rest_t = &after_brace[close + 1..];
            let literal_end = rest_t.find('{').unwrap_or(rest_t.len());
            let next_literal = &rest_t[..literal_end];
            let value_end = if next_literal.is_empty() {
                rest_u.len()
            } else {
                rest_u.find(next_literal)?
            };
            let value = &rest_u[..value_end];
            if value.is_empty() {
                return None;
            }
            vars.insert(name.to_owned(), value.to_owned());
            rest_u = &rest_u[value_end..];
        } else {
            let literal_end = rest_t.find('{').unwrap_or(rest_t.len());
            rest_u = rest_u.strip_prefix(&rest_t[..literal_end])?;
            rest_t = &rest_t[literal_end..];
        }
    }
    rest_u.is_empty().then_some(vars)
}

/// Replaces `{name}` by each value.
pub(crate) fn substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = text.to_owned();
    for (name, value) in vars {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_walk_to_the_end() {
        let items: Vec<Value> = (0..5).map(|i| json!(i)).collect();
        let mode = PaginationMode::Normal;
        assert_eq!(
            page(&items, None, Some(2), mode),
            Ok((vec![json!(0), json!(1)], Some("2".into())))
        );
        assert_eq!(
            page(&items, Some("4"), Some(2), mode),
            Ok((vec![json!(4)], None))
        );
        assert_eq!(page(&items, None, None, mode), Ok((items.clone(), None)));
        assert!(page(&items, Some("x"), Some(2), mode).is_err());
        let repeated = page(
            &items,
            Some(REPEATED_CURSOR),
            Some(2),
            PaginationMode::RepeatedCursor,
        );
        assert_eq!(
            repeated,
            Ok((vec![json!(0), json!(1)], Some(REPEATED_CURSOR.into())))
        );
    }

    #[test]
    fn templates_match_level_one() {
        let vars = match_template("fake://item/{id}", "fake://item/42").expect("match");
        assert_eq!(vars, BTreeMap::from([("id".to_owned(), "42".to_owned())]));
        let vars = match_template("fake://{a}/x/{b}", "fake://p/x/q").expect("match");
        assert_eq!(vars.get("a").map(String::as_str), Some("p"));
        assert_eq!(vars.get("b").map(String::as_str), Some("q"));
        assert_eq!(match_template("fake://item/{id}", "fake://other/42"), None);
        assert_eq!(match_template("fake://item/{id}", "fake://item/"), None);
        assert_eq!(substitute("item {id}!", &vars_of("id", "7")), "item 7!");
    }

    fn vars_of(k: &str, v: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(k.to_owned(), v.to_owned())])
    }
}
