//! test-support (skeleton; see ARCHITECTURE in docs/architecture.md)
