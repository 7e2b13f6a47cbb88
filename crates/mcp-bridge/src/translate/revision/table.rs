//! The tables of the older revisions: each member, and the first revision
//! that has it; and the removal of what a revision lacks.

use crate::profile::Revision::{self, V2025_03_26, V2025_06_18, V2025_11_25};
use serde_json::{Map, Value};

/// A member, and the first revision that defines it.
pub(super) type Since = (&'static str, Revision);

pub(super) const IMPLEMENTATION: [Since; 4] =
    [("title", V2025_06_18), ("icons", V2025_11_25), ("description", V2025_11_25), ("websiteUrl", V2025_11_25)];
pub(super) const SERVER_CAPABILITIES: [Since; 1] = [("completions", V2025_03_26)];
pub(super) const TOOL: [Since; 5] = [
    ("title", V2025_06_18),
    ("icons", V2025_11_25),
    ("outputSchema", V2025_06_18),
    ("annotations", V2025_03_26),
    ("execution", V2025_11_25),
];
pub(super) const PROMPT: [Since; 2] = [("title", V2025_06_18), ("icons", V2025_11_25)];
pub(super) const PROMPT_ARGUMENT: [Since; 1] = [("title", V2025_06_18)];
pub(super) const RESOURCE: [Since; 2] = [("title", V2025_06_18), ("icons", V2025_11_25)];
pub(super) const RESOURCE_LINK: [Since; 1] = [("icons", V2025_11_25)];
pub(super) const ANNOTATIONS: [Since; 1] = [("lastModified", V2025_06_18)];
pub(super) const PROGRESS: [Since; 1] = [("message", V2025_03_26)];
pub(super) const ELICITATION: [Since; 1] = [("mode", V2025_11_25)];
pub(super) const SAMPLING: [Since; 2] = [("tools", V2025_11_25), ("toolChoice", V2025_11_25)];
pub(super) const ELICITATION_CAPABILITY: [Since; 1] = [("url", V2025_11_25)];
pub(super) const SAMPLING_CAPABILITY: [Since; 2] = [("tools", V2025_11_25), ("context", V2025_11_25)];

/// Removes the members of `object` that `revision` lacks.
pub(super) fn strip(object: &mut Map<String, Value>, members: &[Since], revision: Revision) {
    for (name, since) in members {
        if revision < *since {
            object.shift_remove(*name);
        }
    }
}

pub(super) fn strip_value(value: &mut Value, members: &[Since], revision: Revision) {
    if let Value::Object(object) = value {
        strip(object, members, revision);
    }
}
