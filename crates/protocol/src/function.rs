//! A function (tool) declaration as the model sees it: name, description and JSON-Schema
//! parameters. Providers translate this into their own wire shape.

use serde::{Deserialize, Serialize};

/// One function the model may call. `parameters` is a JSON Schema object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDeclaration {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}
