//! The crate rules of the workspace (which crate may depend on which), as data, and
//! [`check_crate_rules`], which finds every dependency that breaks one.
//!
//! A rule names the crates it applies to (`from`), the crates they must not depend on (`to`),
//! how far to look (`reach`: the declared dependencies only, or everything they pull in), and
//! which manifest sections of the `from` crate count (`kinds`). Names are package names,
//! `@group` (a group of the rules file, or `@workspace` for every member) or a prefix glob
//! (`coyote-*`). Beyond the first step, a transitive search follows normal dependencies only:
//! a dependency's own dev- and build-dependencies are not part of what it brings in.
//!
//! Invariants: a rule that names a workspace crate or a group that does not exist is an error,
//! never a rule that silently checks nothing; each forbidden pair is reported once, with the
//! shortest chain of dependencies that makes it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

use serde::Deserialize;

use super::metadata::{CrateGraph, DepKind};

/// How far a rule looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    /// The dependencies the `from` crate declares.
    Direct,
    /// Everything they bring in, through normal dependencies.
    Transitive,
}

/// The rules file: named groups of crates, and the rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrateRules {
    /// Group name → its members (package names or globs); used as `@name`.
    #[serde(default)]
    pub groups: BTreeMap<String, Vec<String>>,
    /// The rules, each checked on its own.
    #[serde(default, rename = "rule")]
    pub rules: Vec<CrateRule>,
}

/// One rule: no crate of `from` depends on a crate of `to`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrateRule {
    /// A short name, shown in every finding.
    pub name: String,
    /// The crates the rule applies to.
    pub from: Vec<String>,
    /// Crates of `from` the rule does not apply to.
    #[serde(default)]
    pub not_from: Vec<String>,
    /// The crates they must not depend on.
    pub to: Vec<String>,
    /// Crates of `to` they may depend on after all.
    #[serde(default)]
    pub not_to: Vec<String>,
    /// How far to look.
    pub reach: Reach,
    /// The sections of the `from` crate's manifest that count (default: all three).
    #[serde(default = "all_kinds")]
    pub kinds: Vec<DepKind>,
    /// Why the rule exists, quoted when it is broken.
    pub reason: String,
}

fn all_kinds() -> Vec<DepKind> {
    vec![DepKind::Normal, DepKind::Dev, DepKind::Build]
}

/// A dependency that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleViolation {
    /// The rule's name.
    pub rule: String,
    /// The crate that may not have the dependency.
    pub from: String,
    /// The forbidden crate it reaches.
    pub to: String,
    /// The section of `from`'s manifest where the chain starts.
    pub kind: DepKind,
    /// The chain of crates from `from` to `to`, both included.
    pub path: Vec<String>,
    /// The rule's reason.
    pub reason: String,
}

impl fmt::Display for RuleViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} depends on {} ({} dependency{}), which rule `{}` forbids: {}",
            self.from,
            self.to,
            self.kind,
            if self.path.len() > 2 {
                format!(", through {}", self.path.join(" → "))
            } else {
                String::new()
            },
            self.rule,
            self.reason
        )
    }
}

/// A rules file that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// `@name` names no group.
    #[error("rule `{rule}` names the group @{group}, which the rules file does not define")]
    UnknownGroup {
        /// The rule.
        rule: String,
        /// The group name.
        group: String,
    },
    /// A `from` crate is not a workspace member (a typo would make the rule check nothing).
    #[error(
        "rule `{rule}` applies to `{name}`, which is not a workspace crate; fix the name or \
         remove it"
    )]
    UnknownCrate {
        /// The rule.
        rule: String,
        /// The name as written.
        name: String,
    },
}

/// Every dependency of `graph` that breaks a rule of `rules`, in rule order.
pub fn check_crate_rules(
    graph: &CrateGraph,
    rules: &CrateRules,
) -> Result<Vec<RuleViolation>, RulesError> {
    let mut found = Vec::new();
    for rule in &rules.rules {
        let names = Names { graph, rules, rule };
        let from = names.workspace_crates(&rule.from)?;
        let not_from = names.workspace_crates(&rule.not_from)?;
        let to = names.patterns(&rule.to)?;
        let not_to = names.patterns(&rule.not_to)?;
        let forbidden = |name: &str| {
            to.iter().any(|p| p.matches(name)) && !not_to.iter().any(|p| p.matches(name))
        };
        for start in from.difference(&not_from) {
            found.extend(reached(graph, rule, start, &forbidden));
        }
    }
    Ok(found)
}

/// The forbidden crates `start` reaches under `rule`, each with its shortest chain.
fn reached(
    graph: &CrateGraph,
    rule: &CrateRule,
    start: &str,
    forbidden: &dyn Fn(&str) -> bool,
) -> Vec<RuleViolation> {
    // BFS: first step through the rule's kinds, then (transitive) through normal edges.
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut first_kind: BTreeMap<String, DepKind> = BTreeMap::new();
    let mut queue = VecDeque::new();
    for edge in graph.edges_of(start) {
        if rule.kinds.contains(&edge.kind) && !first_kind.contains_key(&edge.to) {
            first_kind.insert(edge.to.clone(), edge.kind);
            parent.insert(edge.to.clone(), start.to_owned());
            queue.push_back(edge.to.clone());
        }
    }
    let mut order = Vec::new();
    while let Some(name) = queue.pop_front() {
        order.push(name.clone());
        if rule.reach == Reach::Direct {
            continue;
        }
        for edge in graph.edges_of(&name) {
            if edge.kind == DepKind::Normal && edge.to != start && !parent.contains_key(&edge.to) {
                parent.insert(edge.to.clone(), name.clone());
                let kind = first_kind.get(&name).copied().unwrap_or(DepKind::Normal);
                first_kind.insert(edge.to.clone(), kind);
                queue.push_back(edge.to.clone());
            }
        }
    }
    order
        .into_iter()
        .filter(|name| forbidden(name))
        .map(|name| {
            let mut path = vec![name.clone()];
            let mut at = name.as_str();
            while let Some(p) = parent.get(at) {
                path.push(p.clone());
                at = p;
            }
            path.reverse();
            RuleViolation {
                rule: rule.name.clone(),
                from: start.to_owned(),
                kind: first_kind.get(&name).copied().unwrap_or(DepKind::Normal),
                to: name,
                path,
                reason: rule.reason.clone(),
            }
        })
        .collect()
}

/// A name of a rule, expanded.
#[derive(Debug, Clone)]
enum Pattern {
    Exact(String),
    Prefix(String),
}

impl Pattern {
    fn matches(&self, name: &str) -> bool {
        match self {
            Pattern::Exact(n) => n == name,
            Pattern::Prefix(p) => name.starts_with(p.as_str()),
        }
    }
}

/// Expands the names of one rule.
struct Names<'a> {
    graph: &'a CrateGraph,
    rules: &'a CrateRules,
    rule: &'a CrateRule,
}

impl Names<'_> {
    /// `names` with groups expanded (not globs or workspace check yet).
    fn patterns(&self, names: &[String]) -> Result<Vec<Pattern>, RulesError> {
        let mut out = Vec::new();
        for name in names {
            if name == "@workspace" {
                out.extend(self.graph.workspace.iter().cloned().map(Pattern::Exact));
            } else if let Some(group) = name.strip_prefix('@') {
                let members =
                    self.rules
                        .groups
                        .get(group)
                        .ok_or_else(|| RulesError::UnknownGroup {
                            rule: self.rule.name.clone(),
                            group: group.to_owned(),
                        })?;
                out.extend(members.iter().map(|m| pattern(m)));
            } else {
                out.push(pattern(name));
            }
        }
        Ok(out)
    }

    /// The workspace crates `names` designate; an exact name must be a member.
    fn workspace_crates(&self, names: &[String]) -> Result<BTreeSet<String>, RulesError> {
        let mut out = BTreeSet::new();
        for p in self.patterns(names)? {
            match &p {
                Pattern::Exact(n) if !self.graph.workspace.contains(n) => {
                    return Err(RulesError::UnknownCrate {
                        rule: self.rule.name.clone(),
                        name: n.clone(),
                    });
                }
                _ => out.extend(
                    self.graph
                        .workspace
                        .iter()
                        .filter(|w| p.matches(w))
                        .cloned(),
                ),
            }
        }
        Ok(out)
    }
}

fn pattern(name: &str) -> Pattern {
    match name.strip_suffix('*') {
        Some(prefix) => Pattern::Prefix(prefix.to_owned()),
        None => Pattern::Exact(name.to_owned()),
    }
}

#[cfg(test)]
#[path = "crate_rules_tests.rs"]
mod tests;
