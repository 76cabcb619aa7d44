//! coolify-fixture (in progress)
