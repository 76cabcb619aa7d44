//! A protocol revision pinned instead of negotiated: mcp.json's `"protocol"` key and
//! `COYOTE_MCP_PROTOCOL`.

use serde::{Deserialize, Serialize};

/// `"protocol"` of an mcp.json entry (and `COYOTE_MCP_PROTOCOL`): a protocol revision pinned
/// instead of negotiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProtocolPin {
    /// `"2025-11-25"`: the `initialize` handshake only.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// `"2026-07-28"`: `server/discover` only.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl ProtocolPin {
    /// Every pin with its spelling, for parsing and messages.
    pub const ALL: [(&'static str, ProtocolPin); 2] = [
        ("2025-11-25", ProtocolPin::V2025_11_25),
        ("2026-07-28", ProtocolPin::V2026_07_28),
    ];

    /// The revision as written.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolPin::V2025_11_25 => "2025-11-25",
            ProtocolPin::V2026_07_28 => "2026-07-28",
        }
    }

    /// The pin spelled `text`, if any.
    pub fn parse(text: &str) -> Option<ProtocolPin> {
        ProtocolPin::ALL
            .iter()
            .find(|(spelling, _)| *spelling == text)
            .map(|(_, pin)| *pin)
    }
}
