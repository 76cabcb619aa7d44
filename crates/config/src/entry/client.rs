//! The keys of an entry that say what the server may ask of coyote: `sampling`
//! (`ask` | `never`), `samplingMaxTokens`, `samplingPerMinute`, `roots` (directories: `~` is
//! the home directory, `${VAR}` is expanded, a relative path is taken from the file's base
//! directory) and `instructionsMaxBytes`; and `retrieveTopK`/`retrieveMaxTokens`, the size of
//! the `retrieve` exposure.

use std::path::PathBuf;

use coyote_protocol::{ClientFeatureSettings, RetrieveSettings, SamplingMode};
use serde_json::{Map, Value};

use super::EntryReader;
use super::fields::wrong;
use crate::error::Expected;

const SAMPLING_VALUES: &[(&str, SamplingMode)] =
    &[("ask", SamplingMode::Ask), ("never", SamplingMode::Never)];

impl EntryReader<'_, '_> {
    /// The entry's client-feature settings; a key left out keeps its default.
    pub(super) fn client_settings(&mut self, obj: &Map<String, Value>) -> ClientFeatureSettings {
        let defaults = ClientFeatureSettings::default();
        ClientFeatureSettings {
            sampling: self
                .choice(obj, "sampling", SAMPLING_VALUES)
                .unwrap_or(defaults.sampling),
            sampling_max_tokens: self
                .whole_number(obj, "samplingMaxTokens")
                .map_or(defaults.sampling_max_tokens, saturate_u32),
            sampling_per_minute: self
                .whole_number(obj, "samplingPerMinute")
                .map_or(defaults.sampling_per_minute, saturate_u32),
            roots: self.roots(obj),
            instructions_max_bytes: self
                .whole_number(obj, "instructionsMaxBytes")
                .map_or(defaults.instructions_max_bytes, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX)
                }),
        }
    }

    /// `retrieveTopK` and `retrieveMaxTokens`; a key left out keeps its default.
    pub(super) fn retrieve_settings(&mut self, obj: &Map<String, Value>) -> RetrieveSettings {
        let defaults = RetrieveSettings::default();
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        RetrieveSettings {
            top_k: self
                .whole_number(obj, "retrieveTopK")
                .map_or(defaults.top_k, size),
            max_tokens: self
                .whole_number(obj, "retrieveMaxTokens")
                .map_or(defaults.max_tokens, size),
        }
    }

    fn whole_number(&mut self, obj: &Map<String, Value>, key: &str) -> Option<u64> {
        let value = obj.get(key)?;
        match value.as_u64() {
            Some(n) => Some(n),
            None => {
                self.problem(self.path.key(key), wrong(Expected::WholeNumber, value));
                None
            }
        }
    }

    fn roots(&mut self, obj: &Map<String, Value>) -> Option<Vec<PathBuf>> {
        let raw = self.string_array(obj, "roots")?;
        let path = self.path.key("roots");
        let mut roots = Vec::with_capacity(raw.len());
        for (i, text) in raw.iter().enumerate() {
            let Some(expanded) = self.expand(path.index(i), text) else {
                continue;
            };
            let dir = match expanded.strip_prefix('~') {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                    match self.cx.env.var("HOME") {
                        Some(home) => PathBuf::from(home).join(rest.trim_start_matches('/')),
                        None => PathBuf::from(&expanded),
                    }
                }
                _ => PathBuf::from(&expanded),
            };
            roots.push(self.cx.base_dir.join(dir));
        }
        Some(roots)
    }
}

fn saturate_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
