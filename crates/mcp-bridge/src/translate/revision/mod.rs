//! What a client of an older revision reads (beyond the behaviour spec,
//! whose profile answers 2025-11-25: docs/decisions.md). A client that
//! negotiated 2025-06-18, 2025-03-26 or 2024-11-05 gets only what its
//! revision defines: the members that a later revision added go, a content
//! block of a type it lacks becomes a text block that says what it was,
//! and a question that it cannot carry is declined as an undeclared one
//! (`carries_form`, `carries_sampling`). A client of 2025-11-25 gets
//! everything as the spec says; nothing here touches its messages.
//!
//! Pure: each table names a member and the first revision that has it.

mod blocks;
mod question;
mod table;
#[cfg(test)]
mod tests;

use super::note::Note;
use crate::method::Method;
use crate::profile::Revision;
use blocks::{block, conversion_notes, structured_content};
pub(crate) use question::{carries_form, carries_sampling, question};
use serde_json::{Map, Value};
use table::{
    strip, strip_value, ANNOTATIONS, CLIENT_CAPABILITIES, ELICITATION_CAPABILITY, IMPLEMENTATION, PROGRESS, PROMPT,
    PROMPT_ARGUMENT, RESOURCE, SAMPLING_CAPABILITY, SERVER_CAPABILITIES, TOOL,
};

/// The initialize result: the capabilities and the server information.
pub(crate) fn initialize(result: &mut Map<String, Value>, revision: Revision) {
    if let Some(capabilities) = result.get_mut("capabilities") {
        strip_value(capabilities, &SERVER_CAPABILITIES, revision);
    }
    if let Some(info) = result.get_mut("serverInfo") {
        strip_value(info, &IMPLEMENTATION, revision);
    }
}

/// The client's capabilities that its revision can declare: elicitation
/// from 2025-06-18, its URL mode and `sampling.tools` and
/// `sampling.context` from 2025-11-25. The upstream server then asks
/// nothing the client cannot answer, and an input request it sends anyway
/// is undeclared (a sampling request with tools, or with `tool_use` and
/// `tool_result` blocks, needs `sampling.tools`).
pub(crate) fn client_capabilities(capabilities: &mut Value, revision: Revision) {
    let Value::Object(capabilities) = capabilities else { return };
    strip(capabilities, &CLIENT_CAPABILITIES, revision);
    if let Some(Value::Object(elicitation)) = capabilities.get_mut("elicitation") {
        strip(elicitation, &ELICITATION_CAPABILITY, revision);
    }
    if let Some(Value::Object(sampling)) = capabilities.get_mut("sampling") {
        strip(sampling, &SAMPLING_CAPABILITY, revision);
    }
}

/// A complete result of `method`, after the result rules.
pub(crate) fn result(method: Method, result: &mut Map<String, Value>, revision: Revision, notes: &mut Vec<Note>) {
    if revision == Revision::LATEST {
        return;
    }
    let items = |result: &mut Map<String, Value>, member: &str, each: &mut dyn FnMut(&mut Map<String, Value>)| {
        if let Some(Value::Array(list)) = result.get_mut(member) {
            list.iter_mut().filter_map(Value::as_object_mut).for_each(each);
        }
    };
    // The kinds of the blocks that became text, one entry per block.
    let mut converted: Vec<&'static str> = Vec::new();
    match method {
        Method::ToolsList => items(result, "tools", &mut |tool| strip(tool, &TOOL, revision)),
        Method::PromptsList => items(result, "prompts", &mut |prompt| {
            strip(prompt, &PROMPT, revision);
            if let Some(Value::Array(arguments)) = prompt.get_mut("arguments") {
                arguments.iter_mut().for_each(|a| strip_value(a, &PROMPT_ARGUMENT, revision));
            }
        }),
        Method::ResourcesList => items(result, "resources", &mut |r| resource(r, revision)),
        Method::ResourcesTemplatesList => items(result, "resourceTemplates", &mut |r| resource(r, revision)),
        Method::ToolsCall => {
            structured_content(result, revision, notes);
            if let Some(Value::Array(content)) = result.get_mut("content") {
                converted.extend(content.iter_mut().filter_map(|b| block(b, revision)));
            }
        }
        Method::PromptsGet => {
            let Some(Value::Array(messages)) = result.get_mut("messages") else { return };
            for message in messages.iter_mut() {
                match message.get_mut("content") {
                    Some(Value::Array(blocks)) => {
                        converted.extend(blocks.iter_mut().filter_map(|b| block(b, revision)))
                    }
                    Some(content) => converted.extend(block(content, revision)),
                    None => {}
                }
            }
        }
        Method::ResourcesRead | Method::CompletionComplete => {}
    }
    notes.extend(conversion_notes(&converted, revision));
}

fn resource(resource: &mut Map<String, Value>, revision: Revision) {
    strip(resource, &RESOURCE, revision);
    if let Some(annotations) = resource.get_mut("annotations") {
        strip_value(annotations, &ANNOTATIONS, revision);
    }
}

/// A progress notification's params.
pub(crate) fn progress(params: &mut Map<String, Value>, revision: Revision) {
    strip(params, &PROGRESS, revision);
}
