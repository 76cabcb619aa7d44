//! config (skeleton; see ARCHITECTURE in docs/architecture.md)
