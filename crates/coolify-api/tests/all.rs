//! Integration tests of coolify-api against coolify-fixture.
