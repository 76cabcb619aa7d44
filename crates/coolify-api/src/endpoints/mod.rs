//! Endpoint methods of [`crate::CoolifyClient`], one module per API area, plus the small
//! option types they take.
//!
//! Convention: the plain method returns the raw body (`serde_json::Value`, upstream key order,
//! unsanitized) — what the MCP server projects, sanitizes and prints; a `*_typed` sibling exists
//! where a tool needs to reason about fields. Every id goes through [`crate::ApiPath::id`].
//! Endpoints are relative to `/api/v1`; each method's doc names its route.

pub mod applications;
pub mod deployments;
pub mod misc;
pub mod projects;
pub mod servers;

/// Upstream paging (`?page=&per_page=`); unset fields are not sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Paging {
    /// 1-based page.
    pub page: Option<u64>,
    /// Page size.
    pub per_page: Option<u64>,
}

impl Paging {
    /// No paging parameters at all.
    pub const NONE: Self = Self {
        page: None,
        per_page: None,
    };

    pub(crate) fn apply(self, path: crate::ApiPath) -> crate::ApiPath {
        path.query_opt("page", self.page)
            .query_opt("per_page", self.per_page)
    }
}

/// Which kind of resource a route addresses (`/applications`, `/databases`, `/services`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// `/applications/...`
    Application,
    /// `/databases/...`
    Database,
    /// `/services/...`
    Service,
}

impl ResourceKind {
    /// The collection segment, e.g. `"applications"`.
    pub fn collection(self) -> &'static str {
        match self {
            Self::Application => "applications",
            Self::Database => "databases",
            Self::Service => "services",
        }
    }

    pub(crate) fn item(self, uuid: &str) -> Result<crate::ApiPath, crate::ApiError> {
        crate::ApiPath::new(self.collection()).id("uuid", uuid)
    }
}
