//! What one request may call: every function name of its declaration set with the target it
//! addresses. Built from the declarations themselves, by the code that generated them, so
//! the set the model sees and the set dispatch accepts cannot differ; anything else is refused
//! before any request reaches a server.

use std::collections::BTreeMap;

use coyote_protocol::FunctionDeclaration;

use super::direct::DirectNames;
use super::{FunctionTarget, MetaFunction};

/// The callable functions of the latest declaration set, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Callable {
    targets: BTreeMap<String, FunctionTarget>,
}

impl Callable {
    /// The targets of `declarations`: a direct name through the table that generated it, any
    /// other name by its meta-function prefix (coyote generated it from one).
    pub(crate) fn of(declarations: &[FunctionDeclaration], direct: &DirectNames) -> Callable {
        let targets = declarations
            .iter()
            .filter_map(|d| {
                let target = match direct.resolve(&d.name) {
                    Some(tool) => FunctionTarget::Direct(tool.clone()),
                    None => FunctionTarget::Meta(MetaFunction::parse(&d.name)?),
                };
                Some((d.name.clone(), target))
            })
            .collect();
        Callable { targets }
    }

    /// What `name` addresses, if the set declares it.
    pub fn resolve(&self, name: &str) -> Option<&FunctionTarget> {
        self.targets.get(name)
    }

    /// The declared names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.targets.keys().cloned().collect()
    }

    /// Whether the set declares `target` under any name.
    pub fn contains(&self, target: &FunctionTarget) -> bool {
        self.targets.values().any(|t| t == target)
    }
}
