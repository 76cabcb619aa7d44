//! A function (tool) declaration as the model sees it: name, description and JSON-Schema
//! parameters. Providers translate this into their own wire shape.

use serde::{Deserialize, Serialize};

/// One function the model may call. `parameters` is a JSON Schema object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDeclaration {
    /// The name the model calls it by (provider rules apply, see `FunctionNameRules`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments object.
    pub parameters: serde_json::Value,
}
