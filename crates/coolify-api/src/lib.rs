//! coolify-api (skeleton; see ARCHITECTURE in docs/architecture.md)
