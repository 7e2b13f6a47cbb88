//! The tables of the older revisions: each member, content block type,
//! capability or feature, and the first revision that has it; and the
//! removal of what a revision lacks. A new revision is one row per rule.

use crate::profile::Revision::{self, V2025_03_26, V2025_06_18, V2025_11_25};
use serde_json::{Map, Value};

/// A member (or a feature), and the first revision that defines it.
pub(super) type Since = (&'static str, Revision);

/// The client's capabilities that a revision can declare (their members
/// follow `ELICITATION_CAPABILITY` and `SAMPLING_CAPABILITY`).
pub(super) const CLIENT_CAPABILITIES: [Since; 1] = [("elicitation", V2025_06_18)];
/// The content blocks of a result: a type the revision lacks becomes text.
pub(super) const BLOCK_TYPES: [Since; 2] = [("audio", V2025_03_26), ("resource_link", V2025_06_18)];
/// The member of a call result that 2025-06-18 added.
pub(super) const STRUCTURED_CONTENT: Since = ("structuredContent", V2025_06_18);

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
pub(super) const SAMPLING: [Since; 2] = [("tools", V2025_11_25), ("toolChoice", V2025_11_25)];
pub(super) const ELICITATION_CAPABILITY: [Since; 1] = [("url", V2025_11_25)];
pub(super) const SAMPLING_CAPABILITY: [Since; 2] = [("tools", V2025_11_25), ("context", V2025_11_25)];

/// The features of a form question: a form with a multi-select enum is
/// declined where the revision lacks it, a titled single-select becomes an
/// `enum` with `enumNames`.
pub(super) const MULTI_SELECT_ENUMS: Since = ("multi-select enums", V2025_11_25);
pub(super) const TITLED_ENUMS: Since = ("titled single-select enums", V2025_11_25);
/// The features of a sampling question: one with a feature the revision
/// lacks is declined (a message's array of one block becomes that block).
pub(super) const SEVERAL_BLOCKS: Since = ("several content blocks per message", V2025_11_25);
pub(super) const AUDIO: Since = ("audio content", V2025_03_26);

/// The members of a form question, of its `requestedSchema` and of each
/// kind of property (its `PrimitiveSchemaDefinition`) for a revision
/// before the latest: every other member goes (`keep`). The bridge holds
/// the answer to the server's whole schema in any case.
pub(super) const FORM: [Since; 4] =
    [("message", V2025_06_18), ("requestedSchema", V2025_06_18), ("_meta", V2025_06_18), ("mode", V2025_11_25)];
pub(super) const FORM_SCHEMA: [Since; 3] =
    [("type", V2025_06_18), ("properties", V2025_06_18), ("required", V2025_06_18)];
pub(super) const ENUM_PROPERTY: [Since; 5] = [
    ("type", V2025_06_18),
    ("title", V2025_06_18),
    ("description", V2025_06_18),
    ("enum", V2025_06_18),
    ("enumNames", V2025_06_18),
];
pub(super) const STRING_PROPERTY: [Since; 6] = [
    ("type", V2025_06_18),
    ("title", V2025_06_18),
    ("description", V2025_06_18),
    ("minLength", V2025_06_18),
    ("maxLength", V2025_06_18),
    ("format", V2025_06_18),
];
pub(super) const NUMBER_PROPERTY: [Since; 5] = [
    ("type", V2025_06_18),
    ("title", V2025_06_18),
    ("description", V2025_06_18),
    ("minimum", V2025_06_18),
    ("maximum", V2025_06_18),
];
pub(super) const BOOLEAN_PROPERTY: [Since; 4] =
    [("type", V2025_06_18), ("title", V2025_06_18), ("description", V2025_06_18), ("default", V2025_06_18)];

/// Removes the members of `object` that `revision` lacks.
pub(super) fn strip(object: &mut Map<String, Value>, members: &[Since], revision: Revision) {
    for (name, since) in members {
        if revision < *since {
            object.shift_remove(*name);
        }
    }
}

/// Keeps only the members of `object` that `revision` has: a member
/// without a row goes too.
pub(super) fn keep(object: &mut Map<String, Value>, members: &[Since], revision: Revision) {
    object.retain(|name, _| members.iter().any(|(member, since)| member == name && revision >= *since));
}

/// Whether `revision` lacks the feature.
pub(super) fn lacks((_, since): Since, revision: Revision) -> bool {
    revision < since
}

pub(super) fn strip_value(value: &mut Value, members: &[Since], revision: Revision) {
    if let Value::Object(object) = value {
        strip(object, members, revision);
    }
}
